"""RAMone: a footfall of a 5-link planar biped (paper Fig. 13, section 5.4.4; Remy 2017).

Bodies and parameters (Remy 2017): a floating pelvis (7.9026 kg, 0.08 kg m^2
at its origin), hips 0.137675 m below the pelvis origin; per leg a thigh on a
revolute hip joint (0.2 m; 0.7887 kg, 0.00221 kg m^2, 0.019399 m below the
hip) and a shank on a revolute knee (0.2385 m; 0.510 kg, 0.00652 kg m^2,
0.165235 m below the knee) ending in a massless foot disc of radius 0.02815 m
centred at the shank's end.

Conventions (these reproduce the paper's numbers): ``q = [x, y, theta,
alpha_l, beta_l, alpha_t, beta_t]``; every angle is relative to the parent
body and counter-clockwise positive; each link hangs along its frame's -y
axis, so a link at world angle ``psi`` points along ``(sin psi, -cos psi)``
(world link angles: thigh ``theta + alpha``, shank ``theta + alpha + beta``).
The robot walks toward -x (leading leg at -x).  A foot's contact point is the
lowest material point of its disc.

Initial state: ``theta = 16 deg``, ``alpha_l = -70``, ``beta_l = -2``,
``alpha_t = +70`` deg, ``x = 0``; the trunk height ``y`` is solved so the
leading foot touches the floor, and ``beta_t`` (root-found in the branch with
the trailing shank between horizontal-backward and vertical, world angle in
[-90, 0] deg) so the trailing foot does (about -92.48 deg).  The velocity has
trunk rate 1 rad/s, zero joint rates, and the trunk (x', y') solved so the
trailing foot's contact point is at rest (about (-0.4114, -0.2105) m/s).
Contacts: A = leading foot, B = trailing foot, both ``n = (0, 1)``,
``t = (1, 0)``; mu = 1e5.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from reach.models.planar import PlanarModel
from scenarios._base import About, Budget, ImpactState, build_scenario

NAME = "ramone"

PELVIS_MASS, PELVIS_INERTIA = 7.9026, 0.08
HIP_OFFSET = 0.137675
THIGH_LENGTH, THIGH_MASS, THIGH_INERTIA, THIGH_COM = 0.2, 0.7887, 0.00221, 0.019399
SHANK_LENGTH, SHANK_MASS, SHANK_INERTIA, SHANK_COM = 0.2385, 0.510, 0.00652, 0.2385 - 0.073265
FOOT_RADIUS = 0.0563 / 2

THETA_DEG, ALPHA_LEAD_DEG, BETA_LEAD_DEG, ALPHA_TRAIL_DEG = 16.0, -70.0, -2.0, 70.0
TRUNK_RATE = 1.0
MU = 1e5
CONTACTS = ("lead_foot|floor", "trail_foot|floor")


def build_model():
    """The RAMone tree: ``pelvis`` (floating), ``{lead,trail}_thigh`` (hips), ``{lead,trail}_shank`` (knees)."""
    model = PlanarModel(NAME)
    model.add_body("pelvis", joint="floating", coordinates=("x", "y", "theta"))
    model.add_mass("pelvis", PELVIS_MASS, inertia=PELVIS_INERTIA, name="pelvis_mass")
    model.add_rod("pelvis", "pelvis_rod", (0.0, 0.0), (0.0, -HIP_OFFSET), contact=False)
    for leg, tag in (("lead", "l"), ("trail", "t")):
        thigh, shank = f"{leg}_thigh", f"{leg}_shank"
        model.add_body(thigh, joint="revolute", parent="pelvis", origin=(0.0, -HIP_OFFSET),
                       coordinates=(f"alpha_{tag}",))
        model.add_mass(thigh, THIGH_MASS, inertia=THIGH_INERTIA, offset=(0.0, -THIGH_COM), name=f"{thigh}_mass")
        model.add_rod(thigh, f"{thigh}_rod", (0.0, 0.0), (0.0, -THIGH_LENGTH), contact=False)
        model.add_body(shank, joint="revolute", parent=thigh, origin=(0.0, -THIGH_LENGTH),
                       coordinates=(f"beta_{tag}",))
        model.add_mass(shank, SHANK_MASS, inertia=SHANK_INERTIA, offset=(0.0, -SHANK_COM), name=f"{shank}_mass")
        model.add_rod(shank, f"{shank}_rod", (0.0, 0.0), (0.0, -SHANK_LENGTH), contact=False)
        model.add_disc(shank, f"{leg}_foot", FOOT_RADIUS, offset=(0.0, -SHANK_LENGTH))
    model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
    return model


def _foot_gap(model, q, foot):
    (contact,) = model.contacts(q, [f"{foot}_foot|floor"])
    return contact.phi


def initial_configuration(model, theta_deg=THETA_DEG):
    """Solve the trunk height y and trailing knee beta_t so both feet touch the floor (trunk pitch theta_deg).

    Returns
    -------
    q : ndarray, shape (7,)
    """
    theta, alpha_l, beta_l, alpha_t = np.deg2rad([theta_deg, ALPHA_LEAD_DEG, BETA_LEAD_DEG, ALPHA_TRAIL_DEG])
    q = np.array([0.0, 1.0, theta, alpha_l, beta_l, alpha_t, 0.0])
    # phi of the leading foot is y plus a function of the angles: one Newton step is exact.
    q[1] -= _foot_gap(model, q, "lead")
    q[1] -= _foot_gap(model, q, "lead")

    def trail_gap(beta_t):
        qq = q.copy()
        qq[6] = beta_t
        return _foot_gap(model, qq, "trail")

    # Trailing shank world angle theta + alpha_t + beta_t in [-90, 0] deg: the foot is at knee
    # height at -90 deg and lowest at 0 deg, so the gap changes sign once on this bracket.
    lo, hi = -np.pi / 2 - theta - alpha_t, -theta - alpha_t
    q[6] = brentq(trail_gap, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=200)
    return q


def trunk_velocity_for_trailing_foot_at_rest(model, q, trunk_rate=TRUNK_RATE):
    """Trunk (x', y') keeping the trailing foot's contact point at rest, given theta' and zero joint rates."""
    (foot,) = model.contacts(q, ["trail_foot|floor"])
    J = np.vstack([foot.Jn, foot.Jt])
    return np.linalg.solve(J[:, :2], -J[:, 2] * trunk_rate)


def scenario():
    """The RAMone :class:`~scenarios._base.Scenario` (mu = 1e5, h = 1, N = 10, M = 2**20)."""
    model = build_model()
    q = initial_configuration(model)
    trunk = trunk_velocity_for_trailing_foot_at_rest(model, q)
    v = np.array([trunk[0], trunk[1], TRUNK_RATE, 0.0, 0.0, 0.0, 0.0])
    return build_scenario(
        About(
            name=NAME,
            title="RAMone footfall",
            description="5-link biped RAMone: leading foot strikes while the trailing foot rests (2 contacts, mu=1e5)",
            notes=("Simultaneous (Anitescu-Potra): the leading foot A sticks while the trailing foot B "
                   "may stick, slide or lift off.  The set reproduces these and scaled-down "
                   "intermediate outcomes; A stays in stiction throughout the impact.")),
        ImpactState(model=model, q=q, v=v, mu=MU, contacts=CONTACTS),
        Budget(h=1.0, N=10, n_samples=2 ** 20),
        arrows=(("pelvis", (0.0, 0.0), "v"),),
        parameters={"theta_deg": THETA_DEG, "alpha_l_deg": ALPHA_LEAD_DEG, "beta_l_deg": BETA_LEAD_DEG,
                    "alpha_t_deg": ALPHA_TRAIL_DEG, "y": float(q[1]), "beta_t_deg": float(np.rad2deg(q[6])),
                    "trunk_velocity": trunk.tolist(), "trunk_rate": TRUNK_RATE, "mu": MU,
                    "foot_radius": FOOT_RADIUS},
    )
