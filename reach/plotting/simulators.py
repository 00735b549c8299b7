"""Simulators' outcomes over the set: MuJoCo, Drake SAP and the Kelvin–Voigt model (:mod:`reach.tools.simulators`)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_simulators"]

#: Marker and colour of each simulator.
MARKERS = {"MuJoCo": ("o", "#d95f02"), "Drake SAP": ("s", "#1f78b4"), "Kelvin–Voigt": ("^", "#33a02c")}


def plot_simulators(comparison, *, path=None, title=None):
    """Two panels: outcomes in the plane of the first two contacts' normal velocities, and SAP against its step.

    Parameters
    ----------
    comparison : reach.tools.simulators.Comparison
    path : str or path-like, optional
        Save the figure there.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, (ax, steps) = plt.subplots(1, 2, figsize=(11.5, 4.8), layout="constrained",
                                    gridspec_kw=dict(width_ratios=(1.25, 1.0)))
    a, b = comparison.labels[:2]
    points = comparison.set_points
    ax.scatter(points[:, 0, 0], points[:, 1, 0], s=7, c="0.45", lw=0, rasterized=True,
               label=f"the set ({len(points):,} outcomes)")
    for s in comparison.simulated:
        marker, colour = MARKERS.get(s.simulator, ("x", "k"))
        cv = s.contact_velocities
        ax.scatter(cv[:, 0, 0], cv[:, 1, 0], marker=marker, s=46, facecolors="none", edgecolors=colour, lw=1.4,
                   label=f"{s.simulator} ({len(cv)} runs; farthest {100 * s.fractions.max():.2f} % of |vn0|)")
    ax.set_xlabel(f"normal velocity at {a} after the impact [m/s]")
    ax.set_ylabel(f"normal velocity at {b} after the impact [m/s]")
    ax.grid(alpha=0.25, lw=0.5)
    ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    ax.set_title(title or f"{comparison.label}: each simulator's outcomes over the set")
    h = np.array([row[0] for row in comparison.time_steps])
    cv = np.array([row[1][:, 0] for row in comparison.time_steps])
    for k, label in enumerate(comparison.labels):
        steps.semilogx(h, cv[:, k], "o-", label=f"{label} normal velocity")
    steps.invert_xaxis()
    distance = steps.twinx()
    distance.semilogx(h, [100 * row[2] for row in comparison.time_steps], "k--", marker="x",
                      label="distance to the set")
    distance.set_ylabel("distance to the set [% of |vn0|]")
    distance.set_ylim(bottom=0)
    lines = steps.get_legend_handles_labels()
    more = distance.get_legend_handles_labels()
    steps.set_xlabel("SAP time step [s] (shrinking to the right)")
    steps.set_ylabel("post-impact velocity [m/s]")
    steps.set_title("SAP against its time step (touchdown tilted 0.01°)")
    steps.grid(alpha=0.25, lw=0.5)
    steps.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8, loc="center right")
    if path is not None:
        from reach.plotting.files import save_figure

        save_figure(fig, path)
    return fig
