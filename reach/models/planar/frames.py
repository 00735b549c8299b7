"""Planar frames: rotations and the perpendicular, shared by the model, its contacts and its drawing."""

from __future__ import annotations

import numpy as np

__all__ = ["rotation", "perp", "outer", "arm_jacobian"]


def rotation(angle):
    """The 2x2 rotation matrix R(angle)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def perp(r):
    """``(-r_y, r_x)``: the derivative of ``R(phi) r`` with respect to ``phi`` (shape (..., 2))."""
    r = np.asarray(r, dtype=float)
    if r.ndim == 1:  # one vector, the flows' hot path: the same values, without np.stack's overhead
        return np.array((-r[1], r[0]))
    return np.stack([-r[..., 1], r[..., 0]], axis=-1)


def outer(a, b):
    """``np.outer`` of two 1-D arrays, the same products, without its overhead (the flows' hot path)."""
    return a[:, None] * b[None, :]


def arm_jacobian(Jp, Jw, arm):
    """``Jp + perp(arm) Jw``: the Jacobian (2, nv) of the point at world offset ``arm`` (2,) from a body's origin,
    from the origin's Jacobian ``Jp`` (2, nv) and the body's angular Jacobian ``Jw`` (nv,)."""
    return Jp + outer(perp(arm), Jw)
