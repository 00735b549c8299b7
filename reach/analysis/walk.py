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

The paths are the solver's own: :func:`reach.kernels.lcp.lemke_kernel` for
the first, :func:`reach.kernels.lcp.follow_path` for each hop, on the
equilibrated matrix (the kernels' data).  Every solution is recomputed from
its basis by a dense solve and verified against the original data and
Theorem 7 before it counts.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.lcp import DEFAULT_OPTIONS, follow_path, lemke_kernel
from reach.kernels.routh_data import StepOptions
from reach.problem.lcp import VERIFY_TOL, lcp_residual
from reach.problem.step import kernel_data

__all__ = ["walk_solutions", "WALK_HOPS"]

#: Default number of hops (paths followed from solutions found so far).
WALK_HOPS = 32
#: Spread of the random covering vectors, as the sampler draws them.
COVERING_RATIO = StepOptions._field_defaults["covering_ratio"]


def _solution(T, Ms, qs, basis):
    """The basis's solution of the scaled LCP: re-solved densely from the data, or read off ``T`` if z0 is basic.

    z0 stays basic, at zero, where the path ended on a degenerate exit (a
    solution as it stands).  None if the basis matrix is singular.
    """
    n = len(basis)
    z = np.zeros(n)
    if np.any(basis == 2 * n):
        for i, b in enumerate(basis):
            if n <= b < 2 * n:
                z[b - n] = T[i, -1]
        return z
    B = np.zeros((n, n))
    for j, b in enumerate(basis):
        if b < n:
            B[b, j] = 1.0
        else:
            B[:, j] = -Ms[:, b - n]
    try:
        x = np.linalg.solve(B, qs)
    except np.linalg.LinAlgError:
        return None
    for j, b in enumerate(basis):
        if b >= n:
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

    def velocity(T, basis):
        zs = _solution(T, lcp.Ms, qs, basis)
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
    opts = DEFAULT_OPTIONS._replace(max_pivots=max_pivots)
    T, basis = np.empty((n + 1, 2 * n + 2)), np.empty(n, dtype=np.int64)
    status, _ = lemke_kernel(lcp.Ms, qs, cover(), opts, T, basis, np.empty(n))
    v_first = velocity(T, basis) if status == 0 else None
    if v_first is None:
        return np.zeros((0, problem.nv))
    found, tableaux = [v_first], [(T, basis)]
    for _ in range(hops):
        T0, basis0 = tableaux[rng.integers(len(tableaux))]
        T, basis = T0.copy(), basis0.copy()
        T[:n, 2 * n] = T[:n, :n] @ -cover()  # z0's column for a new covering vector, in this basis
        status, _ = follow_path(T, basis, 2 * n, sigma, opts, max_pivots)
        v_next = velocity(T, basis) if status == 0 else None
        if v_next is None:
            continue
        cv = problem.contact_velocities(v_next)
        if all(np.max(np.abs(cv - problem.contact_velocities(u))) > 1e-7 * scale for u in found):
            found.append(v_next)
            tableaux.append((T, basis))
    return np.array(found)
