"""The passive compass-gait walker on a shallow slope (Goswami et al.; Garcia et al.).

Hip mass ``M_h = 10`` kg, legs of ``l = 1`` m with a 5 kg point mass at
``a = b = 0.5`` m, slope ``gamma = 3`` degrees descending to +x.  The hip
slides on prismatic x, y joints and each leg hangs from it on a revolute
joint with its absolute angle (foot at ``hip + l (sin theta, -cos theta)``),
``q = [x, y, theta_left, theta_right]``.  The stance foot is pinned (mu = 5
holds it); a heel strike is the swing foot reaching the slope *ahead* of the
stance foot (:func:`heel_strike_guard`: a straight-legged walker's swing foot
scuffs through the ground mid-swing, as in the passive-walking literature).

The classical heel-strike law (the striking foot sticks, the trailing one
lifts) has a stable period-one gait; :func:`find_gait` computes it by Newton
iteration on the stride map, and :data:`GAIT` stores the result so examples
start on it (the tests recompute one stride from it).
"""

from __future__ import annotations

import numpy as np

from reach.analysis.flow import STICK, flow
from reach.analysis.propagate import impact_problem
from reach.laws.routh_single import striking_sticks
from reach.models.planar import PlanarModel
from reach.models.planar.dynamics import PlanarDynamics
from scenarios._base import GRAVITY

NAME = "compass-walker"
HIP_MASS, LEG_MASS, A, LENGTH, SLOPE_DEG, MU = 10.0, 5.0, 0.5, 1.0, 3.0, 5.0
SLOPE = np.deg2rad(SLOPE_DEG)
FEET = ("left_foot|ground", "right_foot|ground")
#: The period-one passive gait just after a heel strike onto the left foot: (half inter-leg angle phi,
#: stance and swing leg rates), from :func:`find_gait`.
GAIT = (0.2710286804928892, -1.0923835898251377, -0.377373948873451)


def build_model():
    model = PlanarModel(NAME)
    model.add_body("hip_x", joint="prismatic", axis=(1.0, 0.0), coordinates=("x",))
    model.add_body("hip", joint="prismatic", parent="hip_x", axis=(0.0, 1.0), coordinates=("y",))
    model.add_mass("hip", HIP_MASS, name="hip_mass")
    for leg in ("left", "right"):
        model.add_body(leg, joint="revolute", parent="hip", coordinates=(f"theta_{leg}",))
        model.add_rod(leg, f"{leg}_leg", (0.0, 0.0), (0.0, -LENGTH), contact=False)
        model.add_mass(leg, LEG_MASS, offset=(0.0, -(LENGTH - A)), name=f"{leg}_mass")
        model.add_point(leg, f"{leg}_foot", (0.0, -LENGTH))
    model.add_wall("ground", normal=(np.sin(SLOPE), np.cos(SLOPE)))
    return model


def system(force=None):
    return PlanarDynamics(build_model(), MU, gravity=GRAVITY, contacts=FEET, force=force)


def state_after_heel_strike(phi, rate_stance, rate_swing, stance="left"):
    """``(q, v)`` with the stance foot at the origin, legs at ``-gamma +- phi``, stance foot at rest."""
    th_st, th_sw = -SLOPE + phi, -SLOPE - phi
    hip = -LENGTH * np.array([np.sin(th_st), -np.cos(th_st)])
    hip_v = -LENGTH * rate_stance * np.array([np.cos(th_st), np.sin(th_st)])
    angles = (th_st, th_sw) if stance == "left" else (th_sw, th_st)
    rates = (rate_stance, rate_swing) if stance == "left" else (rate_swing, rate_stance)
    return np.array([hip[0], hip[1], *angles]), np.array([hip_v[0], hip_v[1], *rates])


def _feet(q):
    hip = q[:2]
    return [hip + LENGTH * np.array([np.sin(t), -np.cos(t)]) for t in q[2:]]


def heel_strike_guard(q, v, name):
    """A foot reaching the slope is a heel strike only 5 cm or more ahead of the other foot (along the slope)."""
    left, right = _feet(q)
    along = np.array([np.cos(SLOPE), -np.sin(SLOPE)])
    ahead = (left - right) @ along if name.startswith("left") else (right - left) @ along
    return bool(ahead > 0.05)


def stride(x, *, law=striking_sticks, stance="left"):
    """One stride of the classical walker from the post-strike state ``x = (phi, rate_stance, rate_swing)``.

    Returns the next post-strike ``x`` (in the new stance/swing roles) and the flow's end.
    """
    walker = system()
    q, v = state_after_heel_strike(*x, stance=stance)
    index = 0 if stance == "left" else 1
    ended = flow(walker, 0.0, q, v, {index: STICK}, t_max=3.0, guard=heel_strike_guard)
    if ended.kind != "impact":
        raise RuntimeError(f"the walker did not reach its next heel strike ({ended.kind}).")
    v_plus = law(impact_problem(walker, ended))[0]
    new = 1 - index
    th_st, th_sw = ended.q[2 + new], ended.q[2 + index]
    return np.array([0.5 * (th_st - th_sw), v_plus[2 + new], v_plus[2 + index]]), ended


def find_gait(x0=GAIT, tol=1e-10):
    """The period-one gait of the classical law: a fixed point of :func:`stride` (scipy's fsolve)."""
    from scipy.optimize import fsolve

    return fsolve(lambda x: stride(x)[0] - x, np.asarray(x0, dtype=float), xtol=tol)
