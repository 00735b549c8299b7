"""Linear complementarity problems: a robust Numba Lemke solver.

The LCP(M, q) asks for z with

    z >= 0,   w = M z + q >= 0,   z^T w = 0.

:func:`lemke` implements Lemke's complementary pivoting algorithm (Cottle,
Pang & Stone, *The Linear Complementarity Problem*, §4.4) on a dense
tableau ``B^-1 [I, -M, -d, q]`` with

* a covering vector ``d > 0`` (ones by default),
* Ruiz equilibration of ``M`` (row and column scaling, which preserves
  complementarity) so that tolerances are *relative* to the data,
* lexicographic degeneracy resolution on ``[rhs, B^-1]`` (no cycling), with
  the artificial variable z0 preferred on ratio ties (it ends the path),
* a pivot-size threshold, exact unit pivot columns,
* a final refinement of the basic solution against the *original* data and a
  verification of the answer; a failed check is reported, never hidden.
  The fast path refines once with the tableau's own ``B^-1`` and verifies;
  only if that check fails is the basis re-solved afresh by LU (with
  refinement) and verified again.

Every solve returns a status (:class:`LCPStatus`).  Lemke's method solves
every LCP with a copositive-plus matrix that has a solution; the Routh-step
matrix ``W`` of the paper (eq. 75) is copositive (Theorem 6).

Verification lives in :mod:`reach.verify`; :func:`reach.enumeration.all_solutions`
enumerates every complementary basis of a small LCP (n <= ~20).

The kernels (`lemke_kernel`, `prepare_scaling`) work on preallocated
buffers so repeated solves allocate nothing; :class:`LemkeWorkspace` holds
them.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numba as nb
import numpy as np

from reach.verify import clip_and_measure, refine_and_verify, tableau_refine, verify_tableau

__all__ = [
    "LCPStatus", "LCPResult", "LemkeWorkspace", "lemke", "lemke_kernel",
    "lcp_residual", "equilibrate",
]


class LCPStatus(IntEnum):
    """Outcome of one LCP solve."""

    SOLVED = 0
    """A complementary solution was found and verified against the original data."""
    RAY = 1
    """Lemke's path ended on a secondary ray: no solution reachable (maybe none exists)."""
    PIVOT_LIMIT = 2
    """The pivot limit was reached before the path ended."""
    NUMERICAL = 3
    """The final basis failed verification against the original data."""

    @property
    def message(self):
        return _MESSAGES[self]


_MESSAGES = {
    LCPStatus.SOLVED: "solved: complementary solution verified against the original data",
    LCPStatus.RAY: "ray termination: Lemke's path left on an unbounded ray (no solution reachable)",
    LCPStatus.PIVOT_LIMIT: "pivot limit reached",
    LCPStatus.NUMERICAL: "numerical failure: the final basis did not verify against the original data",
}

# Tolerances (relative; the problem is equilibrated before pivoting).
PIVOT_TOL = 1e-11     #: entering-column entries below this (x column scale) are not pivots
TIE_TOL = 1e-9        #: ratios within this (x ratio scale) are ties
VERIFY_TOL = 1e-9     #: relative complementarity residual accepted at the end


class LCPResult(NamedTuple):
    """Result of :func:`lemke`.

    Attributes
    ----------
    z, w : ndarray, shape (n,)
        The solution and ``w = M z + q`` (meaningful only when ``success``).
    status : LCPStatus
    pivots : int
        Number of pivots taken (0 when ``q >= 0``).
    residual : float
        Relative complementarity residual ``max|min(z, w)| / scale`` of the
        returned point, recomputed from the original data.
    """

    z: np.ndarray
    w: np.ndarray
    status: LCPStatus
    pivots: int
    residual: float

    @property
    def success(self):
        return self.status == LCPStatus.SOLVED

    @property
    def message(self):
        return self.status.message


