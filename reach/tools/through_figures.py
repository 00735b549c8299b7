"""``reach figures``: the multi-impact examples (sets through many impacts against their classical orbits).

==================================  ============================================================
``through-rimless-wheel.png``       footfall speeds of the rimless wheel: the set, the classical
                                    orbit, the analytic steady speed
``through-rocking-block.png``       the rocking block dropped flat, then rocking: the set and the
                                    Zeno solution's 0.7 per impact
``through-compass-walker.png``      the passive compass gait's heel strikes: the set against the
                                    classical law's period-one gait
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
    path = write_page(out / "through.md", "\n".join(lines), command)
    written.append(path)
    return written
