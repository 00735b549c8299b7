"""``reach figures``: the pictures of the getting-started page (what ``h``, ``N``, ``|vn0|``, the completeness
estimate and the coverage target mean).

==============================  ==================================================================
``guide-path.png``              one sample of the rocking block's impact, step by step: each step
                                adds at most ``h`` of impulse, a sample takes at most ``N`` steps,
                                and it ends when no contact closes
``guide-completeness.png``      the disk stack's set at 2^12 samples (one contact's plane, in units
                                of ``|vn0|``) and its held-out search: the outcomes it lands
                                farther than 2 % of ``|vn0|`` from the set are what the set misses
``guide-coverage.png``          a coverage-driven run of the disk stack: each round's budget and
                                the bound on the share of held-out outcomes it misses, against
                                the 1 % target
==============================  ==================================================================
"""

from __future__ import annotations

import numpy as np

import scenarios
from reach import sample_post_impact_set
from reach.plotting.files import save_figure
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import closing_speed, held_out_settings
from reach.sets.run import run_sampling

__all__ = ["make_guide_figures"]


def _figure(*size):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(*size, figsize=(7.5, 4.2), constrained_layout=True)


def path_figure(out, dpi):
    """``guide-path.png``: the contacts' normal velocities along one rocking-block sample."""
    s = scenarios.get("rocking-block")
    result = sample_post_impact_set(s.problem, 64, s.h, s.N, keep_paths=64, completeness=False, n_jobs=1)
    path = max(result.paths, key=len)  # the longest kept path: several steps to see
    vn = s.problem.contact_velocities(path)[:, :, 0]
    fig, ax = _figure()
    for c, name in enumerate(s.problem.contact_names):
        ax.plot(np.arange(len(vn)), vn[:, c], "o-", label=f"contact {name}")
    ax.axhline(0.0, color="0.4", lw=0.8)
    ax.set_xlabel(f"step k of the impact (each adds at most h = {s.h:g} N s of impulse; at most N = {s.N} steps)")
    ax.set_ylabel("normal velocity at the contact (m/s)")
    ax.set_title("One sample of the rocking block's impact: it ends when no contact is closing")
    ax.legend()
    return save_figure(fig, out / "guide-path.png", dpi)


def completeness_figure(out, dpi):
    """``guide-completeness.png``: a small disk-stack set, its held-out outcomes, the ones it misses."""
    s = scenarios.get("disk-stack")
    speed = closing_speed(s.problem)
    result = sample_post_impact_set(s.problem, 2**12, s.h, s.N, completeness=False, n_jobs=1, seed=3)
    held = run_sampling(s.problem, held_out_settings(result.settings), warn=False)
    far = result.distance_to(held.velocities) > 0.02 * speed
    contact = s.problem.m - 1  # the top disc's contact: the widest spread
    cv, hv = result.contact_velocities()[:, contact] / speed, held.contact_velocities()[:, contact] / speed
    fig, ax = _figure()
    ax.scatter(cv[:, 1], cv[:, 0], s=2, color="0.6", label=f"the set: {len(cv):,d} outcomes")
    ax.scatter(hv[~far, 1], hv[~far, 0], s=4, color="tab:blue", label="held-out outcomes near the set")
    ax.scatter(hv[far, 1], hv[far, 0], s=12, color="tab:red",
               label=f"held-out outcomes farther than 2 % of |vn0| (all contacts): {far.mean():.1%}")
    ax.set_xlabel(f"tangential velocity at contact {s.problem.contact_names[contact]} / |vn0|")
    ax.set_ylabel("normal velocity / |vn0|")
    ax.set_title(f"Disk stack at 2^12 samples, and its held-out search (|vn0| = {speed:.3g} m/s)")
    ax.legend(markerscale=3, fontsize=8)
    return save_figure(fig, out / "guide-completeness.png", dpi)


def coverage_figure(out, dpi):
    """``guide-coverage.png``: the rounds of a coverage-driven disk-stack run against the 1 % target."""
    s = scenarios.get("disk-stack")
    result = sample_to_coverage(s.problem, s.h, s.N, max_samples=2**18, n_jobs=-1)
    rounds = result.metadata["coverage"]["rounds"]
    n = np.array([r["samples"] for r in rounds])
    fig, ax = _figure()
    ax.loglog(n, [r["estimate"] for r in rounds], "o-", label="held-out outcomes farther than 2 % of |vn0|")
    ax.loglog(n, [r["upper_bound"] for r in rounds], "s--", label="its 95 % upper bound (what the run stops on)")
    ax.axhline(0.01, color="tab:red", lw=1, label="the target: 1 %")
    ax.set_xlabel("samples in the round (the budget doubles until the bound meets the target)")
    ax.set_ylabel("share of held-out outcomes")
    ax.set_title("reach run disk-stack: the budget follows the coverage asked for")
    ax.legend(fontsize=8)
    return save_figure(fig, out / "guide-coverage.png", dpi)


def make_guide_figures(out, quick=False, *, log=print, dpi=150):
    """Write the getting-started page's pictures into ``out``; returns the written paths."""
    written = [path_figure(out, dpi), completeness_figure(out, dpi)]
    if not quick:  # the coverage run samples up to 2^18
        written.append(coverage_figure(out, dpi))
    log(f"guide: {len(written)} pictures")
    return written