# ----------------------------------------------------------------------------- kernels
@nb.njit(cache=True)
def equilibrate(M, row_scale, col_scale, iterations=12):
    """Ruiz equilibration: fill ``row_scale``, ``col_scale`` so that
    ``diag(row_scale) M diag(col_scale)`` has rows and columns of max-abs ~1.

    Rows or columns that are entirely zero keep scale 1.
    """
    n = M.shape[0]
    for i in range(n):
        row_scale[i] = 1.0
        col_scale[i] = 1.0
    for _ in range(iterations):
        for i in range(n):
            big = 0.0
            for j in range(n):
                a = abs(row_scale[i] * M[i, j] * col_scale[j])
                if a > big:
                    big = a
            if big > 0.0:
                row_scale[i] /= np.sqrt(big)
        for j in range(n):
            big = 0.0
            for i in range(n):
                a = abs(row_scale[i] * M[i, j] * col_scale[j])
                if a > big:
                    big = a
            if big > 0.0:
                col_scale[j] /= np.sqrt(big)


@nb.njit(cache=True)
def _pivot(T, r, c, n):
    """Pivot the tableau rows ``0..n-1`` on ``T[r, c]``.

    ``T`` has a spare row ``n``: the scaled pivot row is copied there first, so
    the row updates read a buffer that cannot alias the row being written (the
    loop vectorizes).  The pivot column is set to the exact unit vector.
    """
    ncol = T.shape[1]
    inv = 1.0 / T[r, c]
    for j in range(ncol):
        x = T[r, j] * inv
        T[r, j] = x
        T[n, j] = x
    T[r, c] = 1.0
    T[n, c] = 1.0
    for i in range(n):
        if i == r:
            continue
        f = T[i, c]
        if f != 0.0:
            for j in range(ncol):
                T[i, j] -= f * T[n, j]
            T[i, c] = 0.0  # exact unit column


@nb.njit(cache=True)
def _clamp_rhs(T, n):
    """Basic values are nonnegative in exact arithmetic; clear rounding noise below zero.

    Ratio ties are resolved with a relative tolerance, so a pivot may leave a
    tied row at -1e-16 instead of 0; left alone, such a sign error can end the
    path on a false ray.  The final refinement re-solves the basis against the
    original data, so clearing the noise costs no accuracy.
    """
    rhs = T.shape[1] - 1
    for i in range(n):
        if T[i, rhs] < 0.0:
            T[i, rhs] = 0.0


@nb.njit(cache=True)
def _ratio_test(T, n, c, sign, basis, z0_index, ratio_scale):
    """Lexicographic minimum-ratio row for entering column ``c`` (or -1: ray).

    Candidates have ``sign * T[i, c]`` above the pivot threshold.  Among the
    rows whose ratio ``rhs / a`` ties the minimum, the row of z0 is chosen if
    present; otherwise ties are broken by the lexicographic minimum of the
    rows of ``B^-1`` divided by ``a``.
    """
    rhs = T.shape[1] - 1
    colmax = 0.0
    for i in range(n):
        a = abs(T[i, c])
        if a > colmax:
            colmax = a
    threshold = PIVOT_TOL * max(colmax, 1e-300)
    best = np.inf
    for i in range(n):
        a = sign * T[i, c]
        if a > threshold:
            ratio = T[i, rhs] / a
            if ratio < best:
                best = ratio
    if best == np.inf:
        return -1
    tie = TIE_TOL * (abs(best) + ratio_scale)
    chosen = -1
    for i in range(n):
        a = sign * T[i, c]
        if a > threshold and T[i, rhs] / a <= best + tie:
            if basis[i] == z0_index:
                return i
            if chosen < 0:
                chosen = i
                continue
            # lexicographic comparison of B^-1 rows (columns 0..n-1) scaled by 1/a
            ac = sign * T[chosen, c]
            for j in range(n):
                x = T[i, j] / a
                y = T[chosen, j] / ac
                scale = max(abs(x), abs(y))
                if x < y - TIE_TOL * scale:
                    chosen = i
                    break
                if x > y + TIE_TOL * scale:
                    break
    return chosen


