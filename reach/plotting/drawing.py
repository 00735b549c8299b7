"""Drawings of planar scenarios: panel (a) of the paper's figures 1, 4, 5, 13, 14.

:func:`draw_configuration` draws a scenario's bodies, its walls (hatched on
the solid side), the contact points labelled A, B, ... and the pre-impact
velocity arrows.  matplotlib is imported only when drawing; the core modules
never import this one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["draw_configuration"]

#: Face colours cycled over bodies (light), with a darker edge colour.
_BODY_FACES = ("#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb", "#fcbba1", "#d9d9d9")
_BODY_EDGES = ("#2b5d8a", "#a6501a", "#2f7a32", "#54478c", "#a3251b", "#4d4d4d")
_CONTACT_COLOR = "#d95f02"
_VELOCITY_COLOR = "#c00000"


def _body_colors(model):
    """Face and edge colour per body.

    A body keeps its parent's colour unless the parent is the world or has
    several children (a branching point such as a pelvis or hip), so each leg
    of a walker gets its own colour and a leg's links share one.
    """
    children = {}
    for joint in model.joints:
        children[joint.parent] = children.get(joint.parent, 0) + 1
    faces, edges = {}, {}
    count = 0
    for body, joint in zip(model.bodies, model.joints):
        parent = joint.parent
        if parent in faces and children[parent] == 1:
            faces[body], edges[body] = faces[parent], edges[parent]
            continue
        k = count % len(_BODY_FACES)
        count += 1
        faces[body], edges[body] = _BODY_FACES[k], _BODY_EDGES[k]
    return faces, edges


def _inside_free_space(model, point, margin):
    return all(wall.distance(point) >= margin for wall in model.walls)


def _velocity_arrows(scenario, model, q, velocity, scale, reference=None):
    """Arrow segments ``(tail, tip, label)`` of the point velocities at ``scenario.arrows``.

    The longest arrow is ``0.22 * scale`` long, or, with a ``reference``
    generalized velocity, the longest arrow of the reference is (so a
    velocity after the impact is drawn to the scale of the one before).  Each
    label gives the speed in m/s.  An arrow starts at its point, unless its
    tip would enter a wall; then it ends at the point instead.
    """
    v = scenario.v if velocity is None else velocity
    if v is False or v is None or not len(scenario.arrows):
        return []
    v = np.asarray(v, dtype=float)
    points = [model.point_position(q, body, local) for body, local, _ in scenario.arrows]
    speeds = [model.point_jacobian(q, body, local) @ v for body, local, _ in scenario.arrows]
    top = max(float(np.linalg.norm(s)) for s in speeds)
    if reference is not None:
        top = max(float(np.linalg.norm(model.point_jacobian(q, body, local) @ np.asarray(reference, dtype=float)))
                  for body, local, _ in scenario.arrows) or top
    out = []
    if top == 0:
        return out
    length = 0.22 * scale / top
    for p, s, (_, _, label) in zip(points, speeds, scenario.arrows):
        speed = float(np.linalg.norm(s))
        if speed < 1e-9 * top:
            continue
        tail, tip = p, p + length * s
        if not _inside_free_space(model, tip, 0.03 * scale):
            tail, tip = p - length * s, p
        out.append((tail, tip, f"{label} = {speed:.2f}\\,\\mathrm{{m/s}}" if label else ""))
    return out


def _draw_walls(ax, model, bounds, scale, lw):
    """Each wall: its boundary line and a hatched band on the solid side."""
    from matplotlib.patches import Polygon

    from reach.models.planar import wall_segment

    band = 0.07 * scale
    for wall in model.walls:
        seg = wall_segment(wall, bounds)
        if seg is None:
            continue
        solid = np.vstack([seg, seg[::-1] - band * wall.normal])
        ax.add_patch(Polygon(solid, closed=True, facecolor="0.88", edgecolor="0.45", hatch="///", lw=0.0,
                             zorder=1))
        ax.plot(seg[:, 0], seg[:, 1], color="0.15", lw=lw, zorder=2)


def _draw_bodies(ax, model, q, items, lw):
    """Bodies filled in their colours, revolute joints as open circles, point masses sized by mass."""
    from matplotlib.patches import Circle, Polygon

    faces, edges = _body_colors(model)
    for item in items:
        face, edge = faces[item.body], edges[item.body]
        if item.kind == "box":
            ax.add_patch(Polygon(item.points[:-1], closed=True, facecolor=face, edgecolor=edge, lw=lw, zorder=3))
        elif item.kind == "disc":
            centre, spoke = item.points
            ax.add_patch(Circle(centre, item.radius, facecolor=face, edgecolor=edge, lw=lw, zorder=4))
            ax.plot(*np.vstack([centre, spoke]).T, color=edge, lw=0.8, zorder=4)
        elif item.kind == "rod":
            ax.plot(item.points[:, 0], item.points[:, 1], color=edge, lw=3.0, solid_capstyle="round", zorder=3)
        elif item.kind == "point":
            ax.plot(*item.points[0], "o", color=edge, ms=3, zorder=5)
    # Revolute joints as small open circles.
    positions, _ = model.body_poses(q)
    for body, joint in zip(model.bodies, model.joints):
        if joint.kind == "revolute":
            ax.plot(*positions[model.body_index(body)], "o", color="white", mec="0.15", mew=1.0, ms=5, zorder=7)
    masses = [item for item in items if item.kind == "mass" and item.mass > 0]
    if masses:
        biggest = max(item.mass for item in masses)
        for item in masses:
            size = 4.0 + 5.0 * np.sqrt(item.mass / biggest)
            ax.plot(*item.points[0], "o", color="0.1", ms=size, mec="white", mew=0.8, zorder=6)


def _label_contacts(ax, scenario, model, q, contacts, box, scale):
    """Contact points labelled away from the wall (between bodies: away from the scene's middle)."""
    xmin, xmax, ymin, ymax = box
    centre = model.center_of_mass(q) if model.total_mass > 0 else np.array([xmin + xmax, ymin + ymax]) / 2
    for c, label in zip(contacts, scenario.contact_labels):
        if c.kind == "disc|disc":
            away = c.tangent if c.tangent @ (c.point - centre) >= 0 else -c.tangent
        else:
            away = -c.normal
        ax.plot(*c.point, "o", color=_CONTACT_COLOR, ms=6, mec="black", mew=0.6, zorder=8)
        at = c.point + 0.085 * scale * away
        ax.text(at[0], at[1], label, ha="center", va="center", fontsize=11, fontweight="bold", zorder=9,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85))


