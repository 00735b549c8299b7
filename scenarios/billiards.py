"""Seghete & Murphey's billiard break (their Fig. 4): a cue ball c strikes two resting balls a, b at once.

Frictionless planar balls, masses proportional to volume (radius cubed):
``r_a = r_b = 1``, ``r_c = 1 / sin(pi / 12) - 1 = 2.864`` so that a and b
touch each other at ``theta = pi / 6``, the smallest angle between the lines
of centres c-a and c-b (as in the paper).  c moves at 1 along the bisector of
theta.  ``q = [x_a, y_a, x_b, y_b, x_c, y_c]``; contact ``a`` is c-a, ``b`` is c-b,
normals from c to the struck ball.
"""

from __future__ import annotations

import numpy as np

from reach.problem.impact import ImpactProblem

NAME = "billiards"
R_AB = 1.0
R_C = 1.0 / np.sin(np.pi / 12) - 1.0
THETA_MIN = np.pi / 6


def impact(theta, speed=1.0, r_c=R_C, r_ab=R_AB):
    """The :class:`ImpactProblem` of the break at angle theta (rad) between the lines of centres."""
    if not THETA_MIN - 1e-12 <= theta < np.pi:
        raise ValueError(f"theta must be in [pi/6, pi) (a and b overlap below, c grazes at pi); got {theta!r}.")
    masses = np.array([r_ab, r_ab, r_ab, r_ab, r_c, r_c]) ** 3
    rows_n, rows_t = [], []
    for k, sign in enumerate((1.0, -1.0)):
        n = np.array([np.cos(theta / 2), sign * np.sin(theta / 2)])
        t = np.array([-n[1], n[0]])
        jn, jt = np.zeros(6), np.zeros(6)
        jn[2 * k:2 * k + 2], jn[4:6] = n, -n
        jt[2 * k:2 * k + 2], jt[4:6] = t, -t
        rows_n.append(jn)
        rows_t.append(jt)
    v = np.zeros(6)
    v[4] = speed
    return ImpactProblem(np.diag(masses), rows_n, rows_t, 0.0, v, contact_names=["a", "b"])
