"""A spatial robot's flight from one touchdown to the next, integrated by MuJoCo itself.

:func:`fly` steps the model with its own integrator and time step, joint
limits, damping and actuators, a controller of the user's applied as
``ctrl = controller(t, qpos, qvel)`` before every step.  Contacts closed
at the start (a stance foot after an impact) are the model's own contacts in
stance: MuJoCo's contact model carries them.  The flight ends at the *next
impact*: a contact pair not in stance reaches the surface (signed distance
``<= 0``) closing faster than ``closing_speed``.  The step in which it does
is taken again from its saved state with shorter time steps, bisecting until
the touchdown time is known to ``resolve`` seconds.  The flight ends just
before it, the pair within ``resolve`` times its speed of touching and no
contact force applied yet (MuJoCo's soft contacts damp a touching pair at
once), and :func:`reach.models.mujoco.impact_from_mujoco` reads the impact
there.  A pair
that touches more slowly than ``closing_speed`` joins the stance; a stance
pair that separates leaves it.

With ``<option integrator="RK4"/>`` a free fall is integrated exactly (RK4 is
exact on a constant acceleration), so the touchdown time of a dropped body
matches the analytic one to the bisection's tolerance (tested).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import mujoco
from reach.models.mujoco import contact_geoms
from reach.models.mujoco_model import data_at, raised_margins

__all__ = ["Flight", "fly", "contact_pairs"]


class Flight(NamedTuple):
    """How a flight ended: ``kind`` is ``"impact"`` or ``"timeout"``.

    ``t``, ``qpos``, ``qvel``: the state there (at an impact, just before the
    striking pairs touch: within ``resolve`` seconds); ``striking``: the pairs that close faster than the
    threshold, each a sorted pair of geom names; ``stance``: the pairs in
    stance then; ``steps``: MuJoCo steps taken (bisection steps aside).
    """

    kind: str
    t: float
    qpos: np.ndarray
    qvel: np.ndarray
    striking: tuple
    stance: frozenset
    steps: int


#: Contacts of one geom pair are told apart by where they sit on the moving geom, to this (m).
PLACE = 1e-3


def _key(model, data, contact):
    """A contact's identity: its geoms' names, sorted, and its point in the moving geom's frame (to :data:`PLACE`).

    A box on the floor touches it at several corners through one geom pair; the place tells a second
    corner striking from the first resting.  (A rolling foot's place moves: it touches slowly, so it only
    moves from one stance entry to another.)
    """
    g0, g1 = contact_geoms(contact)
    names = tuple(sorted(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom{g}" for g in (g0, g1)))
    moving = g1 if model.geom_bodyid[g1] else g0
    local = data.geom_xmat[moving].reshape(3, 3).T @ (np.asarray(contact.pos) - data.geom_xpos[moving])
    return names + tuple(int(round(x / PLACE)) for x in local)


def contact_pairs(model, data, within=0.0):
    """``{contact: (signed distance, normal velocity)}`` of every contact within ``within`` (m) at ``data``'s state.

    A contact is keyed by its geoms and its place on the moving geom (:func:`_key`).  The normal velocity
    is ``n . (v_2 - v_1)`` at the contact point (negative: closing), from the two bodies' Jacobians.
    With ``within > 0`` the margins are raised while the contacts are found (and ``data`` is computed
    again as the model is afterwards).
    """
    if within > 0.0:
        with raised_margins(model, within):
            mujoco.mj_forward(model, data)
            found = {k: v for k, v in _contacts(model, data).items() if v[0] <= within}
        mujoco.mj_forward(model, data)
        return found
    return _contacts(model, data)


def _contacts(model, data):
    found = {}
    for index in range(data.ncon):
        c = data.contact[index]
        g0, g1 = contact_geoms(c)
        point, normal = np.array(c.pos), np.array(c.frame[:3])
        speed = 0.0
        for geom, sign in ((g1, 1.0), (g0, -1.0)):
            body = int(model.geom_bodyid[geom])
            if body:
                jacp = np.zeros((3, model.nv))
                mujoco.mj_jac(model, data, jacp, None, point, body)
                speed += sign * float(normal @ (jacp @ data.qvel))
        key = _key(model, data, c)
        if key not in found or c.dist < found[key][0]:
            found[key] = (float(c.dist), speed)
    return found


def _step(model, data, controller):
    if controller is not None:
        data.ctrl[:] = controller(float(data.time), data.qpos.copy(), data.qvel.copy())
    mujoco.mj_step(model, data)  # contact_pairs computes the contacts at the new state


def _striking(pairs, stance, closing_speed):
    return tuple(sorted(p for p, (dist, speed) in pairs.items()
                        if p not in stance and dist <= 0.0 and speed < -closing_speed))


def fly(model, qpos, qvel, *, t0=0.0, controller=None, t_max=5.0, closing_speed=1e-3, resolve=1e-10, touch=1e-6,
        stance=None):
    """Integrate ``model`` from ``(qpos, qvel)`` at ``t0`` until the next impact or ``t_max``; a :class:`Flight`.

    ``stance``: the contacts in stance at the start (default: every one within ``touch`` metres then, as
    the struck contacts are where a flight ended).  A contact stays in stance while within ``touch``.
    ``closing_speed`` (m/s): a contact touching more slowly joins the stance instead of striking.
    """
    data = data_at(model, qpos, qvel)
    data.time = float(t0)
    near = contact_pairs(model, data, touch)
    stance = frozenset(near) if stance is None else frozenset(stance)
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    saved = np.empty(mujoco.mj_stateSize(model, spec))
    dt, steps = float(model.opt.timestep), 0
    while data.time < t_max:
        mujoco.mj_getState(model, data, saved, spec)
        _step(model, data, controller)
        steps += 1
        near = contact_pairs(model, data, touch)  # one collision pass: strikes (distance <= 0) and stance
        hit = _striking(near, stance, closing_speed)
        if hit:
            hit = _bisect(model, data, saved, spec, dt, controller, stance, closing_speed, resolve, touch) or hit
            return Flight("impact", float(data.time), data.qpos.copy(), data.qvel.copy(), hit, stance, steps)
        stance = frozenset(near)  # slow touches join; a contact that lifts off leaves
    return Flight("timeout", float(data.time), data.qpos.copy(), data.qvel.copy(), (), stance, steps)


def _bisect(model, data, saved, spec, dt, controller, stance, closing_speed, resolve, touch):
    """Retake the last step from ``saved`` with shorter time steps, bisecting on the first strike to ``resolve`` s.

    Ends at the state just *before* it (the pair within ``resolve`` times its speed of touching, no contact
    force applied yet: MuJoCo's soft contacts damp a touching pair at once); returns the striking pairs.
    """
    lo, hi, hit = 0.0, dt, ()
    try:
        while hi - lo > resolve:
            mid = 0.5 * (lo + hi)
            mujoco.mj_setState(model, data, saved, spec)
            model.opt.timestep = mid
            _step(model, data, controller)
            found = _striking(contact_pairs(model, data, touch), stance, closing_speed)
            if found:
                hi, hit = mid, found
            else:
                lo = mid
        mujoco.mj_setState(model, data, saved, spec)
        mujoco.mj_forward(model, data)
        if lo > 0.0:
            model.opt.timestep = lo
            _step(model, data, controller)
    finally:
        model.opt.timestep = dt
    return hit
