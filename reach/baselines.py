"""Baseline impact laws the paper plots against the set (paper §2.2.2, SPEC §3).

* :func:`simultaneous` — Anitescu & Potra's inelastic LCP (eq. 31-33): one LCP
  ``[lambda_n; lambda_D; gamma]`` over all contacts with velocity-based
  complementarity at the post-impact velocity.  Non-unique in general (the
  compass gait has three outcomes, Remy 2017), so **every** distinct
  post-impact velocity is returned: complementary bases are enumerated for
  small LCPs (n <= 20), and Lemke's method with many random covering vectors
  adds any solution on a singular basis (and is the only search for larger
  LCPs, where completeness is not guaranteed).
* :func:`sequential` — one contact at a time with the same law restricted to
  that contact, cycling i, i+1, ... from a given first contact until the
  velocity is non-colliding (at most 10 rounds).
* :func:`routh_single_contact` — Routh's classical planar single-contact
  impact (paper §2.2.2, Fig. 3), integrated exactly piece by piece; with one
  contact the set collapses onto it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.enumeration import all_solutions
from reach.lcp import LemkeWorkspace, lemke

__all__ = ["simultaneous", "sequential", "SequentialResult", "routh_single_contact",
           "anitescu_potra_lcp"]

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


def _velocity_from(problem, v, impulses):
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
    V = np.array([_velocity_from(problem, problem.v, z[:nb]) for z in solutions])
    scale = max(float(np.max(np.abs(problem.v))), 1e-300)
    return _unique_rows(V, scale)


class SequentialResult(NamedTuple):
    """Outcome of :func:`sequential`.

    Attributes
    ----------
    velocity : ndarray, shape (nv,)
        Final velocity.
    path : ndarray, shape (k + 1, nv)
        Pre-impact velocity and the velocity after each single-contact impact.
    order : list of int
        The contact resolved at each impact.
    terminated : bool
        Whether the final velocity is non-colliding (false if the 10-round
        cap was hit).
    """

    velocity: np.ndarray
    path: np.ndarray
    order: list
    terminated: bool


def sequential(problem, first=0, *, max_rounds=10):
    """Resolve contacts one at a time, cycling ``first, first + 1, ...``, until non-colliding.

    Each single impact applies the Anitescu-Potra law restricted to that
    contact (paper §2.2.2); a contact that is not colliding at its turn is
    skipped.  Each round visits every contact once.

    Parameters
    ----------
    problem : ImpactProblem
    first : int or str
        Index or name of the contact resolved first.
    max_rounds : int

    Returns
    -------
    SequentialResult
    """
    if isinstance(first, str):
        if first not in problem.contact_names:
            raise ValueError(f"`first` must be one of {list(problem.contact_names)}; got {first!r}.")
        first = problem.contact_names.index(first)
    if not 0 <= int(first) < problem.m:
        raise ValueError(f"`first` must be a contact index in [0, {problem.m}); got {first!r}.")
    singles = [problem.restricted_to([i]) for i in range(problem.m)]
    v = problem.v.copy()
    path, order = [v.copy()], []
    tol = problem.colliding_tol
    for _ in range(max_rounds):
        for offset in range(problem.m):
            i = (int(first) + offset) % problem.m
            if problem.Jn[i] @ v >= -tol:
                continue
            single = singles[i]
            A, b = anitescu_potra_lcp(single, v)
            res = lemke(A, b)
            if not res.success:
                raise RuntimeError(f"single-contact impact LCP at contact {i} failed: {res.message}")
            v = _velocity_from(single, v, res.z[:single.Jbar.shape[0]])
            path.append(v.copy())
            order.append(i)
        if not problem.is_colliding(v):
            break
    return SequentialResult(v, np.array(path), order, not bool(problem.is_colliding(v)))


def routh_single_contact(problem, contact=0):
    """Routh's classical planar impact at one contact, integrated exactly.

    The normal impulse grows at unit rate; the tangential impulse follows
    Coulomb's law at the current velocity (sliding: ``-mu sign(u_t)``;
    sticking when ``u_t = 0`` and the required ratio is inside the cone,
    otherwise sliding resumes in the direction the dynamics force); the
    impact ends when the normal velocity reaches zero.  The path is
    piecewise linear in the impulse, so each phase is solved in closed form.

    Returns
    -------
    v_plus : ndarray, shape (nv,)
    path : ndarray, shape (k, nv)
        Velocities at the phase changes, from v to v_plus.
    """
    if not problem.planar:
        raise ValueError("`problem` must be planar: Routh's path is piecewise linear only in the plane.")
    i = int(contact)
    Jn, Jt, mu = problem.Jn[i], problem.Jt[i], float(problem.mu[i])
    Minv_Jn = np.linalg.solve(problem.M, Jn)
    Minv_Jt = np.linalg.solve(problem.M, Jt)
    a, b, c = Jn @ Minv_Jn, Jn @ Minv_Jt, Jt @ Minv_Jt
    v = problem.v.copy()
    path = [v.copy()]
    tol = 1e-12 * max(1.0, float(np.max(np.abs(problem.contact_velocities(v)))))
    for _ in range(8):
        un, ut = Jn @ v, Jt @ v
        if un >= -tol:
            break
        if abs(ut) <= tol:
            if c > 0 and abs(b / c) <= mu:     # sticking: u_t stays 0
                rate_t = -b / c
            else:                               # forced sliding in the direction of b
                s = np.sign(b)
                rate_t = -mu * s
            dun = a + b * rate_t
            if dun <= 0:
                raise RuntimeError("Routh's impact does not terminate at this contact (normal velocity never rises).")
            step = -un / dun
            v = v + (Minv_Jn + Minv_Jt * rate_t) * step
            path.append(v.copy())
            break
        s = np.sign(ut)
        rate_t = -mu * s
        dun, dut = a + b * rate_t, b + c * rate_t
        steps = [-un / dun if dun > 0 else np.inf, -ut / dut if dut * s < 0 else np.inf]
        step = min(steps)
        if not np.isfinite(step):
            raise RuntimeError("Routh's impact does not terminate at this contact.")
        v = v + (Minv_Jn + Minv_Jt * rate_t) * step
        path.append(v.copy())
        if steps[0] <= steps[1]:
            break
    return v, np.array(path)
