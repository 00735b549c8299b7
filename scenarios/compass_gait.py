"""Compass gait: a wide step of a two-legged walker (paper Fig. 4, section 5.4.2; Remy 2017).

The hip slides on two massless prismatic joints (x, then y); each leg hangs
from the hip on a revolute joint with its absolute angle (the hip does not
rotate), 1 m long, massless, with a 1 kg point mass (no rotational inertia)
0.5 m from the hip.  ``q = [x, y, theta_lead, theta_trail]``; a leg at angle
``theta`` has its foot at ``hip + (sin theta, -cos theta)``.

At impact ``theta_lead = -78 deg``, ``theta_trail = +78 deg`` and the hip is at
``(-sin 78, cos 78)`` so the trailing foot is at the origin and both feet touch
the floor.  The walker moves toward -x.  Both legs rotate at
``omega = 0.25 rad/s`` and the hip velocity is *solved* so that the trailing
foot is at rest (analytically ``-omega (cos 78, sin 78)``).  Contact A is the
leading foot, B the trailing foot; both ``n = (0, 1)``, ``t = (1, 0)`` (+x,
backward for this walker).
"""

from __future__ import annotations

import numpy as np

from reach.models.planar import PlanarModel
from scenarios._base import About, Budget, ImpactState, build_scenario

NAME = "compass-gait"
LEG_LENGTH = 1.0
MASS_FROM_HIP = 0.5
LEG_MASS = 1.0
STANCE_DEG = 78.0
OMEGA = 0.25
MU = 5.0
CONTACTS = ("lead_foot|floor", "trail_foot|floor")


def build_model(leg_length=LEG_LENGTH, mass_from_hip=MASS_FROM_HIP, leg_mass=LEG_MASS):
    """Hip on prismatic x, y joints; legs ``lead`` and ``trail`` on revolute joints at the hip."""
    model = PlanarModel(NAME)
    model.add_body("hip_x", joint="prismatic", axis=(1.0, 0.0), coordinates=("x",))
    model.add_body("hip", joint="prismatic", parent="hip_x", axis=(0.0, 1.0), coordinates=("y",))
    for leg in ("lead", "trail"):
        model.add_body(leg, joint="revolute", parent="hip", coordinates=(f"theta_{leg}",))
        model.add_rod(leg, f"{leg}_leg", (0.0, 0.0), (0.0, -leg_length), contact=False)
        model.add_mass(leg, leg_mass, offset=(0.0, -mass_from_hip), name=f"{leg}_mass")
        model.add_point(leg, f"{leg}_foot", (0.0, -leg_length))
    model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
    return model


def hip_velocity_for_trailing_foot_at_rest(model, q, leg_rates):
    """Hip velocity (x', y') that keeps the trailing foot's contact point at rest.

    Solves ``J_B[:, :2] (x', y') = -J_B[:, 2:] leg_rates`` with ``J_B`` the
    trailing foot's [normal; tangential] Jacobian (2, 4).
    """
    (foot,) = model.contacts(q, ["trail_foot|floor"])
    J = np.vstack([foot.Jn, foot.Jt])
    return np.linalg.solve(J[:, :2], -J[:, 2:] @ np.asarray(leg_rates, dtype=float))


def scenario():
    """The compass-gait :class:`~scenarios._base.Scenario` (mu = 5, h = 0.25, N = 5, M = 2**20)."""
    model = build_model()
    phi = np.deg2rad(STANCE_DEG)
    q = np.array([-LEG_LENGTH * np.sin(phi), LEG_LENGTH * np.cos(phi), -phi, phi])
    rates = np.array([OMEGA, OMEGA])
    hip = hip_velocity_for_trailing_foot_at_rest(model, q, rates)
    v = np.concatenate([hip, rates])
    return build_scenario(
        About(
            name=NAME,
            title="Compass gait",
            description="compass-gait walker taking a wide (156 deg) step; trailing foot at rest (2 contacts, mu=5)",
            notes=("Simultaneous (Anitescu-Potra) has three distinct outcomes: the leading foot A "
                   "sticks while the trailing foot B lifts off, slides, or sticks.  The set holds all "
                   "three and the intermediate velocities of B; oscillating impulses between the feet "
                   "can also let A slide or lift off while B keeps contact.")),
        ImpactState(model=model, q=q, v=v, mu=MU, contacts=CONTACTS),
        Budget(h=0.25, N=5, n_samples=2 ** 20),
        arrows=(("hip", (0.0, 0.0), "v"),),
        parameters={"leg_length": LEG_LENGTH, "mass_from_hip": MASS_FROM_HIP, "leg_mass": LEG_MASS,
                    "stance_deg": STANCE_DEG, "omega": OMEGA, "mu": MU, "hip_velocity": hip.tolist()},
    )
