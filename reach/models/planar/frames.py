"""Planar frames: rotations and the perpendicular, shared by the model, its contacts and its drawing."""

from __future__ import annotations

import numpy as np

__all__ = ["rotation", "perp"]


def rotation(angle):
    """The 2x2 rotation matrix R(angle)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def perp(r):
    """``(-r_y, r_x)``: the derivative of ``R(phi) r`` with respect to ``phi`` (shape (..., 2))."""
    r = np.asarray(r, dtype=float)
    return np.stack([-r[..., 1], r[..., 0]], axis=-1)
