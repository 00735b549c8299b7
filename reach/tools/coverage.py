"""``reach coverage``: how much of the set does a budget cover?  Measured against large references.

For a problem (a scenario, or a problem file), :func:`run_coverage`

1. builds a **reference**: the union of runs with every cap strategy (Sobol
   uniform, extreme, mixed and broad caps, counter-based and Sobol numbers),
   each with its own seed, ``factor`` times the budget in all;
2. samples the set with each **strategy** at several budgets (seed 0, as a user
   would), together with the set's own completeness estimate
   (:mod:`reach.sets.completeness`);
3. measures, per SPEC §7, the fraction of the reference — thinned to one
   outcome per cell of 0.4 % of ``|vn0|`` in contact-velocity coordinates, so that
   dense regions do not dominate — farther than 2 % and 5 % of ``|vn0|`` from the
   set, and the farthest reference outcome;
4. measures the same for an **ideal random spread** (:func:`ideal_gap`): as many
   outcomes as the budget, drawn uniformly from the reference's own cells.  No
   sampler whose outcomes fall independently can spread them more evenly over the
   set than that, so its gap is what a budget can be expected to leave at best;
   a target below it asks for a larger budget, not a better sampler.

The reference is itself an inner approximation: what no strategy reaches is
not counted.  The report says so, and gives the reference's size.  The
reference's directed part is built with the default's own algorithm, so a
change to the default changes the reference: to compare versions, save a
reference once (:func:`save_reference`, ``reach coverage --save-reference``)
and measure every version against it (``--reference``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from reach import sample_post_impact_set
from reach.sets.completeness import CELL, closing_speed, thin_cells

__all__ = ["run_coverage", "budgets", "build_reference", "reference_cells", "gap", "ideal_gap", "save_reference",
           "load_reference", "format_coverage", "plot_coverage", "STRATEGIES", "REFERENCE_PARTS", "IDEAL"]

#: The strategies measured: name -> sampler options.
STRATEGIES = {
    "paper (uniform caps)": dict(strategy="uniform", caps="uniform"),
    "mixed caps": dict(strategy="uniform", caps="mixed"),
    "directed (default)": dict(strategy="directed", caps="mixed"),
}
#: The reference's parts: (share of the reference, sampler options); seeds 1001, 1002, ...
REFERENCE_PARTS = (
    (0.25, dict(strategy="uniform", caps="uniform", sequence="sobol")),
    (0.25, dict(strategy="uniform", caps="extremes", sequence="uniform")),
    (0.25, dict(strategy="directed", caps="mixed", sequence="sobol")),
    (0.25, dict(strategy="uniform", caps="broad", sequence="uniform")),
)


def build_reference(problem, h, N, budget, *, factor=16, n_jobs=-1, log=print, seed=1001):
    """The union of runs of every strategy, ``factor x budget`` samples in all (at least 2^12 per part).

    Part ``k`` has seed ``seed + k``: references built in pieces take seeds that far apart.
    """
    union = None
    for k, (share, options) in enumerate(REFERENCE_PARTS):
        n = max(2**12, int(round(share * factor * budget)))
        t0 = time.perf_counter()
        part = sample_post_impact_set(problem, n, h, N, seed=seed + k, n_jobs=n_jobs, completeness=False,
                                      **options)
        log(f"  reference part {k + 1}/{len(REFERENCE_PARTS)}: {n:,d} samples, {options}, "
            f"{time.perf_counter() - t0:.1f} s")
        union = part if union is None else union.union(part)
    return union


def reference_cells(problem, h, N, pieces, *, piece=2**20, n_jobs=-1, log=None):
    """A large reference as its cells: ``pieces`` references of ``piece`` samples of every strategy
    (:func:`build_reference`, seeds ``1001 + 100 k``), each thinned to cells of
    :data:`~reach.sets.completeness.CELL` of ``|vn0|`` and the cells joined (2^24 samples for 16 pieces of
    2^20).  ``log(k, cells, seconds)`` is called after each piece."""
    cell, cells, t0 = CELL * closing_speed(problem), None, time.perf_counter()
    for k in range(pieces):
        ref = build_reference(problem, h, N, piece // 16, factor=16, n_jobs=n_jobs, log=lambda *a: None,
                              seed=1001 + 100 * k)
        part = thin_cells(problem, ref.velocities, cell)
        cells = part if cells is None else thin_cells(problem, np.concatenate([cells, part]), cell)
        if log is not None:
            log(k, cells, time.perf_counter() - t0)
    return cells


#: Name of the ideal-random-spread rows in a report (:func:`ideal_gap`).
IDEAL = "ideal random spread"


def _gap_of(distances, speed):
    d = np.atleast_1d(distances) / speed
    return {"outside_2pct": float(np.mean(d > 0.02)), "outside_5pct": float(np.mean(d > 0.05)),
            "max_fraction": float(d.max()), "p99_fraction": float(np.quantile(d, 0.99))}


def gap(result, reference_velocities, speed, workers=1):
    """Fraction of the (thinned) reference farther than 2 % and 5 % of ``speed`` from ``result``; the farthest.

    ``workers``: threads for the nearest-neighbour queries (-1: every core); the same distances for any number.
    """
    return _gap_of(result.distance_to(reference_velocities, workers=workers), speed)


def ideal_gap(problem, cells, n, speed, seed=0):
    """The gap left by ``n`` outcomes drawn uniformly, without replacement, from the reference's ``cells``.

    The best an independent sampler can do: its outcomes spread over the set as
    evenly as the set's own measure (one per cell) allows, and each covers at
    least itself.  Same keys as :func:`gap`; all cells if ``n`` is not smaller.
    """
    from reach.sampling.nearest import kd_tree

    pts = problem.contact_velocities(cells).reshape(len(cells), -1)
    if n >= len(cells):
        return _gap_of(np.zeros(len(cells)), speed)
    pick = np.random.default_rng(seed).choice(len(cells), n, replace=False)
    return _gap_of(kd_tree(pts[pick]).query(pts)[0], speed)


def save_reference(problem, cells, samples, path):
    """Write a thinned reference (``cells`` (k, nv)) with its problem's fingerprint and sample count, as .npz."""
    np.savez_compressed(path, cells=np.asarray(cells, dtype=float), samples=int(samples),
                        fingerprint=problem.fingerprint())
    return Path(path)


