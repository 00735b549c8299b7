"""Box and wall: a square box sliding on one corner into a wall (paper Fig. 5, section 5.4.3).

A 1 m square box of 1 kg is rotated by 80 deg (one side makes 10 deg with the
floor), its lowest corner on the floor ``y = 0`` (contact A, ``n = (0, 1)``,
``t = (1, 0)``: +x, toward the wall) and its rightmost corner on the wall
``x = 0`` whose free side is ``x <= 0`` (contact B, ``n = (-1, 0)``,
``t = (0, 1)``: +y, up).  It translates at 1 m/s toward the wall:
``v = [1, 0, 0]`` with ``q = [x, y, theta]``.
"""

from __future__ import annotations

import numpy as np

from reach.models.planar import PlanarModel
from scenarios._base import About, Budget, ImpactState, build_scenario

NAME = "box-wall"
SIDE, MASS, MU = 1.0, 1.0, 1.0
TILT_DEG = 10.0
SPEED = 1.0


def build_model(side=SIDE, mass=MASS):
    """A uniform square box (floating body ``box``), the floor and the wall at x = 0."""
    model = PlanarModel(NAME)
    model.add_body("box", joint="floating")
    model.add_box("box", "box", width=side, height=side, mass=mass)
    model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
    model.add_wall("wall", normal=(-1.0, 0.0), offset=0.0)
    return model


def initial_configuration(model, tilt_deg=TILT_DEG):
    """Place the box rotated by ``90 - tilt`` deg with lowest corner at y = 0 and rightmost at x = 0.

    Returns
    -------
    q : ndarray, shape (3,)
    lowest, rightmost : str
        Names of the box corners touching the floor and the wall.
    """
    theta = np.deg2rad(90.0 - tilt_deg)
    corners, names = model.shapes[0].vertices()
    world = corners @ np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]).T
    low, right = int(np.argmin(world[:, 1])), int(np.argmax(world[:, 0]))
    q = np.array([-world[right, 0], -world[low, 1], theta])
    return q, names[low], names[right]


def scenario():
    """The box-wall :class:`~scenarios._base.Scenario` (h = 2, N = 5, M = 2**18)."""
    model = build_model()
    q, low, right = initial_configuration(model)
    v = np.array([SPEED, 0.0, 0.0])
    return build_scenario(
        About(
            name=NAME,
            title="Box and wall",
            description="1 m box sliding on one corner (10 deg) into a wall at 1 m/s (2 contacts: floor, wall; mu=1)",
            notes=("Simultaneous (Anitescu-Potra): the box comes to rest.  B first, then A: A keeps "
                   "sliding and B lifts off the wall.  The set holds both, their convex combinations, "
                   "outcomes where A slides faster and ones where B slides instead of sticking or lifting.")),
        ImpactState(model=model, q=q, v=v, mu=MU, contacts=(f"box.{low}|floor", f"box.{right}|wall")),
        Budget(h=2.0, N=5, n_samples=2 ** 18),
        arrows=(("box", (0.0, 0.0), "v"),),
        parameters={"side": SIDE, "mass": MASS, "mu": MU, "tilt_deg": TILT_DEG, "speed": SPEED,
                    "floor_corner": low, "wall_corner": right},
    )
