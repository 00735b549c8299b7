"""Figures of Stewart & Trinkle's time-stepping examples (their Figs. 2-8).

* :func:`plot_rod_snapshots` -- the spinning rod at evenly spaced times (Fig. 2);
* :func:`plot_rod_velocities` -- vertical, angular and horizontal velocity for
  several h, with the paper's event times (Figs. 3-5);
* :func:`plot_ball_collision` -- the impulses at the balls' collision (Fig. 6);
* :func:`plot_ball_paths` -- elevation and plan views of the balls (Figs. 7-8).
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_rod_snapshots", "plot_rod_velocities", "plot_ball_collision", "plot_ball_paths", "plot_trajectory"]

_H_COLORS = ("#fdae61", "#d7191c", "#abd9e9", "#2c7bb6", "#000000")


def _stadium(center, angle, length, radius, n=24):
    """Outline (k, 2) of a rod with rounded ends."""
    axis = np.array([np.cos(angle), np.sin(angle)])
    ends = [center + 0.5 * length * axis, center - 0.5 * length * axis]
    arcs = []
    for end, start in zip(ends, (angle - np.pi / 2, angle + np.pi / 2)):
        a = start + np.linspace(0.0, np.pi, n)
        arcs.append(end + radius * np.column_stack([np.cos(a), np.sin(a)]))
    return np.vstack(arcs + [arcs[0][:1]])


def plot_rod_snapshots(trajectory, parameters, *, every=0.05, t_max=0.7):
    """The rod's outline at times ``0, every, 2 every, ...`` up to t_max (once at rest), labelled with the time."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 7.5), layout="constrained")
    times = np.arange(0.0, min(t_max, trajectory.t[-1]) + 1e-9, every)
    index = list(np.searchsorted(trajectory.t, times - 1e-9))
    while len(index) > 1 and np.allclose(trajectory.q[index[-1]], trajectory.q[index[-2]], atol=2e-3):
        index.pop()  # (nearly) at rest: draw the pose once
    shades = plt.cm.viridis(np.linspace(0.0, 0.9, len(index)))
    for color, l in zip(shades, index):
        x, y, theta = trajectory.q[l]
        outline = _stadium(np.array([x, y]), theta, parameters["length"], parameters["radius"])
        ax.fill(outline[:, 0], outline[:, 1], facecolor=(*color[:3], 0.25), edgecolor=color, lw=1.2)
        ax.annotate(f"{trajectory.t[l]:.2f}", (x, y), fontsize=7.5, ha="center", va="center")
    ax.axhline(0.0, color="black", lw=1.5)
    ax.fill_between([-1, 1], -0.05, 0.0, color="0.8", hatch="///", edgecolor="0.4", lw=0)
    ax.set_aspect("equal")
    ax.set_xlim(-0.62, 0.42)
    ax.set_ylim(-0.05, 1.22)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(f"Spinning rod falling on a table, h = {trajectory.h:g} s (numbers: time in s)")
    return fig


def plot_rod_velocities(trajectories, events):
    """Vertical, angular and horizontal velocity of the rod against t, one line per h (paper Figs. 3-5)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(10, 10), sharex=True, layout="constrained")
    labels = (("vertical velocity (m/s)", 1), ("angular velocity (rad/s)", 2), ("horizontal velocity (m/s)", 0))
    hs = sorted(trajectories, reverse=True)
    for ax, (label, k) in zip(axes, labels):
        for color, h in zip(_H_COLORS[len(_H_COLORS) - len(hs):], hs):
            tr = trajectories[h]
            ax.step(tr.t, tr.v[:, k], where="pre", color=color, lw=1.1, label=f"h = {h:g} s")
        for name, t in events.items():
            ax.axvline(t, color="#d62728", ls=":", lw=1.0)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    for k, (name, t) in enumerate(events.items()):
        axes[1].annotate(f"paper: {name} ({t:g} s)", (t, 0.42 - 0.12 * k), xycoords=("data", "axes fraction"),
                         xytext=(4, 0), textcoords="offset points", va="top", ha="left", fontsize=8,
                         color="#d62728")
    axes[0].legend(loc="lower left", fontsize=9)
    axes[-1].set_xlabel("t (s)")
    axes[0].set_title("Spinning rod: velocities converging as h falls (Stewart & Trinkle Figs. 3-5)")
    return fig


def plot_ball_collision(centers, radius, impulses, names):
    """Elevation view (x-z) of the balls at the collision, with each contact's impulse as an arrow (Fig. 6).

    Parameters
    ----------
    centers : ndarray (N, 3)
    impulses : ndarray (p, 3)
        World impulse of each contact on its first-named body (ball j of ``"ballj|balli"``).
    names : sequence of str
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle

    fig = plt.figure(figsize=(13, 4.6), layout="constrained")
    grid = fig.add_gridspec(1, 3)
    ax, text = fig.add_subplot(grid[0, :2]), fig.add_subplot(grid[0, 2])
    for k, c in enumerate(centers):
        ax.add_patch(Circle((c[0], c[2]), radius, facecolor="#c6dbef", edgecolor="#2b5d8a", lw=1.2))
        ax.annotate(f"{k + 1}", (c[0], c[2] + 0.45 * radius), ha="center", va="center", fontsize=10)
    scale = 0.15 / max(float(np.max(np.linalg.norm(impulses[:, [0, 2]], axis=1))), 1e-12)
    rows = ["contact        impulse on the first ball (N s)", "                  x        y        z"]
    for name, impulse in zip(names, impulses):
        if np.linalg.norm(impulse) < 1e-9:
            continue
        rows.append(f"{name:<12} {impulse[0]:+8.3f} {impulse[1]:+8.3f} {impulse[2]:+8.3f}")
        first, second = name.split("|")
        j = int(first.replace("ball", "")) - 1
        if second == "table":
            arrows = [(centers[j] - [0.0, 0.0, radius], impulse)]
        else:
            i = int(second.replace("ball", "")) - 1
            point = 0.5 * (centers[i] + centers[j])
            arrows = [(point, impulse), (point, -impulse)]
        for p, f in arrows:
            ax.annotate("", xy=(p[0] + scale * f[0], p[2] + scale * f[2]), xytext=(p[0], p[2]),
                        arrowprops=dict(arrowstyle="-|>", color="#c00000", lw=1.6, shrinkA=0, shrinkB=0))
    ax.axhline(0.0, color="black", lw=1.2)
    ax.set_aspect("equal")
    ax.set_xlim(centers[:, 0].min() - 0.25, centers[:, 0].max() + 0.25)
    ax.set_ylim(-0.12, 0.3)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_title("Impulses at the collision (x-z part; a pair's impulse acts on both balls)")
    text.set_axis_off()
    text.text(0.0, 0.95, "\n".join(rows), family="monospace", fontsize=8.5, va="top", transform=text.transAxes)
    return fig


