"""The parts of a planar model: joints and point masses, and the world frame's name."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["WORLD", "JOINT_DOFS", "Joint", "PointMass", "nonnegative"]


#: Name of the fixed world frame (the root of every tree).
WORLD = "world"

#: Degrees of freedom of each joint type.
JOINT_DOFS = {"floating": 3, "revolute": 1, "prismatic": 1}


@dataclass(frozen=True)
class Joint:
    """How one body hangs from its parent.

    Attributes
    ----------
    kind : str
        ``"floating"``, ``"revolute"`` or ``"prismatic"``.
    parent : str
        Parent body name, or ``"world"``.
    origin : ndarray, shape (2,)
        Joint position in the parent frame.
    axis : ndarray, shape (2,)
        Unit slide direction in the parent frame (prismatic joints).
    coordinates : tuple of int
        Indices of this joint's coordinates in q.
    """

    kind: str
    parent: str
    origin: np.ndarray
    axis: np.ndarray
    coordinates: tuple


@dataclass(frozen=True)
class PointMass:
    """A point mass with rotational inertia about itself, fixed to a body.

    Attributes
    ----------
    name, body : str
    mass : float
        Mass (>= 0).
    inertia : float
        Rotational inertia about the point (>= 0).
    offset : ndarray, shape (2,)
        Body-frame position.
    """

    name: str
    body: str
    mass: float
    inertia: float
    offset: np.ndarray


def nonnegative(what, value):
    """``value`` as a finite float >= 0, or a ValueError naming ``what``."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number; got {value!r}.") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a finite number >= 0; got {value!r}.")
    return value
