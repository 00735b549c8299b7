"""A trotting gait for ``examples/quadruped12.xml``: a PD controller for ``reach trajectory MODEL.xml --controller``.

::

    reach trajectory examples/quadruped12.xml --controller reach.examples.gaits:trot --impacts 3

:func:`trot` tracks the keyframe ``stand`` (abduction 0, hip 0.7 rad, knee
-1.4 rad on every leg) with the diagonal pairs swinging in turn: in the first
half of each :data:`PERIOD` the front-left and hind-right feet lift (hip
forward, knee flexed, a half sine), in the second half the front-right and
hind-left.  Each swing foot comes down onto the ground while the other pair
stands: a touchdown of two feet, whose post-impact set ``reach`` samples.
Joint torques are ``KP (q_ref - q) - KD qdot`` (N m), clipped by the model's
``ctrlrange`` (±30 N m).  Write your own controller the same way:
``f(t, qpos, qvel) -> ctrl`` (one entry per actuator, in the model's order).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["trot", "bound", "stand", "reference", "STAND", "PERIOD", "KP", "KD", "TROT_PAIRS", "BOUND_PAIRS"]

#: The joint angles of the keyframe ``stand`` (rad): FL, FR, HL, HR × (abduction, hip, knee).
STAND = np.tile([0.0, 0.7, -1.4], 4)
#: One trot cycle (s): each diagonal pair swings for half of it.
PERIOD = 0.36
#: Proportional and derivative gains (N m / rad, N m s / rad).
KP, KD = 60.0, 2.0
#: The swing's peak offsets (rad): hip forward, knee flexed.
HIP_LIFT, KNEE_LIFT = 0.35, -0.7
#: Legs swinging together, in turn: the trot's diagonal pairs, the bound's front and hind pairs.
TROT_PAIRS, BOUND_PAIRS = ((0, 3), (1, 2)), ((0, 1), (2, 3))


def reference(t, pairs=TROT_PAIRS):
    """The joint angles tracked at time ``t`` (s): ``STAND`` with the swinging pair's lift added."""
    phase = (t % PERIOD) / PERIOD
    pair, local = (0, 2 * phase) if phase < 0.5 else (1, 2 * phase - 1)
    lift = math.sin(math.pi * local)
    q = STAND.copy()
    for leg in pairs[pair]:
        q[3 * leg + 1] += HIP_LIFT * lift
        q[3 * leg + 2] += KNEE_LIFT * lift
    return q


def trot(t, qpos, qvel):
    """Joint torques (N m) of the trot at time ``t`` from the state ``(qpos, qvel)`` of ``quadruped12.xml``."""
    return KP * (reference(t) - qpos[7:]) - KD * qvel[6:]


def bound(t, qpos, qvel):
    """Joint torques (N m) of a bound: the front legs swing together, then the hind legs."""
    return KP * (reference(t, BOUND_PAIRS) - qpos[7:]) - KD * qvel[6:]


def stand(t, qpos, qvel):
    """Joint torques (N m) holding the keyframe ``stand``: the trot without its swings."""
    return KP * (STAND - qpos[7:]) - KD * qvel[6:]
