"""Walking from one solution of a Routh step to others: the solutions no covering vector reaches.

Lemke's method follows a path of almost-complementary bases from its primary
ray to a solution, and that solution has index +1.  A step whose LCP has k
solutions (non-degenerate) has (k - 1) / 2 of index -1 (the step's
piecewise-linear map has degree 1, :mod:`reach.kernels.modes`); no covering
vector's primary path ends at one of them, so random covering vectors never
find them (:mod:`reach.analysis.uniqueness` measures it).

For a covering vector ``d``, every solution that is not the end of the
primary path is the end of a path joining it to another solution.
:func:`walk_solutions` therefore starts from Lemke's solution and *walks*:
from a solution found so far it re-enters the artificial variable with a
new random covering vector and follows the path to its other end — another
solution, or back to the ray.  The walk finds solutions of both indices.
It is a search, not an enumeration: what it finds is a lower bound on a
step's distinct v', and on planar problems (where contact modes enumerate
every solution) the tests compare the two.  Its use is to measure
non-uniqueness where nothing enumerates: spatial problems.

Dense NumPy tableau on the equilibrated matrix (the kernels' data), with the
same lexicographic ratio test as :mod:`reach.kernels.lcp`; every solution
is recomputed from its basis by a dense solve and verified against the
original data and Theorem 7 before it counts.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.routh import StepOptions
from reach.lcp import VERIFY_TOL, lcp_residual
from reach.step import kernel_data

__all__ = ["walk_solutions", "WALK_HOPS"]

#: Default number of hops (paths followed from solutions found so far).
WALK_HOPS = 32
#: Spread of the random covering vectors, as the sampler draws them.
COVERING_RATIO = StepOptions._field_defaults["covering_ratio"]
_PIVOT_TOL = 1e-11
_TIE_TOL = 1e-8


def _pivot(T, r, c):
    T[r] /= T[r, c]
    f = T[:, c].copy()
    f[r] = 0.0
    T -= np.outer(f, T[r])
    T[:, c] = 0.0
    T[r, c] = 1.0


def _leaving(T, n, c, basis, z0, sigma):
    """Lexicographic minimum-ratio row for entering column ``c`` (z0's row on a tie), or -1: a ray."""
    col, rhs = T[:n, c], T[:n, -1]
    cand = np.flatnonzero(col > _PIVOT_TOL * max(np.abs(col).max(), 1e-300))
    if len(cand) == 0:
        return -1
    ratio = rhs[cand] / col[cand]
    best = ratio.min()
    tie = cand[ratio <= best + _TIE_TOL * (abs(best) + sigma)]
    z0_rows = [i for i in tie if basis[i] == z0]
    if z0_rows:
        return z0_rows[0]
    rows = T[tie, :n] / col[tie, None]  # rows of B^-1 over the pivots: lexicographic minimum
    return int(tie[np.lexsort(rows.T[::-1])[0]])


def _follow(T, basis, entering, n, sigma, max_pivots):
    """Follow the path from the entering variable until z0 leaves (a solution: True) or a ray / the limit."""
    z0 = 2 * n
    for _ in range(max_pivots):
        r = _leaving(T, n, entering, basis, z0, sigma)
        if r < 0:
            return False
        _pivot(T, r, entering)
        np.maximum(T[:n, -1], 0.0, out=T[:n, -1])  # rounding noise below zero, as the kernels clear it
        leaving, basis[r] = basis[r], entering
        if leaving == z0:
            return True
        entering = leaving + n if leaving < n else leaving - n
    return False


def _solution(Ms, qs, basis, n):
    """The basis's solution of the scaled LCP, recomputed by a dense solve; None if singular."""
    B = np.zeros((n, n))
    for j, b in enumerate(basis):
        if b < n:
            B[b, j] = 1.0
        elif b < 2 * n:
            B[:, j] = -Ms[:, b - n]
        else:
            return None  # z0 still basic
    try:
        x = np.linalg.solve(B, qs)
    except np.linalg.LinAlgError:
        return None
    z = np.zeros(n)
    for j, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = max(x[j], 0.0)
    return z


def walk_solutions(problem, v, lambda_max, *, hops=WALK_HOPS, seed=0, max_pivots=None):
    """Distinct v' of one Routh step: Lemke's, and those reached by walking on from it.

    Parameters
    ----------
    problem : ImpactProblem
    v : array_like, shape (nv,)
    lambda_max : array_like, shape (m,)
        Caps (impulses, kg m/s).
    hops : int
        Paths followed from solutions found so far, each with a new random
        covering vector (log-uniform in ``[1/ratio, ratio]`` as the sampler's).
    seed : int
    max_pivots : int, optional
        Per path (default ``10 n``).

    Returns
    -------
    V : ndarray, shape (k, nv)
        The distinct v' found (contact velocities apart by more than 1e-7 of
        the pre-impact scale), each from a verified solution (residual at
        most ``VERIFY_TOL``, kinetic energy not above ``v``'s); Lemke's first.
    """
    v = np.asarray(v, dtype=float)
    lam = np.asarray(lambda_max, dtype=float)
    data = kernel_data(problem)
    lcp, m, g = data.lcp, problem.m, problem.mass_scale
    n = problem.lcp_size
    q = problem.routh_w(v, lam)
    q_unit = np.concatenate([lam * g, q[m:]])  # the kernels' units: impulses times the mass scale
    qs = lcp.row_scale * q_unit
    sigma = max(float(-qs.min()), 0.0)
    max_pivots = 10 * n if max_pivots is None else int(max_pivots)
    rng = np.random.default_rng(seed)
    scale = max(float(np.max(np.abs(problem.contact_velocities(problem.v)))), 1e-300)
    nb = problem.Jbar.shape[0]
    energy = problem.kinetic_energy(v)

    def cover():
        return np.exp(np.log(COVERING_RATIO) * rng.uniform(-1.0, 1.0, n))

    def velocity(basis):
        zs = _solution(lcp.Ms, qs, basis, n)
        if zs is None:
            return None
        z = lcp.col_scale * zs
        if not lcp_residual(lcp.M, q_unit, z) <= VERIFY_TOL:
            return None
        v_next = v + problem.Minv_JbarT @ (z[m:m + nb] / g)
        if problem.kinetic_energy(v_next) > energy * (1 + 1e-9) + 1e-300:
            return None
        return v_next

    if sigma == 0.0:  # no impulse: v itself is the only answer
        return v[None, :].copy()
    T = np.hstack([np.eye(n), -lcp.Ms, -cover()[:, None], qs[:, None]])
    basis = list(range(n))
    r = int(np.argmin(qs / -T[:n, 2 * n]))  # z0 enters; the row of the most negative q_i / d_i leaves
    _pivot(T, r, 2 * n)
    np.maximum(T[:n, -1], 0.0, out=T[:n, -1])
    entering, basis[r] = r + n, 2 * n
    if not _follow(T, basis, entering, n, sigma, max_pivots):
        return np.zeros((0, problem.nv))
    found, tableaux = [], []
    v_first = velocity(basis)
    if v_first is None:
        return np.zeros((0, problem.nv))
    found.append(v_first)
    tableaux.append((T, list(basis)))
    for _ in range(hops):
        T0, basis0 = tableaux[rng.integers(len(tableaux))]
        T, basis = T0.copy(), list(basis0)
        T[:n, 2 * n] = T[:n, :n] @ -cover()  # z0's column for a new covering vector, in this basis
        if not _follow(T, basis, 2 * n, n, sigma, max_pivots):
            continue
        v_next = velocity(basis)
        if v_next is None:
            continue
        cv = problem.contact_velocities(v_next)
        if all(np.max(np.abs(cv - problem.contact_velocities(u))) > 1e-7 * scale for u in found):
            found.append(v_next)
            tableaux.append((T, list(basis)))
    return np.array(found)