@nb.njit(cache=True)
def lemke_kernel(M, q, d, max_pivots, T, basis, z, w):
    """Lemke's algorithm on ``LCP(M, q)`` with covering vector ``d``; no allocation.

    Parameters
    ----------
    M : (n, n) float64 array, already equilibrated by the caller if wanted
    q : (n,) float64 array
    d : (n,) float64 array, positive covering vector
    max_pivots : int
    T : (n + 1, 2n + 2) float64 work array: the tableau and a spare last row
        that buffers the pivot row
    basis : (n,) int64 work array (basic variable of each row: w_i = i,
        z_j = n + j, z0 = 2n)
    z, w : (n,) float64 output arrays

    Returns
    -------
    status : int
        0 solved (not yet verified: see :func:`solve_scaled`), 1 ray,
        2 pivot limit.
    pivots : int
    """
    n = q.shape[0]
    z0 = 2 * n
    rhs = 2 * n + 1
    qmin = 0.0
    qscale = 0.0
    for i in range(n):
        if q[i] < qmin:
            qmin = q[i]
        if abs(q[i]) > qscale:
            qscale = abs(q[i])
    if qmin >= 0.0:
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        return 0, 0
    for i in range(n):
        for j in range(n):
            T[i, j] = 0.0
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -M[i, j]
        T[i, z0] = -d[i]
        T[i, rhs] = q[i]
        basis[i] = i
    r = _ratio_test(T, n, z0, -1.0, basis, -1, qscale)
    _pivot(T, r, z0, n)
    _clamp_rhs(T, n)
    leaving = basis[r]
    basis[r] = z0
    entering = leaving + n  # complement of w_r is z_r
    pivots = 1
    status = 2
    zero = 1e-13 * qscale
    while pivots < max_pivots:
        r = _ratio_test(T, n, entering, 1.0, basis, z0, qscale)
        if r < 0 or T[r, rhs] > zero:
            # Degenerate exit: when z0 is basic at value zero the current point is already
            # complementary; pivot z0 out on an entry of either sign (the entering variable
            # enters at zero, every basic value is unchanged).  This avoids false rays of
            # copositive (not copositive-plus) matrices such as the Routh-step W.
            for i in range(n):
                if basis[i] == z0 and T[i, rhs] <= zero:
                    colmax = 0.0
                    for k in range(n):
                        colmax = max(colmax, abs(T[k, entering]))
                    if abs(T[i, entering]) > PIVOT_TOL * colmax:
                        r = i
                    elif r < 0:
                        r = -2  # z0 is zero but cannot pivot: the point is a solution as it stands
                    break
        if r == -2:
            status = 0
            break
        if r < 0:
            status = 1
            break
        _pivot(T, r, entering, n)
        _clamp_rhs(T, n)
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
    for i in range(n):
        z[i] = 0.0
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = T[i, rhs]
    return status, pivots


@nb.njit(cache=True)
def solve_scaled(M, Ms, q, qs, d, max_pivots, T, basis, z, w, row_scale, col_scale):
    """Solve LCP(M, q) given its equilibrated copy ``Ms = R M C``; returns (status, pivots, residual).

    ``qs`` is a work array for ``R q``.  The final basis is refined once with
    the tableau's ``B^-1`` and verified against the original data; if that
    fails, it is re-solved by LU (:func:`refine_and_verify`) and verified
    again.  Status 3 (numerical) replaces 0 when the verified residual still
    exceeds :data:`VERIFY_TOL`.
    """
    n = q.shape[0]
    for i in range(n):
        qs[i] = row_scale[i] * q[i]
    status, pivots = lemke_kernel(Ms, qs, d, max_pivots, T, basis, z, w)
    if pivots == 0:
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
        return status, pivots, 0.0
    if status != 0:
        return status, pivots, np.inf
    tableau_refine(Ms, qs, d, T, basis, z)
    res = verify_tableau(M, q, T, basis, z, w, row_scale, col_scale)
    if res <= VERIFY_TOL:
        return status, pivots, res
    res = refine_and_verify(M, Ms, q, qs, d, T, basis, z, w, row_scale, col_scale)
    if res > VERIFY_TOL:
        status = 3
    return status, pivots, res


