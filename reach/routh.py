"""The Routh multi-impact step (paper eq. 72-75) and Algorithms 1-2 as jitted kernels.

One Routh step, given the velocity v and a per-contact normal-impulse cap
``lambda_max >= 0``, solves ``LCP(W, w)`` with ``z = [beta; lambda_n;
lambda_D; gamma]``, ``w = [lambda_max; Jbar v; 0]`` (eq. 75) and moves to

    v' = v + M^-1 Jbar^T [lambda_n; lambda_D]                       (75c)

which never raises kinetic energy (Theorem 7).  Algorithm 1 repeats steps
with ``lambda_max = h p``, ``p`` in ``[0, 1]^m``, while some contact is
colliding and fewer than N steps were taken.  Algorithm 2 runs many samples
and closes each still-colliding one with a step of ``lambda_max = eps / (3
psi) 1`` before dropping what still collides.  (A sample that already
ended non-colliding is left alone: by Lemma 8 that closing step is the
identity there.)

Non-unique steps.  Where a step's LCP has several solutions with different
v' (Assumption 6 fails: compass gait, RAMone), the pick matters.  With
``choice = CHOICE_RANDOM`` every step uses a random covering vector for
Lemke's method (log-uniform entries in [1/ratio, ratio], drawn from a
counter-based hash of (seed, sample, step)), which reaches different
solutions of a non-unique LCP; ``CHOICE_FIRST`` always uses the covering
vector of ones (a deterministic single pick).

Kernels take contiguous arrays and scalars only, write into given buffers
and return status codes; :mod:`reach.sampler` is the Python layer.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from reach.counter_rng import hashed_uniform, splitmix64
from reach.enumeration import FALLBACK_MAX_N, basis_point, first_solution_kernel
from reach.lcp import VERIFY_TOL, LemkeWorkspace, solve_scaled
from reach.verify import clip_and_measure

CHOICE_FIRST = 0
CHOICE_RANDOM = 1
CHOICE_ENUMERATE = 2

#: Spread of the random covering vectors: entries are log-uniform in [1/R, R].
COVERING_RATIO = 1e3
#: Extra random covering vectors tried when a step's solve fails verification.
RETRIES = 4
#: Relative rounding allowance on the energy certificate of a step (Theorem 7).
ENERGY_RTOL = 1e-8

# Sample status codes
SAMPLE_OK = 0
SAMPLE_LCP_FAILED = 1  # a step's LCP was not solved; the sample stopped there

@nb.njit(cache=True)
def _fill_q(Jbar, m, v, lambda_max, q):
    """The Routh-step LCP vector ``q = [lambda_max; Jbar v; 0]`` (eq. 75a)."""
    nb_ = Jbar.shape[0]
    for i in range(m):
        q[i] = lambda_max[i]
    for r in range(nb_):
        acc = 0.0
        for j in range(v.shape[0]):
            acc += Jbar[r, j] * v[j]
        q[m + r] = acc
    for i in range(m + nb_, q.shape[0]):
        q[i] = 0.0


@nb.njit(cache=True)
def _dissipative(W, q, z, m, nb_):
    """Theorem 7 as a certificate: ``dK = lambda . Jbar v + lambda^T G lambda / 2 <= 0``.

    G is the Delassus block of W, ``Jbar v`` sits in ``q``; rounding is allowed
    relative to the terms' magnitudes plus an energy floor ``(Jbar v)_r^2 / G_rr``.
    """
    dk = 0.0
    magnitude = 0.0
    for r in range(nb_):
        if W[m + r, m + r] > 0.0:
            magnitude += 1e-4 * q[m + r] * q[m + r] / W[m + r, m + r]
        lam = z[m + r]
        if lam != 0.0:
            t = lam * q[m + r]
            acc = 0.0
            for c in range(nb_):
                acc += W[m + r, m + c] * z[m + c]
            dk += t + 0.5 * lam * acc
            magnitude += abs(t) + 0.5 * abs(lam * acc)
    return dk <= ENERGY_RTOL * magnitude


@nb.njit(cache=True)
def _apply_impulse(Minv_JbarT, m, z, v, v_next):
    """``v_next = v + M^-1 Jbar^T lambda_bar`` (eq. 75c) with ``lambda_bar = z[m : m + nb]``."""
    for j in range(v.shape[0]):
        v_next[j] = v[j]
    for r in range(Minv_JbarT.shape[1]):
        lam = z[m + r]
        if lam != 0.0:
            for j in range(v.shape[0]):
                v_next[j] += Minv_JbarT[j, r] * lam


@nb.njit(cache=True)
def routh_step_kernel(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lambda_max,
                      d, max_pivots, q, qs, T, basis, z, wout, v_next):
    """One Routh step (eq. 75): fill ``v_next``; return (status, pivots, residual).

    ``q, qs, T, basis, z, wout`` are work buffers of the LCP size n; ``d``
    the covering vector.  Besides the LCP verification, the step is checked
    against Theorem 7 (:func:`_dissipative`); a step that fails it gets
    status 3 (numerical).  On a failed solve ``v_next`` is a copy of ``v``.
    """
    _fill_q(Jbar, m, v, lambda_max, q)
    status, pivots, res = solve_scaled(W, Ws, q, qs, d, max_pivots, T, basis, z, wout,
                                       row_scale, col_scale)
    if status == 0 and not _dissipative(W, q, z, m, Jbar.shape[0]):
        status = 3
    if status != 0:
        for j in range(v.shape[0]):
            v_next[j] = v[j]
        return status, pivots, res
    _apply_impulse(Minv_JbarT, m, z, v, v_next)
    return status, pivots, res


@nb.njit(cache=True)
def _colliding(Jn, v, tol):
    for i in range(Jn.shape[0]):
        acc = 0.0
        for j in range(Jn.shape[1]):
            acc += Jn[i, j] * v[j]
        if acc < -tol:
            return True
    return False


@nb.njit(cache=True)
def _fill_covering(d, choice, seed, sample, step):
    if choice == CHOICE_FIRST:
        for i in range(d.shape[0]):
            d[i] = 1.0
    else:
        # hashed_uniform(seed, 1, sample, step * n + i) with the (seed, stream, sample)
        # part of the hash chain computed once: the same numbers, a third of the work
        logr = np.log(COVERING_RATIO)
        x = splitmix64(np.uint64(seed) ^ (np.uint64(1) * np.uint64(0xD1B54A32D192ED03)))
        x = splitmix64(x ^ np.uint64(sample))
        base = step * d.shape[0]
        for i in range(d.shape[0]):
            y = splitmix64(x ^ (np.uint64(base + i) * np.uint64(0x9E3779B97F4A7C15)))
            u = (y >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            d[i] = np.exp(logr * (2.0 * u - 1.0))


@nb.njit(cache=True)
def _robust_step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, d, choice, seed, sample,
                 step, max_pivots, q, qs, T, basis, z, wout, v_next, members, A, b, x):
    """A Routh step with the sample's covering vector, made robust.

    If the solve fails verification, retry with the covering vector of ones
    and then with up to ``RETRIES`` further random covering vectors
    (ill-conditioned vertices, e.g. opposing friction impulses of 1e4 at
    mu = 1e5, fail verification; another vertex usually does not).  If all
    fail and the LCP is small (n <= FALLBACK_MAX_N), enumerate its
    complementary bases from a random starting set until a solution verifies.
    Returns (status, residual, LCP solves used).
    """
    _fill_covering(d, choice, seed, sample, step)
    status, pivots, res = routh_step_kernel(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam,
                                            d, max_pivots, q, qs, T, basis, z, wout, v_next)
    tries = 1
    if status == 0:
        return status, res, tries
    _fill_covering(d, CHOICE_FIRST, seed, sample, step)
    while True:
        status, pivots, res = routh_step_kernel(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v,
                                                lam, d, max_pivots, q, qs, T, basis, z, wout, v_next)
        tries += 1
        if status == 0 or tries >= 2 + RETRIES:
            break
        _fill_covering(d, CHOICE_RANDOM, seed + 7919 * tries, sample, step)
    n = q.shape[0]
    if status == 0 or n > FALLBACK_MAX_N:
        return status, res, tries
    # last resort: q and qs still hold this step's data
    offset = int(hashed_uniform(seed, 2, sample, step) * (1 << n))
    found, res = first_solution_kernel(W, Ws, q, qs, row_scale, col_scale, offset, members, A, b, x, z,
                                       wout)
    tries += 1
    if not found or not _dissipative(W, q, z, m, Jbar.shape[0]):
        return 3, res, tries
    _apply_impulse(Minv_JbarT, m, z, v, v_next)
    return 0, res, tries


@nb.njit(cache=True)
def _enumerated_step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, seed, sample, step,
                     q, qs, z, wout, v_next, members, A, b, x, distinct):
    """A Routh step that picks uniformly among *all* distinct v' of the step's LCP.

    Every complementary index set is tried (sets with ``beta_i`` but not
    ``lambda_n,i`` are skipped when ``lambda_max,i > 0``: ``beta_i > 0`` forces
    ``lambda_n,i = lambda_max,i``); the solutions that verify against the
    data and dissipate give candidate velocities, deduplicated to 1e-9 of the
    velocity scale, and one is chosen by the hash of (seed, sample, step).
    Returns the number of distinct v' (0: none verified; ``v_next`` untouched).
    """
    _fill_q(Jbar, m, v, lam, q)
    n = q.shape[0]
    nb_ = Jbar.shape[0]
    nv = v.shape[0]
    for i in range(n):
        qs[i] = row_scale[i] * q[i]
    vscale = 1e-300
    for j in range(nv):
        vscale = max(vscale, abs(v[j]))
    count = 0
    for mask in range(1 << n):
        skip = False
        for i in range(m):
            if (mask >> i) & 1 and not (mask >> (m + i)) & 1 and lam[i] > 0.0:
                skip = True
                break
        if skip or not basis_point(Ws, qs, col_scale, mask, members, A, b, x, z):
            continue
        if clip_and_measure(W, q, z, wout, row_scale, col_scale) > VERIFY_TOL:
            continue
        if not _dissipative(W, q, z, m, nb_):
            continue
        if count == distinct.shape[0]:
            break
        _apply_impulse(Minv_JbarT, m, z, v, distinct[count])   # candidate in the next free slot
        duplicate = False
        for c in range(count):
            gap = 0.0
            for j in range(nv):
                gap = max(gap, abs(distinct[c, j] - distinct[count, j]))
            if gap <= 1e-9 * vscale:
                duplicate = True
                break
        if not duplicate:
            count += 1
    if count > 0:
        pick = min(int(hashed_uniform(seed, 3, sample, step) * count), count - 1)
        for j in range(nv):
            v_next[j] = distinct[pick, j]
    return count


@nb.njit(cache=True)
def _step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, d, choice, seed, sample, step,
          max_pivots, q, qs, T, basis, z, wout, v_next, members, A, b, x, distinct):
    """Dispatch one step on the solution choice; returns (status, residual, solves)."""
    if choice == CHOICE_ENUMERATE:
        if _enumerated_step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, seed, sample,
                            step, q, qs, z, wout, v_next, members, A, b, x, distinct) > 0:
            return 0, 0.0, 1
        choice = CHOICE_FIRST
    return _robust_step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, d, choice, seed,
                        sample, step, max_pivots, q, qs, T, basis, z, wout, v_next, members, A, b, x)


@nb.njit(cache=True)
def _record(paths_out, path_len_out, s, v):
    """Append ``v`` to sample ``s``'s stored path, if its path is kept."""
    if s < paths_out.shape[0]:
        k = path_len_out[s]
        for j in range(v.shape[0]):
            paths_out[s, k, j] = v[j]
        path_len_out[s] = k + 1


