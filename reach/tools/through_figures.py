"""``reach figures``: the multi-impact examples (sets through many impacts against their classical orbits).

==================================  ============================================================
``through-rimless-wheel.png``       footfall speeds of the rimless wheel: the set, the classical
                                    orbit, the analytic steady speed
``through-rocking-block.png``       the rocking block dropped flat, then rocking: the set and the
                                    Zeno solution's 0.7 per impact
``through-compass-walker.png``      the passive compass gait's heel strikes: the set against the
                                    classical law's period-one gait
``through-quadruped-bound.png``     ``examples/quadruped12.xml`` bounding under
                                    ``reach.examples.gaits.bound``, flown by MuJoCo between
                                    touchdowns: the trunk's pitch rate (needs MuJoCo)
``through.md``                      the numbers behind them
==================================  ============================================================
"""

from __future__ import annotations

import time

import numpy as np

import scenarios
from reach.analysis.propagate import propagate
from reach.plotting.files import save_figure
from reach.plotting.through import plot_propagation
from reach.tools.provenance import write_page

__all__ = ["make_through_figures", "THROUGH_OPTIONS"]

#: Propagation options per example: full and quick.
THROUGH_OPTIONS = {
    "rimless-wheel": {False: dict(impacts=12, budget=2 ** 8, max_branches=8), True: dict(impacts=4, budget=2 ** 7,
                                                                                          max_branches=4)},
    "rocking-block": {False: dict(impacts=6, budget=2 ** 10, max_branches=16), True: dict(impacts=3, budget=2 ** 8,
                                                                                           max_branches=6)},
    "compass-walker": {False: dict(impacts=6, budget=2 ** 9, max_branches=8, t_max=3.0),
                       True: dict(impacts=2, budget=2 ** 7, max_branches=3, t_max=3.0)},
}


def _run(name, quick, log):
    example = scenarios.lookup(name, "trajectory")
    options = THROUGH_OPTIONS[name][quick]
    t0 = time.perf_counter()
    full = propagate(example.system, example.q0, example.v0, n_jobs=-1, guard=example.guard, **options)
    classical = None
    if name != "rocking-block":  # the rocking block lands flat first, where no single-contact law applies
        classical = propagate(example.system, example.q0, example.v0, law=example.classical, guard=example.guard,
                              **{**options, "max_branches": 1})
    log(f"{name}: {len(full.impacts)} impacts of the set and of the classical law in {time.perf_counter() - t0:.1f} s")
    return example, full, classical


