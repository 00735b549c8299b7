"""Stewart & Trinkle's examples regenerated, and where their time-stepper lands in the sets.

``reach figures`` calls :func:`make_stepping_figures`, which writes

==============================  ==============================================
``st-fig02-rod.png``            the spinning rod's snapshots (their Fig. 2)
``st-fig03-05-rod.png``         its velocities for several h (Figs. 3-5)
``st-fig06-collision.png``      the impulses at the balls' collision (Fig. 6)
``st-fig07-08-balls.png``       elevation and plan views of the balls (Figs. 7-8)
``stewart-trinkle.md``          events and Table 1 beside the paper's, and the
                                landing table (:func:`landing_rows`)
==============================  ==============================================
"""

from __future__ import annotations

import time

import numpy as np

import scenarios
from scenarios import four_balls  # its collision set (four_balls.collision): a helper the registry does not carry
from reach import sample_post_impact_set
from reach.analysis.landing import landing, one_step_outcome, stepped_outcome
from reach.analysis.stepping import collision_impulses, convergence_table, rest_time
from reach.laws.trajectory import simulate
from reach.plotting.files import save_figure
from reach.plotting.stepping import plot_ball_collision, plot_ball_paths, plot_rod_snapshots, plot_rod_velocities
from reach.tools.provenance import write_page

__all__ = ["make_stepping_figures", "landing_rows", "stepper_outcomes", "stepper_markers", "rod_events",
           "PAPER_TABLE1", "LANDING_STEPS"]

#: Stewart & Trinkle Table 1: h -> (velocity error, position error, velocity variation).
PAPER_TABLE1 = {0.02: (0.5050, 0.2505, 19.4046), 0.01: (0.3523, 0.2015, 19.1728),
                0.005: (0.1657, 0.0838, 19.1702), 0.0025: (0.0700, 0.0298, 19.0862),
                0.00125: (None, None, 19.0690)}
#: Steps of the runs: all of the paper's, or three in quick mode.
STEPS = {False: (0.02, 0.01, 0.005, 0.0025, 0.00125), True: (0.02, 0.01, 0.005)}
#: Step sizes at which the time-stepper's impact outcomes are measured against the sets.
LANDING_STEPS = (1e-2, 1e-3, 1e-4)
#: Samples of the balls' collision set.
BALL_SAMPLES = {False: 2 ** 14, True: 2 ** 10}


def rod_events(trajectory):
    """Measured event times of a spinning-rod run: each end's first impact, and rest."""
    first = {name: trajectory.onsets(name) for name in trajectory.contact_names}
    hits = sorted(float(t[0]) for t in first.values() if len(t))
    return {"first impact": hits[0] if hits else None, "second end hits": hits[1] if len(hits) > 1 else None,
            "sliding ends": rest_time(trajectory)}


def stepper_outcomes(system, q, v, steps=LANDING_STEPS):
    """``[(h, "one step" | "run", v+)]``: the time-stepper's post-impact velocities at each h."""
    rows = []
    for h in steps:
        rows.append((h, "one step", one_step_outcome(system, q, v, h)))
        rows.append((h, "run", stepped_outcome(system, q, v, h)[0]))
    return rows


def stepper_markers(name, h=1e-3):
    """The time-stepper's outcomes (one step and run, h) of paper scenario ``name``, for its figure."""
    scenario = scenarios.get(name)
    system = scenarios.lookup(name, "simulation", gravity=0.0).system
    return np.array([v for _, _, v in stepper_outcomes(system, scenario.q, scenario.v, (h,))])


def landing_rows(label, result, outcomes):
    """Markdown rows measuring ``outcomes`` (from :func:`stepper_outcomes`) against ``result``."""
    rows = []
    for h, kind, v in outcomes:
        land = landing(result, v)
        rows.append(f"| {label} | {h:g} | {kind} | {land.distance:.2e} | {land.fraction:.3%} "
                    f"| {land.approach:.2%} | {land.energy_ratio:.3f} | {land.outcome} |")
    return rows


def _runs(name, quick, log):
    """The simulation ``name`` and its runs at every step size of the mode."""
    sim = scenarios.lookup(name, "simulation")
    runs = {}
    for h in STEPS[quick]:
        t0 = time.perf_counter()
        runs[h] = simulate(sim.system, sim.q0, sim.v0, h, sim.t_end)
        log(f"{name}: h = {h:g}, {len(runs[h])} steps in {time.perf_counter() - t0:.1f} s")
    return sim, runs


def _rod(out, quick, written, save, log):
    sim, runs = _runs("spinning-rod", quick, log)
    shown = 0.0025 if 0.0025 in runs else min(runs)
    save(plot_rod_snapshots(runs[shown], sim.parameters), "st-fig02-rod")
    save(plot_rod_velocities(runs, sim.events), "st-fig03-05-rod")
    lines = ["## Spinning rod: event times (s)", "",
             "| h (s) | " + " | ".join(sim.events) + " | worst LCP residual | lowest phi (m) |",
             "|---:|" + "---:|" * (len(sim.events) + 2),
             "| paper | " + " | ".join(f"{t:.3f}" for t in sim.events.values()) + " | | |"]
    for h, tr in runs.items():
        events = rod_events(tr)
        lines.append(f"| {h:g} | " + " | ".join(f"{events[k]:.4f}" for k in sim.events)
                     + f" | {tr.residual.max():.1e} | {tr.phi.min():.1e} |")
    lines += ["", f"The rod starts with its centre at y0 = {sim.parameters['y0']:.4f} m (the paper does not give "
              "the height; free flight from there touches at its t = 0.383 s). An event time is the end of the "
              "step in which the contact first pushes; 'sliding ends' is when every velocity falls below "
              "1e-9.", ""]
    return lines


