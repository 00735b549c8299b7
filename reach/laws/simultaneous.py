"""Anitescu & Potra's simultaneous impact law (paper eq. 31-33), with every distinct outcome.

:func:`simultaneous` solves one LCP ``[lambda_n; lambda_D; gamma]`` over all
contacts with velocity-based complementarity at the post-impact velocity.  It
is non-unique in general (the compass gait has three outcomes, Remy 2017), so
**every** distinct post-impact velocity is returned: complementary bases are
enumerated for small LCPs (n <= 20), and Lemke's method with many random
covering vectors adds any solution on a singular basis (and is the only
search for larger LCPs, where completeness is not guaranteed).
"""

from __future__ import annotations

import numpy as np

from reach.problem.lcp import LemkeWorkspace, all_solutions, lemke

__all__ = ["simultaneous", "anitescu_potra_lcp", "velocity_from"]

ENUMERATION_LIMIT = 20  #: largest LCP size solved by basis enumeration
RANDOM_COVERINGS = 64   #: extra Lemke solves with random covering vectors


def anitescu_potra_lcp(problem, v=None):
    """The Anitescu-Potra impact LCP ``(A, b)`` at velocity ``v`` (default the pre-impact one).

    ``A = W[m:, m:]`` (the Routh-step matrix without the cap rows) and
    ``b = [Jbar v; 0]``; ``z = [lambda_n; lambda_D; gamma]``.
    """
    v = problem.v if v is None else np.asarray(v, dtype=float)
    m = problem.m
    A = np.ascontiguousarray(problem.W[m:, m:])
    b = np.concatenate([problem.Jbar @ v, np.zeros(m)])
    return A, b


def velocity_from(problem, v, impulses):
    """``v + M^-1 Jbar^T impulses``: the velocity after the impulses ``[lambda_n; lambda_D]``."""
    return v + problem.Minv_JbarT @ impulses


def _unique_rows(V, scale):
    unique = []
    for row in V:
        if not any(np.max(np.abs(row - u)) <= 1e-8 * scale for u in unique):
            unique.append(row)
    return np.array(unique)


def simultaneous(problem, *, seed=0):
    """Every distinct post-impact velocity of the Anitescu-Potra inelastic impact LCP.

    Parameters
    ----------
    problem : ImpactProblem
    seed : int
        Seed of the random covering vectors.

    Returns
    -------
    ndarray, shape (k, nv)
        The distinct post-impact velocities, ``k >= 1``.
    """
    A, b = anitescu_potra_lcp(problem)
    nb = problem.Jbar.shape[0]
    solutions = []
    if A.shape[0] <= ENUMERATION_LIMIT:
        solutions.extend(all_solutions(A, b))
    rng = np.random.default_rng(seed)
    workspace = LemkeWorkspace(A)
    for trial in range(RANDOM_COVERINGS + 1):
        cover = None if trial == 0 else np.exp(rng.uniform(-np.log(1e3), np.log(1e3), A.shape[0]))
        res = lemke(A, b, covering=cover, workspace=workspace)
        if res.success:
            solutions.append(res.z)
    if not solutions:
        raise RuntimeError("no solution of the Anitescu-Potra LCP was found; this should not happen "
                           "for a copositive impact LCP.")
    V = np.array([velocity_from(problem, problem.v, z[:nb]) for z in solutions])
    scale = max(float(np.max(np.abs(problem.v))), 1e-300)
    return _unique_rows(V, scale)