def load_reference(problem, path):
    """``(cells, samples)`` of a reference saved by :func:`save_reference`; it must be ``problem``'s."""
    try:
        f = np.load(path)
        if not hasattr(f, "files") or not {"cells", "samples", "fingerprint"} <= set(f.files):
            raise ValueError
    except ValueError:
        raise ValueError("not a reference saved by `reach coverage --save-reference` (.npz with its cells, "
                         "samples and the problem's fingerprint).") from None
    with f:
        if str(f["fingerprint"]) != problem.fingerprint():
            raise ValueError("it is a reference of another problem (its fingerprint differs).")
        return np.array(f["cells"]), int(f["samples"])


def run_coverage(problem, h, N, budget, *, label="problem", factor=16, fractions=(1 / 16, 1 / 4, 1),
                 strategies=None, n_jobs=-1, reference=None, save_reference_to=None, log=print):
    """Measure each strategy's coverage at ``budget x fractions`` against a reference of ``factor x budget``.

    Returns
    -------
    dict
        ``label``, ``h``, ``N``, ``budget``, ``reference`` (samples, kept, thinned cells),
        and ``rows``: per strategy and budget the measured gap (``outside_2pct``,
        ``outside_5pct``, ``max_fraction``, ``p99_fraction``) and the set's own
        completeness estimate (``estimate``), and the seconds it took; then the
        :data:`IDEAL` rows (:func:`ideal_gap`, no estimate).

    ``reference`` is a path to a saved reference (:func:`save_reference`), or
    its ``(cells, samples)`` already read by :func:`load_reference`, to
    measure against instead of building one; ``save_reference_to`` saves the
    one built.
    """
    strategies = STRATEGIES if strategies is None else {k: STRATEGIES[k] for k in strategies}
    speed = closing_speed(problem)
    t0 = time.perf_counter()
    if reference is not None:
        cells, samples = reference if isinstance(reference, tuple) else load_reference(problem, reference)
        source = "given" if isinstance(reference, tuple) else str(reference)
        log(f"{label}: reference of {samples:,d} samples ({source})")
    else:
        log(f"{label}: reference of {factor} x {budget:,d} samples")
        ref = build_reference(problem, h, N, budget, factor=factor, n_jobs=n_jobs, log=log)
        cells, samples, source = thin_cells(problem, ref.velocities, CELL * speed), len(ref.kept), "built"
        if save_reference_to is not None:
            log(f"  saved to {save_reference(problem, cells, samples, save_reference_to)}")
    report = {"label": label, "h": h, "N": N, "budget": int(budget), "closing_speed": speed,
              "reference": {"samples": int(samples), "cells": int(len(cells)), "cell_fraction": CELL,
                            "source": source, "seconds": time.perf_counter() - t0},
              "rows": []}
    for name, options in strategies.items():
        for n in budgets(budget, fractions):
            t1 = time.perf_counter()
            result = sample_post_impact_set(problem, n, h, N, n_jobs=n_jobs, **options)
            seconds = time.perf_counter() - t1
            row = {"strategy": name, "samples": n, "seconds": seconds,
                   **gap(result, cells, speed, workers=n_jobs if isinstance(n_jobs, int) else -1),
                   "estimate": result.metadata.get("completeness")}
            report["rows"].append(row)
            log(f"  {name:>20s} {n:>9,d}: {row['outside_2pct']:7.2%} of the reference > 2 %, "
                f"{row['outside_5pct']:6.2%} > 5 %, farthest {row['max_fraction']:6.2%} "
                f"(estimate: farthest {row['estimate']['max_fraction']:6.2%}, "
                f"{row['estimate']['outside_2pct']:6.2%} > 2 %)")
    for n in budgets(budget, fractions):
        row = {"strategy": IDEAL, "samples": n, "seconds": 0.0, **ideal_gap(problem, cells, n, speed),
               "estimate": None}
        report["rows"].append(row)
        log(f"  {IDEAL:>20s} {n:>9,d}: {row['outside_2pct']:7.2%} of the reference > 2 %, "
            f"{row['outside_5pct']:6.2%} > 5 %, farthest {row['max_fraction']:6.2%}")
    report["seconds"] = time.perf_counter() - t0
    return report