@nb.njit(cache=True)
def run_samples_kernel(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, Jn, v0, P, h, eps_lambda,
                       colliding_tol, choice, seed, first_index, max_pivots,
                       V_out, solves_out, terminated_out, kept_out, status_out, residual_out,
                       paths_out, path_len_out):
    """Algorithm 1 for every row of ``P`` plus Algorithm 2's closing step; no per-sample Python.

    Parameters
    ----------
    P : (S, N, m) float array of p values in [0, 1] (``lambda_max = h p``)
    first_index : int
        Global index of ``P[0]`` (randomness is keyed by the global index).
    V_out : (S, nv) final velocities
    solves_out : (S,) int64 LCP solves per sample (closing step included)
    terminated_out : (S,) bool, Algorithm 1 ended non-colliding within N steps
    kept_out : (S,) bool, non-colliding after the closing step (in the set)
    status_out : (S,) int64 sample status (0 ok, 1 an LCP failed)
    residual_out : (S,) worst relative complementarity residual over the steps
    paths_out : (K, N + 2, nv) velocity paths of the first K samples (K may be 0)
    path_len_out : (K,) number of valid rows in each path
    """
    S = P.shape[0]
    N = P.shape[1]
    m = Jn.shape[0]
    nv = v0.shape[0]
    n = W.shape[0]
    q = np.empty(n)
    qs = np.empty(n)
    T = np.empty((n + 1, 2 * n + 2))  # + a spare row for the pivot row
    basis = np.empty(n, dtype=np.int64)
    z = np.empty(n)
    wout = np.empty(n)
    d = np.empty(n)
    members = np.empty(n, dtype=np.int64)      # work arrays of the enumeration fallback
    A = np.empty((n, n))
    b = np.empty(n)
    x = np.empty(n)
    distinct = np.empty((64, nv))                # candidate velocities of an enumerated step
    lam = np.empty(m)
    v = np.empty(nv)
    v_next = np.empty(nv)
    K = paths_out.shape[0]
    for s in range(S):
        gidx = first_index + s
        for j in range(nv):
            v[j] = v0[j]
        if s < K:
            path_len_out[s] = 0
        _record(paths_out, path_len_out, s, v)
        solves = 0
        worst = 0.0
        sample_status = 0
        step = 0
        while step < N and _colliding(Jn, v, colliding_tol):
            for i in range(m):
                lam[i] = h * P[s, step, i]
            status, res, tries = _step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, d,
                                       choice, seed, gidx, step, max_pivots, q, qs, T, basis, z, wout,
                                       v_next, members, A, b, x, distinct)
            solves += tries
            step += 1
            if status != 0:
                sample_status = 1
                break
            if res > worst:
                worst = res
            for j in range(nv):
                v[j] = v_next[j]
            _record(paths_out, path_len_out, s, v)
        colliding = _colliding(Jn, v, colliding_tol)
        terminated_out[s] = (not colliding) and sample_status == 0
        if colliding and sample_status == 0:
            for i in range(m):
                lam[i] = eps_lambda
            status, res, tries = _step(W, Ws, row_scale, col_scale, Jbar, Minv_JbarT, m, v, lam, d,
                                       choice, seed, gidx, N, max_pivots, q, qs, T, basis, z, wout,
                                       v_next, members, A, b, x, distinct)
            solves += tries
            if status != 0:
                sample_status = 1
            else:
                if res > worst:
                    worst = res
                for j in range(nv):
                    v[j] = v_next[j]
                _record(paths_out, path_len_out, s, v)
            colliding = _colliding(Jn, v, colliding_tol)
        for j in range(nv):
            V_out[s, j] = v[j]
        solves_out[s] = solves
        kept_out[s] = (not colliding) and sample_status == 0
        status_out[s] = sample_status
        residual_out[s] = worst


