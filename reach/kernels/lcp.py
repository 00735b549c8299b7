"""Lemke's complementary pivoting algorithm as Numba kernels.

The LCP(M, q) asks for z with

    z >= 0,   w = M z + q >= 0,   z^T w = 0.

:func:`lemke_kernel` runs Lemke's method (Cottle, Pang & Stone, *The Linear
Complementarity Problem*, §4.4) on a dense tableau ``B^-1 [I, -M, -d, q]``
with

* a covering vector ``d > 0``,
* Ruiz equilibration of ``M`` (:func:`equilibrate`: row and column scaling,
  which preserves complementarity),
* lexicographic degeneracy resolution on ``[rhs, B^-1]`` (no cycling), with
  the artificial variable z0 preferred on ratio ties (it ends the path),
* a pivot-size threshold and exact unit pivot columns.

Tolerances are relative to the scale each quantity has: pivots to their
column, ratio ties and the degenerate exit to ``sigma = max(-q~)`` — the
starting value of z0, the scale of every basic value on the path — never to
``max|q|``, which a large entry that plays no part (a normal-impulse cap far
above what a contact can take) would dominate.

:func:`solve_scaled` refines the final basis against the data and verifies
the answer (:mod:`reach.kernels.verify`); a failed check is a status, never
hidden.  Everything works on buffers the caller passes in (:class:`LemkeWork`);
tolerances come in one :class:`LemkeOptions` tuple.  The Python layer is
:mod:`reach.problem.lcp`.

Status codes: 0 solved and verified, 1 ray, 2 pivot limit, 3 numerical
(the final answer did not verify).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from reach.kernels.jit import kernel, kernel_array
from reach.kernels.revised import lex_smaller, revised_lemke_kernel, revised_refine
from reach.kernels.verify import refine_and_verify, tableau_refine, verify_basic, verify_tableau

__all__ = ["LemkeOptions", "LemkeWork", "ScaledLCP", "DEFAULT_OPTIONS", "STRICT_OPTIONS", "STRICT_TIE_TOL", "SOLVED",
           "RAY", "PIVOT_LIMIT", "NUMERICAL", "TABLEAU", "REVISED", "AUTO", "REVISED_MIN_N", "equilibrate", "lemke_kernel", "follow_path", "solve_scaled", "uses_tableau", "make_work", "scale_lcp"]

#: Status: a verified solution.
SOLVED = 0
#: Status: Lemke's method ended on a secondary ray (no solution found).
RAY = 1
#: Status: the pivot limit was reached.
PIVOT_LIMIT = 2
#: Status: a solution was found but failed verification.
NUMERICAL = 3


class LemkeOptions(NamedTuple):
    """Tolerances of a solve, all relative (see the module docstring)."""

    pivot_tol: float = 1e-11    #: entering-column entries below this (x column max) are not pivots
    tie_tol: float = 1e-8       #: ratios within this (x (``|ratio|`` + sigma)) are ties
    verify_tol: float = 1e-9    #: relative residual accepted at the end
    zero_tol: float = 1e-13     #: z0 below this (x sigma) counts as zero (degenerate exit)
    max_pivots: int = 1000
    method: int = 2             #: AUTO (by size, the default), TABLEAU or REVISED


#: ``LemkeOptions.method``: the dense tableau of :func:`lemke_kernel`.
TABLEAU = 0
#: ``LemkeOptions.method``: the revised method of :mod:`reach.kernels.revised` (same path, less work).
REVISED = 1
#: ``LemkeOptions.method``: the tableau below ``REVISED_MIN_N``, the revised method from there on.
AUTO = 2
#: Size from which AUTO takes the revised method.  Measured on whole verified Routh steps, the two
#: forms in alternating batches (docs/performance.md): the tableau is 1.06x faster at n = 5 (one
#: planar contact), the revised form 1.1-1.25x faster at n = 10 (two contacts) and more from there on.
REVISED_MIN_N = 8

#: The options every solve uses unless told otherwise.
DEFAULT_OPTIONS = LemkeOptions()
#: Ratio ties for a last try on a step no other try verified: ratios count as tied only within
#: 1e-12 (x (``|ratio|`` + sigma)).  Measured: the rod of Stewart & Trinkle at h = 0.05 and 0.3 s, and
#: light-limbed quadrupeds, end 1e-8 from a solution with the default 1e-8 and verify with 1e-10 or less.
STRICT_TIE_TOL = 1e-12
#: :data:`DEFAULT_OPTIONS` with :data:`STRICT_TIE_TOL`.
STRICT_OPTIONS = DEFAULT_OPTIONS._replace(tie_tol=STRICT_TIE_TOL)


class ScaledLCP(NamedTuple):
    """A matrix ``M`` with its Ruiz equilibration ``Ms = diag(row_scale) M diag(col_scale)``, and their transposes.

    The transposes (contiguous) serve the kernels that use the matrices by
    column: the revised method's entering columns and residuals, and ``w = M z
    + q`` (a sum of rows of ``MT``).  A row loop over a contiguous row
    vectorizes; one down a column, or a dot product's running sum, does not.
    The sums are taken in the same order, so the answers are the same bits.
    """

    M: np.ndarray
    Ms: np.ndarray
    row_scale: np.ndarray
    col_scale: np.ndarray
    MT: np.ndarray
    MsT: np.ndarray


class LemkeWork(NamedTuple):
    """Work arrays of one LCP size n: the tableau, the revised method's etas, basis, scaled q, scratch."""

    T: np.ndarray       # (n + 1, 2n + 2) tableau with a spare row (also the LU of a final re-solve)
    basis: np.ndarray   # (n,) int64: w_i = i, z_j = n + j, z0 = 2n
    qs: np.ndarray      # (n,) row_scale * q
    r: np.ndarray       # (n,) scratch (residuals, LU permutation)
    etas: np.ndarray    # (n, n) revised method: the entering column of each pivot
    eta_row: np.ndarray  # (n,) int64 its pivot row
    eta_inv: np.ndarray  # (n,) 1 / pivot
    x: np.ndarray       # (n,) basic values
    col: np.ndarray     # (n,) entering column
    ratio: np.ndarray   # (n,) the ratio test's ratios (both forms)
    row_a: np.ndarray   # (n,) scratch rows of B^-1
    row_b: np.ndarray   # (n,)
    nz: np.ndarray      # (n,) int64 nonzeros of a row of B^-1
    binv: np.ndarray    # (n, n) folded inverse
    meta: np.ndarray    # (2,) int64: eta count, folded?


