"""Stewart & Trinkle's spinning rod falling onto a table (section 4, Figs. 2-5).

A rod 0.5 m long between the centres of its rounded ends (radius 0.05 m),
1 kg, J = 0.002 kg m^2, mu = 0.6, starts at 30 degrees to the horizontal,
at rest except for omega = 4 rad/s.  ``q = [x, y, theta]`` of the centre.
The ends are discs, so the contact point is the lowest point of each rounded
end (the paper's friction rows use the end centre instead; the normal rows
are the same).

The paper does not give the starting height; we start the centre at the
height from which free flight first touches the table at the paper's
t = 0.383 s (0.9907 m).

The paper reports: first impact at t ~ 0.383 s, the rod slides while
spinning; the other end hits at t ~ 0.548 s; it slides left for about
0.02 s; then rest.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from reach.models.planar import PlanarModel
from reach.models.planar.dynamics import PlanarDynamics
from scenarios._base import GRAVITY
from scenarios._simulation import Simulation

NAME = "spinning-rod"
LENGTH, RADIUS, MASS, INERTIA, MU = 0.5, 0.05, 1.0, 0.002, 0.6
THETA0, OMEGA0 = np.pi / 6, 4.0
FIRST_IMPACT = 0.383
EVENTS = {"first impact": 0.383, "second end hits": 0.548, "sliding ends": 0.568}


def build_model():
    """The rod (floating body ``rod``) with rounded ends ``end1`` (+x in the body) and ``end2`` over the table."""
    model = PlanarModel(NAME)
    model.add_body("rod")
    model.add_mass("rod", MASS, inertia=INERTIA)
    model.add_rod("rod", "rod", (-LENGTH / 2, 0.0), (LENGTH / 2, 0.0), contact=False)
    model.add_disc("rod", "end1", RADIUS, offset=(LENGTH / 2, 0.0))
    model.add_disc("rod", "end2", RADIUS, offset=(-LENGTH / 2, 0.0))
    model.add_wall("table", normal=(0.0, 1.0))
    return model


def start_height():
    """Centre height from which free flight touches the table at t = 0.383 s."""
    def gap(y0):
        t = FIRST_IMPACT
        return y0 - 0.5 * GRAVITY * t ** 2 - 0.5 * LENGTH * abs(np.sin(THETA0 + OMEGA0 * t)) - RADIUS
    return float(brentq(gap, 0.3, 3.0))


def simulation():
    """The spinning-rod :class:`~scenarios._simulation.Simulation` (t in [0, 1] s, h = 0.0025)."""
    model = build_model()
    y0 = start_height()
    return Simulation(
        name=NAME, title="Spinning rod falling on a table (Stewart & Trinkle)",
        description="0.5 m rod with rounded ends, 30 deg, omega = 4 rad/s, onto a table (mu = 0.6)",
        system=PlanarDynamics(model, MU, gravity=GRAVITY), model=model,
        q0=np.array([0.0, y0, THETA0]), v0=np.array([0.0, 0.0, OMEGA0]), t_end=1.0, h=0.0025,
        events=dict(EVENTS),
        parameters={"length": LENGTH, "radius": RADIUS, "mass": MASS, "inertia": INERTIA, "mu": MU,
                    "theta0": THETA0, "omega0": OMEGA0, "y0": y0})