class RouthKernelData:
    """The problem's arrays in the form the kernels take (built once per problem)."""

    def __init__(self, problem, *, max_pivots=None):
        ws = LemkeWorkspace(problem.W, max_pivots=max_pivots)
        self.problem = problem
        self.W = ws.M
        self.Ws = ws.Ms
        self.row_scale = ws.row_scale
        self.col_scale = ws.col_scale
        self.max_pivots = ws.max_pivots
        self.Jbar = np.ascontiguousarray(problem.Jbar)
        self.Minv_JbarT = np.ascontiguousarray(problem.Minv_JbarT)
        self.Jn = np.ascontiguousarray(problem.Jn)
        self.v0 = np.ascontiguousarray(problem.v)
        self.m = problem.m
        self.n = problem.lcp_size


def routh_step(problem, v, lambda_max, *, covering=None, data=None):
    """One Routh step from velocity ``v`` with normal-impulse caps ``lambda_max``.

    Parameters
    ----------
    problem : ImpactProblem
    v : array_like, shape (nv,)
    lambda_max : float or array_like, shape (m,), >= 0
    covering : array_like, shape (n,), optional
        Lemke covering vector (default ones); see :mod:`reach.routh`.

    Returns
    -------
    v_next : ndarray, shape (nv,)
    z : ndarray, shape (n,)
        The LCP solution ``[beta; lambda_n; lambda_D; gamma]``.
    status : reach.lcp.LCPStatus
    residual : float
        Relative complementarity residual against the original data.
    """
    from reach.lcp import LCPStatus

    data = data or RouthKernelData(problem)
    v = np.ascontiguousarray(v, dtype=float)
    if v.shape != (problem.nv,):
        raise ValueError(f"`v` must have shape ({problem.nv},); got {v.shape}.")
    lam = np.ascontiguousarray(np.broadcast_to(np.asarray(lambda_max, dtype=float), (problem.m,)))
    if np.any(lam < 0) or not np.all(np.isfinite(lam)):
        raise ValueError("`lambda_max` must be finite and >= 0.")
    n = data.n
    d = np.ones(n) if covering is None else np.ascontiguousarray(covering, dtype=float)
    if d.shape != (n,) or not np.all(d > 0):
        raise ValueError(f"`covering` must be a positive vector of shape ({n},).")
    q, qs, z, wout, v_next = (np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(problem.nv))
    T = np.empty((n + 1, 2 * n + 2))  # + a spare row for the pivot row
    basis = np.empty(n, dtype=np.int64)
    status, _, res = routh_step_kernel(data.W, data.Ws, data.row_scale, data.col_scale, data.Jbar,
                                       data.Minv_JbarT, problem.m, v, lam, d, data.max_pivots,
                                       q, qs, T, basis, z, wout, v_next)
    return v_next, z.copy(), LCPStatus(status), float(res)