def make_work(n):
    """Fresh :class:`LemkeWork` for LCPs of size ``n``."""
    return LemkeWork(np.empty((n + 1, 2 * n + 2)), np.empty(n, dtype=np.int64), np.empty(n), np.empty(n),
                     np.empty((n, n)), np.empty(n, dtype=np.int64), np.empty(n), np.empty(n), np.empty(n),
                     np.empty(n), np.empty(n), np.empty(n), np.empty(n, dtype=np.int64), np.empty((n, n)),
                     np.zeros(2, dtype=np.int64))


def scale_lcp(M):
    """The :class:`ScaledLCP` of ``M`` (a contiguous, writable float64 copy and its equilibration)."""
    M = kernel_array(M)
    n = M.shape[0]
    row_scale, col_scale = np.ones(n), np.ones(n)
    equilibrate(M, row_scale, col_scale)
    Ms = np.ascontiguousarray(row_scale[:, None] * M * col_scale[None, :])
    return ScaledLCP(M, Ms, row_scale, col_scale, np.ascontiguousarray(M.T), np.ascontiguousarray(Ms.T))


@kernel
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
                row_scale[i] /= math.sqrt(big)
        for j in range(n):
            big = 0.0
            for i in range(n):
                a = abs(row_scale[i] * M[i, j] * col_scale[j])
                if a > big:
                    big = a
            if big > 0.0:
                col_scale[j] /= math.sqrt(big)