def _draw_arrows(ax, arrows, scale):
    """Velocity arrows with their labels beside the middle."""
    for tail, tip, label in arrows:
        ax.annotate("", xy=tip, xytext=tail, zorder=10,
                    arrowprops=dict(arrowstyle="-|>", color=_VELOCITY_COLOR, lw=2.0, mutation_scale=16,
                                    shrinkA=0, shrinkB=0))
        unit = (tip - tail) / np.linalg.norm(tip - tail)
        side = np.array([unit[1], -unit[0]])  # label beside the arrow's middle
        at = 0.5 * (tail + tip) + 0.06 * scale * side
        if label:
            ax.text(at[0], at[1], f"${label}$", color=_VELOCITY_COLOR, fontsize=13, ha="center", va="center",
                    zorder=10)


def draw_configuration(scenario, ax=None, *, velocity=None, label_contacts=True, title=None, reference=None):
    """Draw a scenario's configuration at impact.

    Parameters
    ----------
    scenario : Scenario
        Anything with ``model``, ``q``, ``v``, ``contacts``, ``contact_labels``,
        ``arrows`` and ``title`` (see :class:`scenarios.Scenario`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; a new figure is made if omitted.
    velocity : array_like, shape (nv,), optional
        Generalized velocity whose point velocities are drawn as arrows at
        ``scenario.arrows`` (default ``scenario.v``; ``False`` draws none).
    label_contacts : bool
        Mark the contact points and label them A, B, ...
    title : str, optional
        Axes title (default ``scenario.title``; ``""`` for none).
    reference : array_like, shape (nv,), optional
        Draw the arrows to the scale of this velocity's (the pre-impact one,
        for a panel after the impact), so their lengths compare.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    from reach.models.planar import bounding_box, outlines

    model, q = scenario.model, np.asarray(scenario.q, dtype=float)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.0, 4.0))
    items = outlines(model, q)
    contacts = model.contacts(q, list(scenario.contacts))
    xmin, xmax, ymin, ymax = bounding_box(items)
    for c in contacts:
        xmin, xmax = min(xmin, c.point[0]), max(xmax, c.point[0])
        ymin, ymax = min(ymin, c.point[1]), max(ymax, c.point[1])
    scale = max(xmax - xmin, ymax - ymin, 1e-3)
    arrows = _velocity_arrows(scenario, model, q, velocity, scale, reference)
    for tail, tip, _ in arrows:
        xmin, xmax = min(xmin, tail[0], tip[0]), max(xmax, tail[0], tip[0])
        ymin, ymax = min(ymin, tail[1], tip[1]), max(ymax, tail[1], tip[1])
    scale = max(xmax - xmin, ymax - ymin, 1e-3)
    pad = 0.15 * scale
    bounds = (xmin - pad, xmax + pad, ymin - pad, ymax + pad)
    lw = 1.5

    _draw_walls(ax, model, bounds, scale, lw)
    _draw_bodies(ax, model, q, items, lw)
    if label_contacts:
        _label_contacts(ax, scenario, model, q, contacts, (xmin, xmax, ymin, ymax), scale)
    _draw_arrows(ax, arrows, scale)
    ax.set_xlim(bounds[0], bounds[1])
    ax.set_ylim(bounds[2], bounds[3])
    ax.set_aspect("equal")
    ax.set_axis_off()
    title = getattr(scenario, "title", "") if title is None else title
    if title:
        ax.set_title(title)
    return ax
