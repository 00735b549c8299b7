"""Stewart & Trinkle's four balls on a table (section 4, Figs. 6-8, Table 1).

Four balls of 1 kg, radius 0.1 m, I = 4e-3 kg m^2, mu = 0.4 for every
contact, 8 friction directions.  Centres start at [0, 0, 1], [1, 0, 0.1],
[1.2 + 1e-5, 0, 0.1] and [1.4 + 2e-5, 0, 0.1] (z up); the first ball moves at
[1.5, 0.1, 0], the others are at rest.  The paper reports the table hit at
t ~ 0.42 s and the collision with the line at t ~ 0.59 s.
"""

from __future__ import annotations

import numpy as np

from reach.models.spheres import SphereSystem
from scenarios._base import GRAVITY
from scenarios._simulation import Simulation

NAME = "four-balls"
RADIUS, MASS, INERTIA, MU = 0.1, 1.0, 4e-3, 0.4
CENTERS = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.1], [1.2 + 1e-5, 0.0, 0.1], [1.4 + 2e-5, 0.0, 0.1]]
VELOCITIES = [[1.5, 0.1, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
EVENTS = {"table hit": 0.42, "collision with the line": 0.59}


def simulation():
    """The four-balls :class:`~scenarios._simulation.Simulation` (t in [0, 1] s, h = 0.0025)."""
    system = SphereSystem(4, radius=RADIUS, mass=MASS, inertia=INERTIA, mu=MU, gravity=GRAVITY)
    q0, v0 = system.state(CENTERS, VELOCITIES)
    return Simulation(
        name=NAME, title="Four balls on a table (Stewart & Trinkle)",
        description="a ball thrown onto a table rolls into a line of three resting balls (mu = 0.4, k = 8)",
        system=system, q0=q0, v0=v0, t_end=1.0, h=0.0025, events=dict(EVENTS),
        parameters={"radius": RADIUS, "mass": MASS, "inertia": INERTIA, "mu": MU, "friction_directions": 8})


#: Contacts of the collision of the thrown ball with the line, as an impact problem.
COLLISION_CONTACTS = ("ball2|ball1", "ball3|ball2", "ball4|ball3",
                      "ball1|table", "ball2|table", "ball3|table", "ball4|table")


def collision(h=0.0025):
    """The collision of the thrown ball with the line of three, as an impact problem.

    The run of :func:`simulation` with step h is stopped at the last step
    before the thrown ball touches the line; the thrown ball is moved along
    the line of centres to touch it and the 1e-5 m gaps of the line are
    closed.  Gravity is left out: the impact is impulsive.

    Returns
    -------
    problem : ImpactProblem
        Seven contacts (three between balls, four with the table), k = 8.
    q, v : ndarray
        The touching configuration and the pre-impact velocity.
    system : SphereSystem
        The balls without gravity, for the time-stepper.
    """
    from reach.laws.trajectory import simulate
    from reach.problem.impact import ImpactProblem

    sim = simulation()
    index = sim.system.contact_names.index("ball2|ball1")
    gap = sim.system.contacts(sim.q0).phi[index]
    trajectory = simulate(sim.system, sim.q0, sim.v0, h, sim.t_end,
                          stop=lambda r: r.normal[index] > 0)
    q, v = np.array(trajectory.q[-2]), np.array(trajectory.v[-2])
    centers = q[:12].reshape(4, 3)
    for k in (1, 2, 3):  # close the gaps along x: each ball touches the one before it
        centers[k, 0] = centers[k - 1, 0] + 2 * RADIUS if k > 1 else centers[k, 0]
    offset = centers[1] - centers[0]
    centers[0] = centers[1] - offset / np.linalg.norm(offset) * 2 * RADIUS
    centers[:, 2] = RADIUS
    q[:12] = centers.ravel()
    free = SphereSystem(4, radius=RADIUS, mass=MASS, inertia=INERTIA, mu=MU, gravity=0.0)
    frames = free.contacts(q)
    pick = [free.contact_names.index(name) for name in COLLISION_CONTACTS]
    problem = ImpactProblem(free.mass_matrix(q), frames.Jn[pick], frames.Jt[pick].reshape(-1, free.nv), MU, v,
                            friction_directions=8,
                            contact_names=[name.replace("ball", "") for name in COLLISION_CONTACTS])
    del gap
    return problem, q, v, free