@kernel
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


@kernel
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


@kernel
def _ratio_test(T, n, c, sign, basis, z0_index, sigma, pivot_tol, tie_tol):
    """Lexicographic minimum-ratio row for entering column ``c`` (or -1: ray).

    Candidates have ``sign * T[i, c]`` above the pivot threshold.  Among the
    rows whose ratio ``rhs / a`` ties the minimum, the row of z0 is chosen if
    present; otherwise ties are broken by the lexicographic minimum of the
    rows of ``B^-1`` divided by ``a``.  The ratios are computed once, into the
    spare row ``T[n]`` (free until the pivot buffers its row there).
    """
    rhs = T.shape[1] - 1
    colmax = 0.0
    for i in range(n):
        colmax = max(colmax, abs(T[i, c]))
    threshold = pivot_tol * max(colmax, 1e-300)
    for i in range(n):
        a = sign * T[i, c]
        T[n, i] = T[i, rhs] / a if a > threshold else np.inf
    best = np.inf
    for i in range(n):
        best = min(best, T[n, i])
    if best == np.inf:
        return -1
    limit = best + tie_tol * (abs(best) + sigma)
    chosen = -1
    for i in range(n):
        if T[n, i] <= limit:
            if basis[i] == z0_index:
                return i
            if chosen < 0:
                chosen = i
                continue
            # B^-1 is the tableau's first n columns
            if lex_smaller(T[i, :n], sign * T[i, c], T[chosen, :n], sign * T[chosen, c], tie_tol):
                chosen = i
    return chosen


@kernel(inline="always")
def follow_path(T, basis, entering, sigma, opts, max_pivots):
    """Follow Lemke's path on tableau ``T`` from the ``entering`` variable; returns (status, pivots).

    Status 0: z0 left the basis, or is basic at zero and cannot pivot (the
    point is a solution as it stands); 1: a ray; 2: ``max_pivots`` pivots.
    :func:`lemke_kernel` calls it after z0's first pivot;
    :mod:`reach.analysis.walk` calls it with z0 entering at a solution, to
    walk on to another.  ``T`` and ``basis`` are updated in place (rows
    ``0..n-1``; row ``n`` is the pivots' buffer).
    """
    n = basis.shape[0]
    z0 = 2 * n
    rhs = 2 * n + 1
    zero = opts.zero_tol * sigma
    pivots = 0
    while pivots < max_pivots:
        r = _ratio_test(T, n, entering, 1.0, basis, z0, sigma, opts.pivot_tol, opts.tie_tol)
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
                    if abs(T[i, entering]) > opts.pivot_tol * colmax:
                        r = i
                    elif r < 0:
                        r = -2  # z0 is zero but cannot pivot: the point is a solution as it stands
                    break
        if r == -2:
            return 0, pivots
        if r < 0:
            return 1, pivots
        _pivot(T, r, entering, n)
        _clamp_rhs(T, n)
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == z0:
            return 0, pivots
        entering = leaving + n if leaving < n else leaving - n
    return 2, pivots


