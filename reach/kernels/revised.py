"""Lemke's method in revised form: the product form of the basis inverse, no tableau.

The tableau of :func:`reach.kernels.lcp.lemke_kernel` carries ``B^-1 [I, -M, -d,
q]``, all ``2n + 2`` columns, through every pivot: ``O(n^2)`` work a pivot,
although a pivot needs one column (the entering variable's), the basic values
and, on a ratio tie, two rows of ``B^-1``.  Here ``B^-1`` is kept as a product
of eta matrices, one per pivot (Dantzig & Orchard-Hays' product form; Chvátal,
*Linear Programming*, ch. 24):

    B^-1 = E_k ... E_1 B0^-1,     E_t = I + (eta_t - e_r) e_r^T

and the entering column is computed when it is needed (*FTRAN*: ``B^-1 a`` is
the original column through the etas), ``O(n k)`` for ``k`` pivots so far.
A Routh-step path takes ``k`` of about ``n / 2`` pivots, so a whole solve costs
about ``n k^2 / 2`` instead of ``2 n^2 k`` multiply-adds.  When the etas number
``n``, they are folded into an explicit ``B0^-1`` (then a pivot costs ``n^2``,
still half a tableau pivot).

The path is the tableau's: the same covering vector, ratio test, lexicographic
tie-breaking (the rows of ``B^-1`` come from *BTRAN*, ``e_i^T B^-1``), z0
preference on ties, degenerate exit and clearing of negative rounding noise in
the basic values.  Each FTRAN applies a pivot's eta to a column with the same
floating-point operations the tableau applies to that column, so the values
agree bit for bit, except for a variable that left the basis and re-enters
(the tableau's column was an exact unit vector when it left).

Kernels only; the work arrays are those of :class:`reach.kernels.lcp.LemkeWork`
(``etas``, ``eta_row``, ``eta_inv``, ``x``, ``col``, ``ratio``, ``row_a``, ``row_b``, ``nz``,
``binv``, ``meta``: eta count and whether ``binv`` holds a folded inverse).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from reach.kernels.verify import basic_residual

__all__ = ["revised_lemke_kernel", "ftran", "btran", "revised_refine", "lex_smaller"]


@nb.njit(cache=True, inline="always")
def _apply_etas(work, col):
    """``col <- E_k ... E_1 col`` (the etas of the pivots so far, oldest first)."""
    n = col.shape[0]
    for t in range(work.meta[0]):
        r = work.eta_row[t]
        xr = col[r]
        if xr == 0.0:
            continue
        xr *= work.eta_inv[t]
        etas = work.etas  # indexed in 2-D: a row view would cost a reference count per eta
        for i in range(n):
            col[i] -= etas[t, i] * xr
        col[r] = xr


@nb.njit(cache=True, inline="always")
def ftran(work, col):
    """``col <- B^-1 col``: the folded inverse (if any), then the etas."""
    n = col.shape[0]
    if work.meta[1]:
        tmp = work.r
        for i in range(n):
            tmp[i] = col[i]
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += work.binv[i, j] * tmp[j]
            col[i] = acc
    _apply_etas(work, col)


@nb.njit(cache=True, inline="always")
def _listed(nz, count, r):
    """Whether ``r`` is among the first ``count`` entries of ``nz``."""
    for c in range(count):
        if nz[c] == r:
            return True
    return False


@nb.njit(cache=True, inline="always")
def btran(work, i, y):
    """``y <- e_i^T B^-1``: row ``i`` of the basis inverse (the newest eta first).

    Each eta changes one entry of ``y`` (its pivot row), so ``y`` has at most
    one nonzero more per eta: the dot products run over the list of nonzeros
    (``work.nz``), ``O(k^2)`` for ``k`` etas instead of ``O(n k)``.
    """
    n = y.shape[0]
    for j in range(n):
        y[j] = 0.0
    y[i] = 1.0
    nz = work.nz
    count = 1
    nz[0] = i
    etas = work.etas  # indexed in 2-D: a row view would cost a reference count per eta
    for t in range(work.meta[0] - 1, -1, -1):
        r = work.eta_row[t]
        acc = 0.0
        for c in range(count):
            j = nz[c]
            if j != r:
                acc += y[j] * etas[t, j]
        if y[r] == 0.0 and acc != 0.0 and not _listed(nz, count, r):
            nz[count] = r
            count += 1
        y[r] = (y[r] - acc) * work.eta_inv[t]
    if work.meta[1]:
        tmp = work.r
        for j in range(n):
            tmp[j] = y[j]
        for j in range(n):
            acc = 0.0
            for c in range(count):
                k = nz[c]
                acc += tmp[k] * work.binv[k, j]
            y[j] = acc


@nb.njit(cache=True, inline="always")
def _fold(work):
    """Fold the etas into the explicit inverse ``binv`` and clear them."""
    n = work.x.shape[0]
    col = work.row_a  # scratch: work.col holds the entering column
    for j in range(n):
        for i in range(n):
            col[i] = work.binv[i, j] if work.meta[1] else (1.0 if i == j else 0.0)
        _apply_etas(work, col)
        for i in range(n):
            work.binv[i, j] = col[i]
    work.meta[0] = 0
    work.meta[1] = 1


@nb.njit(cache=True, inline="always")
def _pivot(work, r):
    """Pivot on row ``r`` of the entering column in ``work.col``: record its eta, update the basic values."""
    n = work.x.shape[0]
    if work.meta[0] == work.etas.shape[0]:
        _fold(work)
    t = work.meta[0]
    col, x = work.col, work.x
    inv = 1.0 / col[r]
    for i in range(n):
        work.etas[t, i] = col[i]
    work.eta_row[t] = r
    work.eta_inv[t] = inv
    work.meta[0] = t + 1
    xr = x[r] * inv
    for i in range(n):  # row r too (branch-free, so the loop vectorizes): it is overwritten below
        y = x[i] - col[i] * xr
        x[i] = 0.0 if y < 0.0 else y  # clears rounding noise below zero (see lcp._clamp_rhs); NaN stays
    x[r] = xr if xr > 0.0 else 0.0


@nb.njit(cache=True, inline="always")
def lex_smaller(yi, a, yc, ac, tie_tol):
    """Whether row ``yi`` of ``B^-1`` / ``a`` is lexicographically below row ``yc`` / ``ac``.

    Entries within ``tie_tol`` (relative) count as equal.  The tie-break of
    both Lemke forms (the tableau passes its rows of ``B^-1``).
    """
    for j in range(yi.shape[0]):
        x = yi[j] / a
        y = yc[j] / ac
        scale = max(abs(x), abs(y))
        if x < y - tie_tol * scale:
            return True
        if x > y + tie_tol * scale:
            return False
    return False


@nb.njit(cache=True, inline="always")
def _ratio_test(work, sign, basis, z0_index, sigma, pivot_tol, tie_tol):
    """The row leaving for the entering column ``work.col`` (or -1: a ray); as the tableau's ratio test.

    Each candidate's ratio is computed once, into ``work.ratio`` (infinite
    for rows that are not candidates): one division a row, in a loop that
    vectorizes, instead of two in branches (12 % of a quadruped solve).
    """
    col, x, ratio = work.col, work.x, work.ratio
    n = x.shape[0]
    colmax = 0.0
    for i in range(n):
        colmax = max(colmax, abs(col[i]))
    threshold = pivot_tol * max(colmax, 1e-300)
    for i in range(n):
        a = sign * col[i]
        ratio[i] = x[i] / a if a > threshold else np.inf
    best = np.inf
    for i in range(n):
        best = min(best, ratio[i])
    if best == np.inf:
        return -1
    limit = best + tie_tol * (abs(best) + sigma)
    chosen = -1
    have_row = False  # work.row_b holds row ``chosen`` of B^-1 (computed on the first tie only)
    for i in range(n):
        if ratio[i] <= limit:
            if basis[i] == z0_index:
                return i
            if chosen < 0:
                chosen = i
                continue
            if not have_row:
                btran(work, chosen, work.row_b)
                have_row = True
            btran(work, i, work.row_a)
            if lex_smaller(work.row_a, sign * col[i], work.row_b, sign * col[chosen], tie_tol):
                chosen = i
                work.row_b[:] = work.row_a
    return chosen


@nb.njit(cache=True, inline="always")
def _load_column(Ms, d, var, col):
    """The original column of a variable: ``e_i`` for ``w_i``, ``-Ms[:, j]`` for ``z_j``, ``-d`` for z0."""
    n = col.shape[0]
    for i in range(n):
        if var < n:
            col[i] = 1.0 if i == var else 0.0
        elif var < 2 * n:
            col[i] = -Ms[i, var - n]
        else:
            col[i] = -d[i]


@nb.njit(cache=True, inline="always")
def _degenerate_exit(work, basis, r, z0, zero, pivot_tol):
    """The tableau's degenerate exit: with z0 basic at zero, pivot it out on an entry of either sign.

    Returns the row to pivot on, ``r`` unchanged, or -2 (the point is a solution as it stands).
    """
    col, x = work.col, work.x
    n = x.shape[0]
    for i in range(n):
        if basis[i] == z0 and x[i] <= zero:
            colmax = 0.0
            for k in range(n):
                colmax = max(colmax, abs(col[k]))
            if abs(col[i]) > pivot_tol * colmax:
                return i
            return -2 if r < 0 else r
    return r


@nb.njit(cache=True)
def revised_lemke_kernel(Ms, qs, d, opts, work, z):
    """Lemke's algorithm on ``LCP(Ms, qs)`` with covering vector ``d``, in revised form; no allocation.

    Same contract as :func:`reach.kernels.lcp.lemke_kernel` (status 0 solved,
    not yet verified; 1 ray; 2 pivot limit; and the pivots), with the final
    basis in ``work.basis`` and its basic values in ``work.x``.
    """
    n = qs.shape[0]
    z0 = 2 * n
    basis, x = work.basis, work.x
    work.meta[0] = 0
    work.meta[1] = 0
    sigma = 0.0
    for i in range(n):
        sigma = max(sigma, -qs[i])
        basis[i] = i
        x[i] = qs[i]
        z[i] = 0.0
    if not sigma > 0.0:
        return 0, 0
    _load_column(Ms, d, z0, work.col)
    r = _ratio_test(work, -1.0, basis, -1, sigma, opts.pivot_tol, opts.tie_tol)
    _pivot(work, r)   # z0 enters on a negative entry: x_r = q_r / -d_r > 0
    leaving = basis[r]
    basis[r] = z0
    entering = leaving + n
    pivots = 1
    status = 2
    zero = opts.zero_tol * sigma
    while pivots < opts.max_pivots:
        _load_column(Ms, d, entering, work.col)
        ftran(work, work.col)
        r = _ratio_test(work, 1.0, basis, z0, sigma, opts.pivot_tol, opts.tie_tol)
        if r < 0 or x[r] > zero:
            r = _degenerate_exit(work, basis, r, z0, zero, opts.pivot_tol)
        if r == -2:
            status = 0
            break
        if r < 0:
            status = 1
            break
        _pivot(work, r)
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = x[i]
    return status, pivots


@nb.njit(cache=True)
def revised_refine(Ms, qs, d, work):
    """One step of iterative refinement of the basic values: ``x += B^-1 (qs - B x)``."""
    r = work.row_a
    basic_residual(Ms, qs, d, work.x, work.basis, r)
    ftran(work, r)
    for i in range(r.shape[0]):
        work.x[i] += r[i]