def budgets(budget, fractions):
    """The samples of the sets :func:`run_coverage` measures: ``budget x fractions``, at least 256, each once and
    in increasing order (a small ``budget``'s fractions can round to the same size)."""
    return sorted({max(256, int(round(budget * fraction))) for fraction in fractions})


def format_coverage(report):
    """A Markdown table of :func:`run_coverage`'s report."""
    ref = report["reference"]
    lines = [f"### {report['label']} (h = {report['h']:g}, N = {report['N']}; reference {ref['samples']:,d} "
             f"samples, {ref['cells']:,d} cells of {100 * ref['cell_fraction']:.1f} % of |vn0|)", "",
             "| strategy | samples | reference > 2 % | > 5 % | farthest | estimate: farthest | estimate: > 2 % |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in report["rows"]:
        e = r["estimate"]
        estimate = f"{e['max_fraction']:.2%} | {e['outside_2pct']:.2%}" if e else "– | –"
        lines.append(f"| {r['strategy']} | {r['samples']:,d} | {r['outside_2pct']:.2%} | {r['outside_5pct']:.2%} "
                     f"| {r['max_fraction']:.2%} | {estimate} |")
    return "\n".join(lines)


def plot_coverage(reports, path):
    """Fraction of the reference farther than 2 % of ``|vn0|`` against the budget, per strategy and problem."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(reports), figsize=(max(7.5, 5.5 * len(reports)), 5.2), layout="constrained",
                             squeeze=False)
    for ax, report in zip(axes[0], reports):
        for name in dict.fromkeys(r["strategy"] for r in report["rows"]):
            rows = [r for r in report["rows"] if r["strategy"] == name]
            n = [r["samples"] for r in rows]
            line, = ax.plot(n, [100 * r["outside_2pct"] for r in rows], "o-", label=f"{name}: measured")
            if name == IDEAL:
                line.set(color="0.35", linestyle=":", marker="s", label=f"{IDEAL} (the best independent sampling)")
                continue
            ax.plot(n, [100 * (r["estimate"] or {}).get("outside_2pct", np.nan) for r in rows], "x--",
                    color=line.get_color(), label=f"{name}: held-out estimate")
        ax.axhline(1.0, color="0.5", lw=0.8, ls=":", label="1 %: the coverage target of `reach run` (missed=0.01)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("samples (budget)")
        ax.set_ylabel("% of the reference farther than 2 % of |vn0|")
        ax.set_title(f"{report['label']} (reference {report['reference']['samples']:,d} samples)")
    # one legend under the panels: the strategies are the same in each, and inside a panel it hid lines
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3 if len(reports) > 1 else 2, fontsize=8)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def save_report(reports, path):
    Path(path).write_text(json.dumps(reports, indent=1))
    return Path(path)