@kernel
def lemke_kernel(Ms, qs, d, opts, T, basis, z):
    """Lemke's algorithm on ``LCP(Ms, qs)`` with covering vector ``d``; no allocation.

    The path after z0's first pivot is :func:`follow_path` (inlined: the
    pivot loop and its degenerate exit share the tableau state).

    Parameters
    ----------
    Ms : (n, n) float64, the (equilibrated) matrix
    qs : (n,) float64
    d : (n,) float64, positive covering vector
    opts : LemkeOptions
    T : (n + 1, 2n + 2) float64 work array: the tableau and a spare last row
        that buffers the pivot row
    basis : (n,) int64 work array (basic variable of each row: w_i = i,
        z_j = n + j, z0 = 2n)
    z : (n,) float64 output: the basic values of the final basis

    Returns
    -------
    status : int
        0 solved (not yet verified: see :func:`solve_scaled`), 1 ray,
        2 pivot limit.
    pivots : int
    """
    n = qs.shape[0]
    z0 = 2 * n
    rhs = 2 * n + 1
    sigma = 0.0
    for i in range(n):
        if -qs[i] > sigma:
            sigma = -qs[i]
    if not sigma > 0.0:
        for i in range(n):
            z[i] = 0.0
        return 0, 0
    for i in range(n):
        for j in range(n):
            T[i, j] = 0.0
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -Ms[i, j]
        T[i, z0] = -d[i]
        T[i, rhs] = qs[i]
        basis[i] = i
    r = _ratio_test(T, n, z0, -1.0, basis, np.int64(-1), sigma, opts.pivot_tol, opts.tie_tol)
    _pivot(T, r, z0, n)
    _clamp_rhs(T, n)
    leaving = basis[r]
    basis[r] = z0
    entering = leaving + n  # complement of w_r is z_r
    status, pivots = follow_path(T, basis, entering, sigma, opts, opts.max_pivots - 1)
    pivots += 1
    for i in range(n):
        z[i] = 0.0
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = T[i, rhs]
    return status, pivots


@kernel
def uses_tableau(method, n):
    """Whether :func:`solve_scaled` takes the dense tableau (not the revised method) for ``method`` at size ``n``."""
    return method == TABLEAU or (method == AUTO and n < REVISED_MIN_N)


@kernel
def solve_scaled(lcp, q, d, opts, work, z, w):
    """Solve LCP(M, q) with Lemke's method on the equilibrated copy; return (status, pivots, residual).

    ``lcp`` is a :class:`ScaledLCP`, ``work`` a :class:`LemkeWork`;
    ``opts.method`` picks the dense tableau or the revised method (by size
    by default): both follow the same path.  The final basis is refined once with the
    method's own ``B^-1`` and verified against the original data; if that
    fails, it is re-solved by LU (:func:`refine_and_verify`) and verified
    again.  Status 3 (numerical) replaces 0 when the verified residual is
    above ``opts.verify_tol`` or not a number.  With no pivot (``q~ >= 0``)
    the answer ``z = 0`` is checked against the original ``q`` too (an
    underflowed ``q~`` is not a solution).  ``z, w = M z + q`` are filled on
    exit.
    """
    n = q.shape[0]
    qs = work.qs
    for i in range(n):
        qs[i] = lcp.row_scale[i] * q[i]
    tableau = uses_tableau(opts.method, n)
    if tableau:
        status, pivots = lemke_kernel(lcp.Ms, qs, d, opts, work.T, work.basis, z)
    else:
        status, pivots = revised_lemke_kernel(lcp.MsT, qs, d, opts, work, z)
    if pivots == 0:
        ok = True
        for i in range(n):
            z[i] = 0.0
            w[i] = q[i]
            if not q[i] >= 0.0:
                ok = False
        return (SOLVED, 0, 0.0) if ok else (NUMERICAL, 0, np.inf)
    if status != SOLVED:
        return status, pivots, np.inf
    if tableau:
        tableau_refine(lcp.MsT, qs, d, work.T, work.basis, work.r)
        res = verify_tableau(lcp.MT, q, work.T, work.basis, z, w, lcp.row_scale, lcp.col_scale)
    else:
        revised_refine(lcp.MsT, qs, d, work)
        res = verify_basic(lcp.MT, q, work.x, work.basis, z, w, lcp.row_scale, lcp.col_scale)
    if res <= opts.verify_tol:
        return status, pivots, res
    if tableau:  # the LU factors in the tableau's own columns
        T = work.T
        F, dx, x = T[:, n:2 * n], T[:, 2 * n], T[:, 2 * n + 1]
    else:  # in the folded inverse's n x n store, spent by now: no tableau needed (reach.kernels.device trims it)
        F, dx, x = work.binv, work.col, work.x
    res = refine_and_verify(lcp, q, qs, d, F, dx, x, work.basis, z, w)  # one call site: one copy of its code
    if not res <= opts.verify_tol:
        status = NUMERICAL
    return status, pivots, res