def plot_ball_paths(trajectory, n_balls, radius):
    """Elevation (x-z) and plan (x-y) views of the ball centres' paths (paper Figs. 7-8)."""
    import matplotlib.pyplot as plt

    centers = trajectory.q[:, :3 * n_balls].reshape(len(trajectory.t), n_balls, 3)
    fig, (top, lift, bottom) = plt.subplots(3, 1, figsize=(10, 11.5), layout="constrained")
    colors = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
    for k in range(n_balls):
        c = colors[k % len(colors)]
        top.plot(centers[:, k, 0], centers[:, k, 2], color=c, lw=1.4, label=f"ball {k + 1}")
        low = centers[:, k, 2] < radius + 0.01
        lift.plot(centers[low, k, 0], 1e3 * (centers[low, k, 2] - radius), color=c, lw=1.2, label=f"ball {k + 1}")
        bottom.plot(centers[:, k, 0], centers[:, k, 1], color=c, lw=1.4, label=f"ball {k + 1}")
        for ax, axis in ((top, 2), (bottom, 1)):
            ax.plot(centers[0, k, 0], centers[0, k, axis], "o", color=c, mfc="white")
            ax.plot(centers[-1, k, 0], centers[-1, k, axis], "o", color=c)
    top.set_ylabel("z (m)")
    top.set_title(f"Four balls, elevation view (h = {trajectory.h:g} s, t from 0 to {trajectory.t[-1]:g} s; "
                  "open circles: start)")
    lift.set_ylabel("height above the table (mm)")
    lift.set_title("elevation, zoomed: the balls' jumps after the collision (heights below 10 mm)")
    bottom.set_ylabel("y (m)")
    bottom.set_title("plan view")
    for ax in (top, lift, bottom):
        ax.set_xlabel("x (m)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9)
    return fig


def plot_trajectory(trajectory, *, title=None, names=None, kinds=None):
    """Velocities and normal contact impulses of any time-stepping run against t.

    ``kinds`` (``"linear"`` or ``"angular"`` per velocity coordinate) puts
    linear velocities (m/s) and angular velocities (rad/s) on panels of
    their own; without it one panel shows every coordinate.
    """
    import matplotlib.pyplot as plt

    v = trajectory.v
    labels = names or [f"v[{i}]" for i in range(v.shape[1])]
    groups = [("velocity (m/s or rad/s, by coordinate)", np.arange(v.shape[1]))]
    if kinds is not None:
        kinds = np.asarray(kinds)
        groups = [(label, np.flatnonzero(kinds == kind)) for kind, label in
                  (("linear", "linear velocity (m/s)"), ("angular", "angular velocity (rad/s)"))]
        groups = [g for g in groups if len(g[1])]
    fig, axes = plt.subplots(len(groups) + 1, 1, figsize=(10, 4.0 + 2.8 * len(groups)), sharex=True,
                             layout="constrained")
    for top, (ylabel, rows) in zip(axes, groups):
        for i in rows:
            top.step(trajectory.t, v[:, i], where="pre", lw=1.0, label=labels[i])
        top.set_ylabel(ylabel)
        top.grid(alpha=0.3)
        if len(rows) <= 12:
            top.legend(fontsize=8, ncol=2)
    bottom = axes[-1]
    pushing = np.flatnonzero(np.any(trajectory.normal > 0, axis=0))
    for k in pushing:
        bottom.step(trajectory.t[1:], trajectory.normal[:, k], where="pre", lw=1.0,
                    label=trajectory.contact_names[k])
    bottom.set_ylabel("normal impulse per step (N s)")
    bottom.set_xlabel("t (s)")
    bottom.grid(alpha=0.3)
    if len(pushing):
        bottom.legend(fontsize=8, ncol=2)
    axes[0].set_title(title or f"time-stepping run, h = {trajectory.h:g} s")
    return fig