def _balls(out, quick, written, save, log):
    sim, runs = _runs("four-balls", quick, log)
    shown = runs[0.0025 if 0.0025 in runs else min(runs)]
    save(plot_ball_paths(shown, 4, sim.parameters["radius"]), "st-fig07-08-balls")
    index = shown.contact_names.index("ball2|ball1")
    start = int(np.flatnonzero(shown.normal[:, index] > 0)[0])
    window = range(start, start + 3)
    impulses = collision_impulses(sim.system, shown, window)
    centers = shown.q[start + 1, :12].reshape(4, 3)
    save(plot_ball_collision(centers, 0.1, impulses, shown.contact_names), "st-fig06-collision")
    lines = ["## Four balls: events (s) and Table 1", "",
             "| h (s) | table hit · paper 0.42 | collision with the line · paper 0.59 | worst LCP residual |",
             "|---:|---:|---:|---:|"]
    for h, tr in runs.items():
        lines.append(f"| {h:g} | {tr.onsets('ball1|table')[0]:.4f} | {tr.onsets('ball2|ball1')[0]:.4f} "
                     f"| {tr.residual.max():.1e} |")
    lines += ["", "| h (s) | velocity error (ours · paper) | position error (ours · paper) "
              "| velocity variation (ours · paper) |", "|---:|---:|---:|---:|"]
    for row in convergence_table(runs, positions=slice(0, 12), quaternions=slice(12, 28)):
        paper = PAPER_TABLE1[row["h"]]
        cell = (lambda a, b: "– · –" if a is None else f"{a:.4f} · {b:.4f}")
        lines.append(f"| {row['h']:g} | {cell(row['velocity_error'], paper[0])} "
                     f"| {cell(row['position_error'], paper[1])} | {row['variation']:.4f} · {paper[2]:.4f} |")
    lines += ["", f"Errors against the run with h = {min(runs):g} s: velocity error "
              "∫₀¹ ‖vʰ(t) − v(t)‖∞ dt over all 24 velocities, position error sup ‖xʰ − x‖∞ over the 12 centre "
              "coordinates (m) and the four orientations (the largest rotation angle between the runs, rad), as the "
              "paper's error over all coordinates, variation Σ ‖vˡ⁺¹ − vˡ‖∞. Impulses of Fig. 6: the three steps from the thrown "
              f"ball's first push on the line, at h = {shown.h:g} s.", ""]
    return lines


def make_stepping_figures(out, quick=False, *, sets=None, log=print, dpi=150, command="reach figures"):
    """Write the Stewart--Trinkle figures and ``stewart-trinkle.md`` into ``out``; returns the written paths.

    Parameters
    ----------
    sets : dict of str -> PostImpactSet, optional
        Sets of the paper scenarios already sampled (by ``reach figures``),
        to measure the time-stepper's outcomes against.
    """
    written = []

    def save(fig, stem):
        written.append(save_figure(fig, out / f"{stem}.png", dpi))

    lines = ["# Stewart & Trinkle's time-stepper: their examples, and where it lands in the sets", "",
             "Written by `reach figures`" + (" --quick" if quick else "") + ".", ""]
    lines += _rod(out, quick, written, save, log)
    lines += _balls(out, quick, written, save, log)
    lines += _landing_section(quick, sets or {}, log)
    path = write_page(out / "stewart-trinkle.md", "\n".join(lines), command)
    written.append(path)
    return written


def _landing_section(quick, sets, log):
    lines = ["## Where the time-stepper lands in the set", "",
             "Each impact stepped without gravity (the impact is impulsive): *one step* from the touching "
             "configuration, and a *run* started 1.5 steps before contact until no touching contact "
             "approaches. Distance: to the nearest outcome of the sampled set, in contact-velocity "
             "coordinates; approach: the largest normal approach speed left, over |vn0|; modes named with a "
             "tolerance of 1 % of |vn0|.", "",
             "| impact | h (s) | stepper | distance (m/s) | of \\|vn0\\| | approach | energy after/before | modes |",
             "|---|---:|---|---:|---:|---:|---:|---|"]
    for name, result in sets.items():
        scenario = scenarios.get(name)
        system = scenarios.lookup(name, "simulation", gravity=0.0).system
        lines += landing_rows(scenario.title, result, stepper_outcomes(system, scenario.q, scenario.v))
    problem, q, v, free = four_balls.collision()
    t0 = time.perf_counter()
    result = sample_post_impact_set(problem, BALL_SAMPLES[quick], 0.3, 20, n_jobs=-1)
    log(f"four balls' collision set: {BALL_SAMPLES[quick]:,d} samples in {time.perf_counter() - t0:.1f} s")
    lines += landing_rows("Four balls hit the line", result, stepper_outcomes(free, q, v))
    completeness = result.metadata.get("completeness") or {}
    lines += ["", f"The four balls' collision set: {BALL_SAMPLES[quick]:,d} samples (h = 0.3, N = 20), "
              f"{len(result):,d} in the set; its held-out search found outcomes up to "
              f"{completeness.get('max_fraction', float('nan')):.2%} of |vn0| from it.", ""]
    return lines