class LemkeWorkspace:
    """Preallocated buffers and the equilibrated matrix for repeated solves with one ``M``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    max_pivots : int, optional
        Default ``max(1000, 50 n)``.
    """

    def __init__(self, M, *, max_pivots=None):
        M = np.ascontiguousarray(M, dtype=float)
        n = M.shape[0]
        self.n = n
        self.M = M
        self.row_scale = np.ones(n)
        self.col_scale = np.ones(n)
        equilibrate(M, self.row_scale, self.col_scale)
        self.Ms = np.ascontiguousarray(self.row_scale[:, None] * M * self.col_scale[None, :])
        self.max_pivots = int(max_pivots) if max_pivots is not None else max(1000, 50 * n)
        self.T = np.empty((n + 1, 2 * n + 2))  # + a spare row for the pivot row
        self.basis = np.empty(n, dtype=np.int64)
        self.qs = np.empty(n)
        self.ones = np.ones(n)


def _check_lcp(M, q):
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"`M` must be a square matrix; got shape {M.shape}.")
    if q.shape != (M.shape[0],):
        raise ValueError(f"`q` must have shape ({M.shape[0]},) to match `M`; got {q.shape}.")
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(q))):
        raise ValueError("`M` and `q` must be finite (no NaN or inf).")
    return np.ascontiguousarray(M), np.ascontiguousarray(q)


def lemke(M, q, *, max_pivots=None, covering=None, workspace=None):
    """Solve the LCP ``z >= 0, w = M z + q >= 0, z^T w = 0`` by Lemke's method.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    max_pivots : int, optional
        Pivot limit (default ``max(1000, 50 n)``).
    covering : array_like, shape (n,), optional
        Positive covering vector in the equilibrated coordinates (default
        ones).  Different covering vectors can reach different solutions of
        a non-unique LCP.
    workspace : LemkeWorkspace, optional
        Reuse buffers and the equilibration of a previous call with the same M.

    Returns
    -------
    LCPResult
        ``z, w, status, pivots, residual``; ``success`` is true only if the
        answer was verified against the original data.

    Examples
    --------
    >>> r = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    >>> r.success, np.round(r.z, 12).tolist()
    (True, [1.333333333333, 2.333333333333])
    """
    M, q = _check_lcp(M, q)
    n = M.shape[0]
    if workspace is None or workspace.n != n or not np.array_equal(workspace.M, M):
        workspace = LemkeWorkspace(M, max_pivots=max_pivots)
    max_piv = workspace.max_pivots if max_pivots is None else int(max_pivots)
    if covering is None:
        d = workspace.ones
    else:
        d = np.ascontiguousarray(covering, dtype=float)
        if d.shape != (n,) or not np.all(d > 0):
            raise ValueError(f"`covering` must be a positive vector of shape ({n},).")
    z = np.zeros(n)
    w = np.zeros(n)
    status, pivots, res = solve_scaled(
        workspace.M, workspace.Ms, q, workspace.qs, d, max_piv,
        workspace.T, workspace.basis, z, w, workspace.row_scale, workspace.col_scale)
    return LCPResult(z, w, LCPStatus(status), int(pivots), float(res))


def lcp_residual(M, q, z):
    """Relative natural residual of ``z`` for LCP(M, q), in equilibrated units (zero at a solution).

    See :func:`reach.verify.residual_kernel`; the Ruiz scaling of ``M`` is computed here.
    """
    M = np.ascontiguousarray(M, dtype=float)
    q = np.ascontiguousarray(q, dtype=float)
    z = np.array(z, dtype=float)
    n = M.shape[0]
    row_scale, col_scale = np.ones(n), np.ones(n)
    equilibrate(M, row_scale, col_scale)
    w = np.empty(n)
    return float(clip_and_measure(M, q, z, w, row_scale, col_scale))


# Basis enumeration (all_solutions) lives in reach.enumeration.