def _rows(example, full, classical):
    k = example.coordinate[0]
    lines = [f"## {example.title}", "", example.description + ".", "",
             "| impact | branches | outcomes | min | max | spread | classical law | carried cover |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r, c in zip(full.impacts, (classical.impacts if classical else []) + [None] * len(full.impacts)):
        values = r.v[:, k]
        lines.append(f"| {r.index} | {len(r.t)} | {len(r.v):,d} | {values.min():.5g} | {values.max():.5g} "
                     f"| {np.ptp(values):.3g} | {'–' if c is None else f'{c.v[0, k]:.5g}'} | {r.radius:.2f} |")
    return lines + [""]


def make_through_figures(out, quick=False, *, log=print, dpi=150, command="reach figures"):
    """Write the multi-impact figures and ``through.md`` into ``out``; returns the written paths."""
    written, lines = [], ["# Sets through many impacts", "", "Written by `reach figures`"
                          + (" --quick" if quick else "") + "; the coordinate is the one each figure shows.", ""]
    for name in ("rimless-wheel", "rocking-block", "compass-walker"):
        example, full, classical = _run(name, quick, log)
        reference = {}
        if name == "rimless-wheel":
            reference["analytic steady speed ω* (classical law)"] = example.reference["steady_omega"]
        elif name == "compass-walker":
            reference["the classical law's period-one gait"] = float(example.v0[0])
        else:
            first = np.max(np.abs(full.impacts[0].v[:, 2]))
            n = len(full.impacts)
            reference["Zeno rate 0.7 per rocking impact, from the first impact's largest |ω|"] = \
                first * 0.7 ** np.arange(n)
        fig = plot_propagation(full, example.coordinate[0], example.coordinate[1], classical=classical,
                               reference=reference, title=example.title)
        written.append(save_figure(fig, out / f"through-{name}.png", dpi))
        lines += _rows(example, full, classical)
        if name == "rocking-block":
            first = np.max(np.abs(full.impacts[0].v[:, 2]))
            ratios = [np.max(np.abs(r.v[:, 2])) / first for r in full.impacts]
            lines += ["Largest |ω| over the first impact's: " + ", ".join(f"{x:.4f}" for x in ratios)
                      + " (the Zeno solution: 0.7 per rocking impact).", ""]
    quadruped = _bound(out, quick, log, dpi)
    if quadruped is not None:
        written.append(quadruped[0])
        lines += quadruped[1]
    path = write_page(out / "through.md", "\n".join(lines), command)
    written.append(path)
    return written


#: The bounding quadruped's options: full and quick (``reach trajectory examples/quadruped12.xml
#: --controller reach.examples.gaits:bound --lift 0.05 --impacts 3 --budget B --branches K``).
BOUND_OPTIONS = {False: dict(impacts=3, budget=2**12, max_branches=8, t_max=1.0),
                 True: dict(impacts=2, budget=2**8, max_branches=3, t_max=1.0)}


def _bound(out, quick, log, dpi):
    """The bounding quadruped through its touchdowns: ``(figure path, page lines)``, or None without MuJoCo."""
    import importlib.util
    from pathlib import Path

    if importlib.util.find_spec("mujoco") is None:
        log("quadruped bound: skipped (MuJoCo is not installed: pip install 'reach[mujoco]')")
        return None
    from reach.analysis.touchdowns import propagate_touchdowns
    from reach.examples.gaits import bound
    from reach.examples.requirements import pitch_rate_limited
    from reach.analysis.robust import check
    from reach.models.mujoco import load_model
    from reach.tools.cli_touchdowns import initial_state

    model = load_model(Path(__file__).parents[2] / "examples" / "quadruped12.xml")
    qpos, qvel = initial_state(model, "stand", 0.05)
    t0 = time.perf_counter()
    run = propagate_touchdowns(model, qpos, qvel, controller=bound, n_jobs=-1, **BOUND_OPTIONS[quick])
    log(f"quadruped bound: {len(run.impacts)} touchdowns in {time.perf_counter() - t0:.1f} s")
    fig = plot_propagation(run, 4, "trunk pitch rate after the touchdown (rad/s)",
                           title="quadruped12 bounding: the set of states after each touchdown")
    path = save_figure(fig, out / "through-quadruped-bound.png", dpi)
    lines = ["## A spatial quadruped bounding, flown by MuJoCo", "",
             "`examples/quadruped12.xml` (12 joints, 12 kg, condim-6 feet) dropped 5 cm from its keyframe "
             "`stand`, its legs driven by `reach.examples.gaits.bound` (front legs, then hind legs, a PD law); "
             "MuJoCo integrates every carried state to its next touchdown, where the set is sampled.", "",
             "| touchdown | feet | branches | outcomes | pitch rate min | max | spread (rad/s) | carried cover | "
             "violating ±2.7 rad/s | worst replayed |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for record, report in zip(run.impacts, check(run, pitch_rate_limited, replay=True)):
        feet = ", ".join(sorted({str(len(names)) for names in record.contacts}))
        values = record.v[:, 4]
        replayed = "–" if report.worst is None else _replayed(report)
        lines.append(f"| {record.index} | {feet} | {len(record.t)} | {len(record.v):,d} | {values.min():.4f} | "
                     f"{values.max():.4f} | {np.ptp(values):.3g} | {record.radius:.2f} | {report.violating:,d} | "
                     f"{replayed} |")
    return path, lines + [""]


def _replayed(report):
    """The table's words for how the worst outcome's replay went (:meth:`.Report.replay_verdict`)."""
    verdict = report.replay_verdict()
    if verdict == "rounding":
        return f"to {report.replay_gap:.0e} (rounding)"
    return "DIFFERS" if verdict == "differs" else verdict
