"""What a planar model's velocity does by itself: accelerations at velocity ``v`` when ``dv/dt = 0``.

A point's velocity is ``J(q) v``; its acceleration is ``J dv/dt + (dJ/dt) v``.
The second term, the *bias*, is what the dynamics needs besides the mass
matrix, and it is exact here, by recursion down the tree:

* :func:`origin_bias`: each body origin's bias ``a_b``.  With the parent's
  ``a_k`` and angular rate ``w_k``, the arm ``r`` from the parent's origin to
  the body's and ``u``, the velocity the joint's own translation adds,
  ``a_b = a_k - w_k^2 r + 2 w_k perp(u)`` (``perp``: +90 degrees; a body's
  angular Jacobian does not depend on ``q``, so rates have no bias).
* :func:`velocity_force`: the Coriolis and centrifugal forces
  ``-Mdot v + grad_q(v^T M v) / 2 = -sum m J_p^T (a_b - w_b^2 r_p)`` over the
  point masses (their rotational inertia adds nothing, for the same reason).
* :func:`contact_rates`: ``d/dt (Jn v)`` and ``d/dt (Jt v)`` of contacts,
  the rates of a flow's held contact velocities (a disc pair's normal turns,
  and its rate enters).

Each equals the derivative of the corresponding Jacobian along ``v``, which
central differences of :meth:`PlanarModel.mass_matrix` and
:meth:`PlanarModel.contacts` approximate (tested).
"""

from __future__ import annotations

import numpy as np

from reach.models.planar.contacts import disc_pair_geometry, select_candidates
from reach.models.planar.frames import arm_jacobian, perp, rotation
from reach.models.planar.parts import WORLD

__all__ = ["origin_bias", "velocity_force", "contact_rates"]


def origin_bias(model, q, v):
    """``(positions, angles, Jp, Jw, bias)``: :meth:`PlanarModel.body_jacobians` at ``q`` and each body
    origin's acceleration ``bias`` (nb, 2) at velocity ``v`` when ``dv/dt = 0``."""
    positions, angles, Jp, Jw = model.body_jacobians(q)
    bias = np.zeros((len(positions), 2))
    for b, joint in enumerate(model.joints):
        if joint.parent == WORLD:
            continue  # hung from the world: its origin moves with its own coordinates only
        k = model.body_index(joint.parent)
        rate, arm = Jw[k] @ v, positions[b] - positions[k]
        u = (Jp[b] - Jp[k]) @ v - rate * perp(arm)
        bias[b] = bias[k] - rate * rate * arm + 2.0 * rate * perp(u)
    return positions, angles, Jp, Jw, bias


def velocity_force(model, q, v, kinematics=None):
    """``-Mdot v + grad_q(v^T M v) / 2`` (nv,): the Coriolis and centrifugal forces at ``(q, v)``.
    ``kinematics``: :func:`origin_bias` at ``(q, v)``, if computed already."""
    positions, angles, Jp, Jw, bias = kinematics or origin_bias(model, q, v)
    force = np.zeros(model.nv)
    for pm in model.masses:
        if pm.mass > 0:
            b = model.body_index(pm.body)
            arm, rate = rotation(angles[b]) @ pm.offset, Jw[b] @ v
            force -= pm.mass * (arm_jacobian(Jp[b], Jw[b], arm).T @ (bias[b] - rate * rate * arm))
    return force


def contact_rates(model, q, v, names=None, kinematics=None):
    """``(normal, tangent)`` (p,) each: ``d/dt (Jn v)`` and ``d/dt (Jt v)`` of the contacts ``names`` (all
    of the model's if None, in :meth:`PlanarModel.contacts`'s order) at ``(q, v)`` when ``dv/dt = 0``.
    ``kinematics``: :func:`origin_bias` at ``(q, v)``, if computed already."""
    positions, angles, Jp, Jw, bias = kinematics or origin_bias(model, q, v)
    chosen = select_candidates(model, names)
    normal, tangent = np.empty(len(chosen)), np.empty(len(chosen))
    for i, c in enumerate(chosen):
        b = model.body_index(c.body)
        if c.kind != "disc|disc":  # a fixed wall: its normal and tangent do not turn
            n, rate_b, centre = c.wall.normal, Jw[b] @ v, rotation(angles[b]) @ c.local
            acc, turn, velocity = bias[b] - rate_b * rate_b * centre, np.zeros(2), np.zeros(2)
        else:
            n, turn, velocity, acc = _disc_pair(c, positions, angles, Jp, Jw, bias, b, model.body_index(c.other), v)
        t = np.array([n[1], -n[0]])
        normal[i] = turn @ velocity + n @ acc
        tangent[i] = np.array([turn[1], -turn[0]]) @ velocity + t @ acc
    return normal, tangent


def _disc_pair(c, positions, angles, Jp, Jw, bias, b, k, v):
    """A disc pair's ``(n, dn/dt, relative velocity, its bias)`` of the touching material points."""
    centre_a, centre_b, dist, n, arm_a, arm_b = disc_pair_geometry(c, positions, angles, b, k)
    rate_a, rate_b = Jw[b] @ v, Jw[k] @ v
    if dist == 0:  # coincident centres: the normal is fixed to +y (as in the contact's own evaluation)
        turn = np.zeros(2)
    else:
        gap_rate = (Jp[b] @ v + rate_a * perp(centre_a)) - (Jp[k] @ v + rate_b * perp(centre_b))
        turn = (gap_rate - n * (n @ gap_rate)) / dist
    velocity = (Jp[b] @ v + rate_a * perp(arm_a)) - (Jp[k] @ v + rate_b * perp(arm_b))
    arm_a_rate = rate_a * perp(centre_a) - c.radius * turn
    arm_b_rate = rate_b * perp(centre_b) + c.other_radius * turn
    acc = (bias[b] + rate_a * perp(arm_a_rate)) - (bias[k] + rate_b * perp(arm_b_rate))
    return n, turn, velocity, acc
