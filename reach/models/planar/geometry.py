"""Drawing geometry of a planar model at a configuration (no plotting here).

:func:`outlines` turns the shapes into world-frame primitives that any
plotting library can draw: polylines for points, rods and boxes, circles (with
a marker point showing the rotation) for discs, dots for point masses.  Walls
are infinite; :func:`wall_segment` clips one to a bounding box.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reach.models.planar.frames import rotation

__all__ = ["Outline", "outlines", "bounding_box", "wall_segment"]


@dataclass(frozen=True)
class Outline:
    """One drawable primitive in world coordinates.

    Attributes
    ----------
    name, body : str
        Shape (or point mass) name and its body.
    kind : {"point", "rod", "box", "disc", "mass"}
    points : ndarray, shape (k, 2)
        The vertices: 1 (point, mass), 2 (rod), 5 (box, closed polygon) or,
        for a disc, its centre and the material point at angle 0 (a spoke
        showing the rotation).
    radius : float
        Disc radius (0 otherwise).
    mass : float
        Point-mass mass (0 otherwise).
    """

    name: str
    body: str
    kind: str
    points: np.ndarray
    radius: float = 0.0
    mass: float = 0.0


def outlines(model, q):
    """World-frame primitives of every shape and point mass of ``model`` at q.

    Parameters
    ----------
    model : PlanarModel
    q : array_like, shape (nq,)

    Returns
    -------
    list of Outline
        Shapes in the order added, then point masses.
    """
    positions, angles = model.body_poses(q)
    index = {name: i for i, name in enumerate(model.bodies)}
    out = []
    for shape in model.shapes:
        b = index[shape.body]
        R = rotation(angles[b])
        if shape.kind == "disc":
            centre = positions[b] + R @ shape.offset
            spoke = centre + R @ np.array([shape.radius, 0.0])
            out.append(Outline(shape.name, shape.body, "disc", np.vstack([centre, spoke]), shape.radius))
            continue
        vertices, _ = shape.vertices()
        world = positions[b] + vertices @ R.T
        if shape.kind == "box":
            world = np.vstack([world, world[:1]])
        out.append(Outline(shape.name, shape.body, shape.kind, world))
    for pm in model.masses:
        b = index[pm.body]
        p = positions[b] + rotation(angles[b]) @ pm.offset
        out.append(Outline(pm.name, pm.body, "mass", p[None, :], mass=pm.mass))
    return out


def bounding_box(items):
    """Axis-aligned bounds ``(xmin, xmax, ymin, ymax)`` of a list of :class:`Outline`."""
    lo, hi = np.full(2, np.inf), np.full(2, -np.inf)
    for item in items:
        if item.kind == "disc":
            c = item.points[0]
            lo, hi = np.minimum(lo, c - item.radius), np.maximum(hi, c + item.radius)
        else:
            lo, hi = np.minimum(lo, item.points.min(axis=0)), np.maximum(hi, item.points.max(axis=0))
    if not np.all(np.isfinite(lo)):
        return (-1.0, 1.0, -1.0, 1.0)
    return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))


def wall_segment(wall, bounds):
    """The part of ``wall``'s boundary line inside ``bounds`` = (xmin, xmax, ymin, ymax).

    Returns
    -------
    ndarray, shape (2, 2) or None
        End points, or None if the line misses the box.
    """
    xmin, xmax, ymin, ymax = bounds
    n, d = wall.normal, wall.offset
    direction = np.array([n[1], -n[0]])
    base = n * d
    # Clip base + s * direction to the box (Liang-Barsky).
    s_lo, s_hi = -np.inf, np.inf
    for k, (lo, hi) in enumerate(((xmin, xmax), (ymin, ymax))):
        if abs(direction[k]) < 1e-12:
            if not lo - 1e-12 <= base[k] <= hi + 1e-12:
                return None
            continue
        s1, s2 = (lo - base[k]) / direction[k], (hi - base[k]) / direction[k]
        s_lo, s_hi = max(s_lo, min(s1, s2)), min(s_hi, max(s1, s2))
    if s_lo > s_hi:
        return None
    return np.vstack([base + s_lo * direction, base + s_hi * direction])
