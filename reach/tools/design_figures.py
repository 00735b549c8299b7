"""``reach figures``: impact design -- the billiard break (Seghete & Murphey Fig. 5) and design sweeps.

=============================  ====================================================================
``sm-fig05-billiards.png``     xi of the propagative model and the Halm-Posa set's diameter against theta
``design-sweeps.png``          set diameters against the compass gait's step, the rocking block's
                               aspect ratio and spin, and RAMone's trunk pitch
``design.md``                  the numbers, and the minimiser's answer for the billiards
=============================  ====================================================================
"""

from __future__ import annotations

import numpy as np

from reach.design import minimize, sweep
from reach.plotting.design import plot_billiards, plot_sweep
from reach.plotting.files import save_figure
from reach.tools.provenance import write_page
import scenarios

__all__ = ["make_design_figures", "SWEEPS"]

#: The design sweeps drawn: design -> (grid, full and quick point counts are in the grids).
SWEEPS = {
    "compass-gait": {False: {"stance_deg": np.arange(60.0, 89.0, 1.0)}, True: {"stance_deg": [70.0, 78.0, 86.0]}},
    "rocking-block": {False: {"aspect": np.linspace(0.25, 4.0, 16), "spin": [0.0, 0.5, 0.9]},
                      True: {"aspect": [0.5, 2.0], "spin": [0.0]}},
    "ramone": {False: {"theta_deg": np.arange(0.0, 19.0, 1.0)}, True: {"theta_deg": [8.0, 16.0]}},
}


def make_design_figures(out, quick=False, *, log=print, dpi=150, command="reach figures"):
    """Write the design figures and ``design.md`` into ``out``; returns the written paths."""
    import matplotlib.pyplot as plt

    budget = 2 ** 8 if quick else 2 ** 10
    written, lines = [], ["# Impact design: where is the outcome predictable?", "",
                          f"Written by `reach figures`{' --quick' if quick else ''}; {budget} samples per point.", ""]
    theta = np.linspace(np.pi / 6, np.pi - 0.02, 12 if quick else 80)
    billiards = sweep(scenarios.lookup("billiards", "design").build, {"theta": theta}, ("xi", "diameter", "max_cosine"), budget=budget,
                      n_jobs=-1)
    fig = plot_billiards(theta, billiards.values["xi"], billiards.values["diameter"], billiards.values["max_cosine"])
    written.append(save_figure(fig, out / "sm-fig05-billiards.png", dpi))
    best = minimize(scenarios.lookup("billiards", "design").build, {"theta": 1.0}, {"theta": (np.pi / 6, 2.5)}, "xi", budget=2 ** 6)
    lines += ["## Billiard break", "",
              f"xi is smallest at theta = {theta[np.argmin(billiards.values['xi'][:-5])]:.4f} over the grid "
              f"(interior minimum; pi/2 = {np.pi / 2:.4f}); the minimiser (bounded Brent, from theta = 1) finds "
              f"theta = {best.params['theta']:.6f} with xi = {best.value:.2e} (start: {best.start_value:.4f}) in "
              f"{best.evaluations} evaluations. The Halm-Posa set's diameter is 0 for every theta >= pi/2 "
              f"(largest there: {np.max(billiards.values['diameter'][theta >= np.pi / 2]):.1e}) and "
              f"{billiards.values['diameter'][0]:.4f} at theta = pi/6.", ""]
    lines += _against_sets(budget, log)
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.2), layout="constrained")
    for ax, (name, grids) in zip(axes, SWEEPS.items()):
        result = sweep(scenarios.lookup(name, "design").build, grids[quick], ("diameter",), budget=budget, n_jobs=-1)
        plot_sweep(result, title=f"{name}: diameter of the set", ax=ax, xlabel=scenarios.lookup(name, "design").describe(result.names[0]))
        lines += [f"## {name}", "", "| " + " | ".join(result.names) + " | diameter |",
                  "|" + "---:|" * (len(result.names) + 1)]
        lines += ["| " + " | ".join(f"{v:.4g}" for v in row) + " |" for row in result.table()]
        lines.append("")
        log(f"design sweep {name}: {len(result.params)} points")
    written.append(save_figure(fig, out / "design-sweeps.png", dpi))
    path = write_page(out / "design.md", "\n".join(lines), command)
    written.append(path)
    return written


def _against_sets(budget, log):
    """Seghete-Murphey's outcomes (plastic, e = 0.5, elastic) of each paper impact against the Halm-Posa set."""
    import scenarios
    from reach import sample_post_impact_set
    from reach.laws.propagative import propagative

    lines = ["## Seghete-Murphey's outcomes against the Halm-Posa sets", "",
             "Distance from each propagative outcome to the nearest outcome of the set (contact-velocity "
             "coordinates, over |vn0|); several outcomes: the range. The propagative model ignores friction, and "
             "its restitution e > 0 makes contacts bounce, which the inelastic set never does.", "",
             "| impact | plastic (e = 0) | e = 0.5 | elastic (e = 1) | orders (e = 1) |", "|---|---:|---:|---:|---:|"]
    for name in scenarios.names():
        s = scenarios.get(name)
        result = sample_post_impact_set(s.problem, 4 * budget, s.h, s.N, completeness=False)
        scale = float(np.max(np.abs(s.problem.normal_velocities(s.v))))
        cells, orders = [], 0
        for e in (0.0, 0.5, 1.0):
            out = propagative(s.problem, e)
            d = result.distance_to(out.velocities) / scale
            cells.append(f"{d.min():.3f}" if np.ptp(d) < 5e-4 else f"{d.min():.3f}-{d.max():.3f}")
            orders = out.orders
        lines.append(f"| {s.title} | " + " | ".join(cells) + f" | {orders} |")
    log("propagative outcomes measured against the sets")
    return lines + [""]
