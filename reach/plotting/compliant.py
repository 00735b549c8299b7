"""The paper's Fig. 12: compliant outcomes over the set (:mod:`reach.analysis.compare.compliant` computes them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reach.analysis.compare.regions import as_points, set_region

if TYPE_CHECKING:
    from reach.analysis.compare.compliant import CompliantSweep

__all__ = ["plot_compliant"]


def plot_compliant(sweep_ratio: CompliantSweep, sweep_tilt: CompliantSweep, set_points_2d=None,
                   path=None, *, ratio: float = 0.3, thickness: float | None = None,
                   set_label: str = "set (ours)"):
    """Draw the paper's Fig. 12: compliant outcomes over the set, two panels.

    Parameters
    ----------
    sweep_ratio, sweep_tilt : CompliantSweep
        From :func:`sweep_stiffness_ratio` and :func:`sweep_initial_tilt`.
    set_points_2d : array_like, shape (p, 2), optional
        The set's (A-normal, B-normal) outcomes, drawn as grey points and region.
    path : str or path-like, optional
        Where to save the figure.
    ratio, thickness
        Region construction, see :func:`set_region`.
    set_label : str
        Legend label of the set.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm, Normalize

    fig, axes = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
    panels = ((axes[0], sweep_ratio, LogNorm(), r"stiffness ratio $k_A/k_B$", "varying stiffness ratio"),
              (axes[1], sweep_tilt, Normalize(), r"initial angle $\theta_0$ [deg]", "varying initial angle"))
    for ax, sweep, norm, label, title in panels:
        if set_points_2d is not None:
            pts = as_points("set_points_2d", set_points_2d)
            region = set_region(pts, ratio, thickness)
            polygons = region.geoms if hasattr(region, "geoms") else [region]
            for part in polygons:
                if part.geom_type == "Polygon":
                    xy = np.array(part.exterior.coords)
                    ax.fill(xy[:, 0], xy[:, 1], color="0.8", zorder=1)
                elif not part.is_empty:
                    xy = np.array(part.coords)
                    ax.plot(xy[:, 0], xy[:, 1], color="0.8", lw=6, solid_capstyle="round", zorder=1)
            ax.scatter(pts[:, 0], pts[:, 1], s=4, color="0.45", zorder=2, label=set_label)
        vn = sweep.normal_velocities
        art = ax.scatter(vn[:, 0], vn[:, 1], c=sweep.values, cmap="viridis", norm=norm, s=28,
                         edgecolors="k", linewidths=0.3, zorder=3, label="compliant")
        fig.colorbar(art, ax=ax, label=label)
        ax.set_xlabel("A normal velocity [m/s]")
        ax.set_ylabel("B normal velocity [m/s]")
        ax.set_title(title)
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize=9)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
