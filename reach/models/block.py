"""The rocking block of the paper (§4.2, §4.3; scenario ``rocking-block``): one description for every use.

A uniform box of ``width x height`` and ``mass``, friction ``mu`` at its
bottom corners A (left) and B (right), dropped flat from ``drop_height``.
The planar scenario builds its model from it (:meth:`RigidBlock.planar_model`),
MuJoCo and Drake write it as MJCF and SDFormat
(:func:`reach.models.mujoco_model.block_mjcf`, :func:`reach.models.drake_model.block_sdf`),
and the Zeno solution and the compliant (Kelvin–Voigt) model extend it
(:class:`reach.analysis.zeno.ZenoBlock`, :class:`reach.analysis.compare.compliant.CompliantBlock`).

>>> RigidBlock().inertia, round(RigidBlock().drop_speed, 4)
(0.4166666666666667, 0.4429)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reach.models.planar import PlanarModel

__all__ = ["RigidBlock"]


@dataclass(frozen=True)
class RigidBlock:
    """A uniform rigid box on its two bottom corners (lengths in m, mass in kg, g in m/s²)."""

    width: float = 1.0
    height: float = 2.0
    mass: float = 1.0
    mu: float = 1.0
    gravity: float = 9.81
    drop_height: float = 0.01

    @property
    def inertia(self) -> float:
        """Moment of inertia about the centre, ``m (w² + h²) / 12``."""
        return self.mass * (self.width**2 + self.height**2) / 12.0

    @property
    def mass_matrix(self) -> np.ndarray:
        """``M = diag(m, m, I)``, shape (3, 3)."""
        return np.diag([self.mass, self.mass, self.inertia])

    @property
    def drop_speed(self) -> float:
        """``v₀ = sqrt(2 g · drop_height)``: the speed at touchdown."""
        return math.sqrt(2.0 * self.gravity * self.drop_height)

    @property
    def corners(self) -> np.ndarray:
        """Body-frame offsets of the bottom corners from the centre, rows A and B, shape (2, 2)."""
        return np.array([[-0.5 * self.width, -0.5 * self.height], [0.5 * self.width, -0.5 * self.height]])

    def planar_model(self, name="rocking-block"):
        """The block on the floor y = 0 as a :class:`~reach.models.planar.PlanarModel`: floating body ``block``."""
        model = PlanarModel(name)
        model.add_body("block", joint="floating")
        model.add_box("block", "block", width=self.width, height=self.height, mass=self.mass)
        model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
        return model
