"""Plots of MuJoCo outcomes over the post-impact set (:mod:`reach.analysis.compare.mujoco` computes them)."""

from __future__ import annotations

import numpy as np

from reach.plotting.planes import parse_axis, plot_contact_frame, plot_contact_plane, project

__all__ = ["plot_comparison", "plot_contact_planes"]


def plot_comparison(result, mujoco_sweep, axes=None, ax=None, *, path=None, title=None):
    """MuJoCo's outcomes over the set in one contact plane.

    Parameters
    ----------
    result : PostImpactSet
    mujoco_sweep : MujocoSweep
    axes : (str, str), optional
        Plane, e.g. ``("A.normal", "B.normal")`` (the default: the first two
        contacts' normal velocities, or contact A's tangent1-normal plane if
        there is one contact).
    ax : matplotlib Axes, optional
    path : str or path-like, optional
        Save the figure there.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt


    problem = result.problem
    names = problem.contact_names
    if axes is None:
        axes = (f"{names[0]}.normal", f"{names[1]}.normal") if problem.m > 1 else \
            (f"{names[0]}.{'tangent' if problem.planar else 'tangent1'}", f"{names[0]}.normal")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5.5), layout="constrained")
    plot_contact_plane(result, axes, ax, baselines=None, paths=False, legend=False, inset=False,
                       title=title or "MuJoCo outcomes over the post-impact set")
    (i, a), (j, b) = (parse_axis(problem, spec) for spec in axes)
    cv = np.array([r.contact_velocities for r in mujoco_sweep.runs])
    xy = np.stack([cv[:, i, a], cv[:, j, b]], axis=-1)
    markers = {"tilt": ("^", "#d62728", "MuJoCo, tilted"), "stiffness": ("o", "#1f77b4", "MuJoCo, stiffness ratio")}
    for kind, (marker, colour, label) in markers.items():
        sel = mujoco_sweep.kind == kind
        if np.any(sel):
            ax.scatter(xy[sel, 0], xy[sel, 1], marker=marker, s=36, color=colour, edgecolors="k",
                       linewidths=0.5, zorder=12, label=f"{label} ({int(sel.sum())})")
    # zoom on the outcomes (the pre-impact point would dwarf them)
    pts = np.vstack([project(problem, result.velocities, axes), xy])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-3 * float(np.max(np.abs(problem.Jn @ problem.v))))
    ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
    ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
    ax.legend(loc="best", fontsize=8, title=f"{100 * mujoco_sweep.fraction_within:.0f} % within "
              f"{mujoco_sweep.eps:.2g} m/s", title_fontsize=8)
    if path is not None:
        ax.figure.savefig(path, dpi=130)
    return ax


def plot_contact_planes(result, *, path=None, contacts=None, title=None):
    """Tangential (first tangent) vs normal velocity, one panel per contact.

    For spatial problems such as the free 3-D block on four corners
    (:func:`reach.plotting.plot_contact_frame` per contact, no baselines:
    enumerating the simultaneous law's solutions is out of reach for
    m (3 + k) = 44 LCP variables).

    Parameters
    ----------
    result : PostImpactSet
    path : str or path-like, optional
        Save the figure there.
    contacts : sequence of str or int, optional
        Default: all.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt


    names = list(result.problem.contact_names) if contacts is None else list(contacts)
    cols = min(len(names), 4)
    rows = int(np.ceil(len(names) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.9 * rows), layout="constrained", squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        plot_contact_frame(result, name, ax, baselines=None, legend=False)
    for ax in axes.ravel()[len(names):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
