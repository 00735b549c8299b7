"""Exact choice at a planar Routh step: enumerate per-contact modes, not complementary bases.

Every solution of a planar Routh-step LCP (eq. 75) puts each contact in one of
seven modes:

* ``0`` no impulse: ``lambda_n = lambda_t = 0``, the contact does not close
  (``v_n' >= 0``);
* ``1..6`` an impulse, with the normal part either **capped** (``lambda_n =
  cap``, ``v_n' <= 0``) or **free** (``v_n' = 0``, ``0 <= lambda_n <= cap``), and
  the tangential part **sticking** (``v_t' = 0``, ``|lambda_t| <= mu
  lambda_n``) or **sliding** either way (``lambda_t = -+ mu lambda_n`` against
  ``v_t'``).

Each of the ``7^m`` assignments fixes ``2 m`` linear equations in ``(lambda_n,
lambda_t)``; solving them and checking the inequalities gives every solution
on a nonsingular system, and so every distinct ``v'`` that basis enumeration
finds — for ``7^m`` small solves (49 of size 4 for two contacts) instead of
``2^(5m)`` principal systems (1,024 of size up to 10).  The distinct ``v'`` are
deduplicated and one is drawn uniformly, keyed by (seed, sample, step):
unbiased choice at non-unique steps (SPEC §7).

Planar problems only (two friction directions per contact); the kernel works
in the units of :mod:`reach.kernels.routh` (impulses times the mass scale).
"""

from __future__ import annotations

import numba as nb

from reach.kernels.enumeration import solve_dense
from reach.kernels.rng import PICK_STREAM, hashed_uniform

__all__ = ["MODES", "mode_step"]

#: Modes per contact: none, and {capped, free} x {stick, slide +, slide -}.
MODES = 7


@nb.njit(cache=True)
def _rows(W, m, i, j):
    """Delassus entries (nn, nt, tn, tt) between contacts i and j of a planar W.

    The tangential impulse ``lambda_t = lambda_D+ - lambda_D-`` acts through the
    D+ column (the D- column is its negative), and the tangential velocity is
    the D+ row.
    """
    n_i, n_j = m + i, m + j
    t_i, t_j = 2 * m + 2 * i, 2 * m + 2 * j
    return W[n_i, n_j], W[n_i, t_j], W[t_i, n_j], W[t_i, t_j]


@nb.njit(cache=True)
def _assemble(W, m, modes, vn0, vt0, lam, mu, A, b):
    """The 2m equations of a mode assignment in x = [lambda_n; lambda_t]."""
    for r in range(2 * m):
        b[r] = 0.0
        for c in range(2 * m):
            A[r, c] = 0.0
    for i in range(m):
        mode = modes[i]
        normal, tangent = i, m + i
        if mode == 0:
            A[normal, i] = 1.0
            A[tangent, m + i] = 1.0
            continue
        capped = mode <= 3
        kind = (mode - 1) % 3  # 0 stick, 1 slide + (lambda_t = -mu lambda_n), 2 slide -
        if capped:
            A[normal, i] = 1.0
            b[normal] = lam[i]
        else:
            for j in range(m):
                nn, nt, _, _ = _rows(W, m, i, j)
                A[normal, j] = nn
                A[normal, m + j] = nt
            b[normal] = -vn0[i]
        if kind == 0:
            for j in range(m):
                _, _, tn, tt = _rows(W, m, i, j)
                A[tangent, j] = tn
                A[tangent, m + j] = tt
            b[tangent] = -vt0[i]
        else:
            A[tangent, m + i] = 1.0
            A[tangent, i] = mu[i] if kind == 1 else -mu[i]


@nb.njit(cache=True)
def _admissible(W, m, modes, vn0, vt0, lam, mu, x, tol):
    """The inequalities of a mode assignment at its solution x."""
    for i in range(m):
        vn, vt = vn0[i], vt0[i]
        for j in range(m):
            nn, nt, tn, tt = _rows(W, m, i, j)
            vn += nn * x[j] + nt * x[m + j]
            vt += tn * x[j] + tt * x[m + j]
        ln, lt, mode = x[i], x[m + i], modes[i]
        if mode == 0:
            if vn < -tol:
                return False
            continue
        if ln < -tol or ln > lam[i] + tol * (1.0 + lam[i]):
            return False
        if mode <= 3 and vn > tol:  # capped: beta >= 0 means the contact still closes or rests
            return False
        kind = (mode - 1) % 3
        if kind == 0 and abs(lt) > mu[i] * ln + tol:
            return False
        if kind == 1 and vt < -tol:
            return False
        if kind == 2 and vt > tol:
            return False
    return True


@nb.njit(cache=True)
def mode_step(data, v, lam, seed, sample, step, work, v_next):
    """Every distinct v' of a planar Routh step, one drawn uniformly into ``v_next``; returns their number.

    ``lam`` holds the caps in the kernels' velocity units.  0 means no mode
    assignment was admissible (a singular system everywhere): the caller
    falls back to Lemke's method.
    """
    W = data.lcp.M
    m = data.Jn.shape[0]
    nv = v.shape[0]
    A, b, x, distinct, modes = work.A, work.b, work.x, work.distinct, work.members
    vn0, vt0, mu = work.q, work.z, work.w  # scratch of length >= m
    vscale = 1e-300
    for i in range(m):
        a = 0.0
        t = 0.0
        for j in range(nv):
            a += data.Jbar[i, j] * v[j]
            t += data.Jbar[m + 2 * i, j] * v[j]
        vn0[i], vt0[i], mu[i] = a, t, W[4 * m + i, m + i]  # the cone row of contact i holds mu_i
        vscale = max(vscale, abs(a), abs(t))
    tol = 1e-9 * vscale
    same = 1e-300
    for j in range(nv):
        same = max(same, abs(v[j]))
    same *= 1e-9  # distinct v' differ by more than this (as in the basis enumeration)
    count = 0
    total = MODES ** m
    for code in range(total):
        c = code
        for i in range(m):
            modes[i] = c % MODES
            c //= MODES
        _assemble(W, m, modes, vn0, vt0, lam, mu, A, b)
        if not solve_dense(A, b, x, 2 * m) or not _admissible(W, m, modes, vn0, vt0, lam, mu, x, tol):
            continue
        if count == distinct.shape[0]:
            break
        for j in range(nv):
            acc = v[j]
            for i in range(m):
                acc += data.Minv_JbarT[j, i] * x[i] + data.Minv_JbarT[j, m + 2 * i] * x[m + i]
            distinct[count, j] = acc
        duplicate = False
        for k in range(count):
            gap = 0.0
            for j in range(nv):
                gap = max(gap, abs(distinct[k, j] - distinct[count, j]))
            if gap <= same:
                duplicate = True
                break
        if not duplicate:
            count += 1
    if count > 0:
        pick = min(int(hashed_uniform(seed, PICK_STREAM, sample, step) * count), count - 1)
        for j in range(nv):
            v_next[j] = distinct[pick, j]
    return count
