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

import numpy as np

from reach.kernels.jit import kernel
from reach.kernels.verify import basic_residual

__all__ = ["revised_lemke_kernel", "ftran", "btran", "revised_refine", "lex_smaller", "ratio_test", "fold_etas", "degenerate_exit"]


@kernel(inline="always")
def _apply_etas(etas, eta_row, eta_inv, count, col):
    """``col <- E_count ... E_1 col`` (the first ``count`` etas, oldest first).

    Two etas at a time where they can be: one pass over ``col`` instead of
    two, with each entry's operations in the same order (so the same bits).
    The second eta's multiplier is the entry of its row after the first
    eta; rows ``r`` and ``s`` are then set as one eta after the other would.
    The quadruped's bare Lemke took 8.6 µs a step instead of 9.1.
    """
    n = col.shape[0]
    t = 0
    while t < count:
        r = eta_row[t]
        xr = col[r]
        if xr == 0.0:
            t += 1
            continue
        xr *= eta_inv[t]
        if t + 1 < count and eta_row[t + 1] != r:
            s = eta_row[t + 1]
            xs = col[s] - etas[t, s] * xr
            if xs != 0.0:
                xs *= eta_inv[t + 1]
                for i in range(n):
                    col[i] = (col[i] - etas[t, i] * xr) - etas[t + 1, i] * xs
                col[r] = xr - etas[t + 1, r] * xs
                col[s] = xs
                t += 2
                continue
        for i in range(n):
            col[i] -= etas[t, i] * xr
        col[r] = xr
        t += 1


@kernel(inline="always")
def _ftran(etas, eta_row, eta_inv, count, binv, folded, tmp, col):
    """``col <- B^-1 col``: the folded inverse ``binv`` (if ``folded``), then the etas."""
    n = col.shape[0]
    if folded:
        for i in range(n):
            tmp[i] = col[i]
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += binv[i, j] * tmp[j]
            col[i] = acc
    _apply_etas(etas, eta_row, eta_inv, count, col)


@kernel
def ftran(work, col):
    """``col <- B^-1 col`` for the basis recorded in ``work`` (its folded inverse, if any, then its etas)."""
    _ftran(work.etas, work.eta_row, work.eta_inv, work.meta[0], work.binv, work.meta[1] != 0, work.r, col)


@kernel(inline="always")
def _listed(nz, count, r):
    """Whether ``r`` is among the first ``count`` entries of ``nz``."""
    for c in range(count):
        if nz[c] == r:
            return True
    return False


@kernel(inline="always")
def _btran(file, i, y):
    """``y <- e_i^T B^-1``: row ``i`` of the basis inverse (the newest eta first).

    ``file`` is the eta file, ``(etas, eta_row, eta_inv, count, binv, folded,
    tmp, nz)``: the ``count`` etas since the last fold, the folded inverse
    ``binv`` (if ``folded``), and scratch ``tmp`` and ``nz``.
    Each eta changes one entry of ``y`` (its pivot row), so ``y`` has at most
    one nonzero more per eta: the dot products run over the list of nonzeros
    (``nz``), ``O(k^2)`` for ``k`` etas instead of ``O(n k)``.
    """
    etas, eta_row, eta_inv, count, binv, folded, tmp, nz = file
    n = y.shape[0]
    for j in range(n):
        y[j] = 0.0
    y[i] = 1.0
    count_nz = 1
    nz[0] = i
    for t in range(count - 1, -1, -1):
        r = eta_row[t]
        acc = 0.0
        for c in range(count_nz):
            j = nz[c]
            if j != r:
                acc += y[j] * etas[t, j]
        if y[r] == 0.0 and acc != 0.0 and not _listed(nz, count_nz, r):
            nz[count_nz] = r
            count_nz += 1
        y[r] = (y[r] - acc) * eta_inv[t]
    if folded:
        for j in range(n):
            tmp[j] = y[j]
        for j in range(n):
            acc = 0.0
            for c in range(count_nz):
                k = nz[c]
                acc += tmp[k] * binv[k, j]
            y[j] = acc


@kernel
def btran(work, i, y):
    """``y <- e_i^T B^-1``: row ``i`` of the inverse of the basis recorded in ``work``."""
    _btran((work.etas, work.eta_row, work.eta_inv, work.meta[0], work.binv, work.meta[1] != 0, work.r, work.nz), i, y)


@kernel(inline="always")
def fold_etas(etas, eta_row, eta_inv, count, binv, folded, scratch):
    """Fold the first ``count`` etas into the explicit inverse ``binv`` (the identity before, unless ``folded``)."""
    n = scratch.shape[0]
    for j in range(n):
        for i in range(n):
            scratch[i] = binv[i, j] if folded else (1.0 if i == j else 0.0)
        _apply_etas(etas, eta_row, eta_inv, count, scratch)
        for i in range(n):
            binv[i, j] = scratch[i]


@kernel(inline="always")
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


@kernel(inline="always")
def _abs_max(a):
    """``max_i |a_i|`` over the entries that are not NaN (0 for an empty or all-NaN ``a``).

    Four running maxima, not one: a single one is a chain of dependent
    compare-and-selects, which LLVM does not vectorize without fast-math
    (whose NaN rules would change the answer).  The result is the same in
    any order.  With :func:`_least`, the quadruped's bare Lemke took 9.0 µs
    a step instead of 10.0.
    """
    n = a.shape[0]
    b0 = b1 = b2 = b3 = 0.0
    i = 0
    while i + 4 <= n:
        b0 = max(b0, abs(a[i]))
        b1 = max(b1, abs(a[i + 1]))
        b2 = max(b2, abs(a[i + 2]))
        b3 = max(b3, abs(a[i + 3]))
        i += 4
    while i < n:
        b0 = max(b0, abs(a[i]))
        i += 1
    return max(max(b0, b1), max(b2, b3))


@kernel(inline="always")
def _least(a):
    """``min_i a_i`` over the entries that are not NaN (infinite if none); four running minima, as :func:`_abs_max`."""
    n = a.shape[0]
    m0 = m1 = m2 = m3 = np.inf
    i = 0
    while i + 4 <= n:
        m0 = min(m0, a[i])
        m1 = min(m1, a[i + 1])
        m2 = min(m2, a[i + 2])
        m3 = min(m3, a[i + 3])
        i += 4
    while i < n:
        m0 = min(m0, a[i])
        i += 1
    return min(min(m0, m1), min(m2, m3))


@kernel(inline="always")
def ratio_test(col, x, ratio, basis, sign, z0_index, tols, file, rows):
    """The row leaving for the entering column ``col`` (-1: a ray), and ``max |col|``; the tableau's ratio test.

    ``tols`` is ``(sigma, pivot_tol, tie_tol)``; ``file`` the eta file (see
    :func:`_btran`); ``rows`` two scratch rows of ``B^-1``.

    Candidates have ``sign * col[i]`` above the pivot threshold; each one's
    ratio is computed once, into ``ratio`` (infinite for the others), in a
    loop that vectorizes.  Among the rows tying the minimum, z0's row is
    chosen if present, else the lexicographic minimum of the rows of
    ``B^-1`` (BTRAN, on the first tie only) divided by their entries.
    """
    sigma, pivot_tol, tie_tol = tols
    row_a, row_b = rows
    n = x.shape[0]
    colmax = _abs_max(col)
    threshold = pivot_tol * max(colmax, 1e-300)
    for i in range(n):
        a = sign * col[i]
        ratio[i] = x[i] / a if a > threshold else np.inf
    best = _least(ratio)
    if best == np.inf:
        return -1, colmax
    limit = best + tie_tol * (abs(best) + sigma)
    chosen = -1
    have_row = False  # row_b holds row ``chosen`` of B^-1
    for i in range(n):
        if ratio[i] <= limit:
            if basis[i] == z0_index:
                return i, colmax
            if chosen < 0:
                chosen = i
                continue
            if not have_row:
                _btran(file, chosen, row_b)
                have_row = True
            _btran(file, i, row_a)
            if lex_smaller(row_a, sign * col[i], row_b, sign * col[chosen], tie_tol):
                chosen = i
                for j in range(row_a.shape[0]):
                    row_b[j] = row_a[j]
    return chosen, colmax


@kernel(inline="always")
def degenerate_exit(basis, x, col, z0, zero, threshold, r):
    """The row to pivot on where the ratio test gave ``r`` (a ray, or a row above ``zero``) after the first pivot.

    With z0 basic at zero the point is already complementary: pivot z0 out
    on an entry of either sign above ``threshold`` (its row), or stop where it
    stands (-2); else ``r`` stands (see :func:`reach.kernels.lcp.follow_path`).
    """
    for i in range(x.shape[0]):
        if basis[i] == z0 and x[i] <= zero:
            if abs(col[i]) > threshold:
                return i
            return -2 if r < 0 else r
    return r


@kernel(inline="always")
def _pivot(col, x, r, etas, eta_row, eta_inv, t):
    """Pivot on row ``r`` of the entering column ``col``: record it as eta ``t``, update the basic values ``x``."""
    n = x.shape[0]
    inv = 1.0 / col[r]
    for i in range(n):
        etas[t, i] = col[i]
    eta_row[t] = r
    eta_inv[t] = inv
    xr = x[r] * inv
    for i in range(n):  # row r too (branch-free, so the loop vectorizes): it is overwritten below
        y = x[i] - col[i] * xr
        x[i] = 0.0 if y < 0.0 else y  # clears rounding noise below zero (see lcp._clamp_rhs); NaN stays
    x[r] = xr if xr > 0.0 else 0.0


@kernel(inline="always")
def _load_column(MsT, d, var, col):
    """The original column of a variable: ``e_i`` for ``w_i``, ``-Ms[:, j]`` (row ``j`` of ``MsT``) for ``z_j``, ``-d`` for z0."""
    n = col.shape[0]
    if var < n:
        for i in range(n):
            col[i] = 0.0
        col[var] = 1.0
    elif var < 2 * n:
        j = var - n
        for i in range(n):
            col[i] = -MsT[j, i]
    else:
        for i in range(n):
            col[i] = -d[i]


@kernel
def revised_lemke_kernel(MsT, qs, d, opts, work, z):
    """Lemke's algorithm on ``LCP(Ms, qs)`` with covering vector ``d``, in revised form; no allocation.

    ``MsT`` is the transpose of ``Ms`` (contiguous): the method reads ``Ms`` by
    column (:class:`reach.kernels.lcp.ScaledLCP`).

    Same contract as :func:`reach.kernels.lcp.lemke_kernel` (status 0 solved,
    not yet verified; 1 ray; 2 pivot limit; and the pivots), with the final
    basis in ``work.basis``, its basic values in ``work.x`` and its inverse
    in ``work`` (etas, and ``binv`` if folded: ``work.meta``).

    The work arrays are taken out of ``work`` once, into local names, and
    the loop's helpers (inlined) get arrays, not the tuple: reading a
    tuple's field in the inner loops cost a fifth of a quadruped solve.
    """
    n = qs.shape[0]
    z0 = 2 * n
    basis, x, col, ratio = work.basis, work.x, work.col, work.ratio
    etas, eta_row, eta_inv, binv, tmp = work.etas, work.eta_row, work.eta_inv, work.binv, work.r
    nz, row_a, row_b = work.nz, work.row_a, work.row_b
    pivot_tol, tie_tol = opts.pivot_tol, opts.tie_tol
    count = 0        # etas recorded since the last fold
    folded = False   # whether binv holds the inverse the etas start from
    sigma = 0.0
    for i in range(n):
        sigma = max(sigma, -qs[i])
        basis[i] = i
        x[i] = qs[i]
        z[i] = 0.0
    work.meta[0] = 0
    work.meta[1] = 0
    if not sigma > 0.0:
        return 0, 0
    zero = opts.zero_tol * sigma
    entering = z0
    sign = -1.0       # z0 enters on a negative entry (x_r = q_r / -d_r > 0); then on positive ones
    z0_index = -1     # z0 is not basic before its first pivot
    pivots = 0
    status = 2
    while pivots < opts.max_pivots:
        _load_column(MsT, d, entering, col)
        _ftran(etas, eta_row, eta_inv, count, binv, folded, tmp, col)
        r, colmax = ratio_test(col, x, ratio, basis, sign, z0_index, (sigma, pivot_tol, tie_tol),
                                (etas, eta_row, eta_inv, count, binv, folded, tmp, nz), (row_a, row_b))
        if pivots > 0 and (r < 0 or x[r] > zero):
            r = degenerate_exit(basis, x, col, z0, zero, pivot_tol * colmax, r)
        if r == -2:
            status = 0
            break
        if r < 0:
            status = 1
            break
        if count == etas.shape[0]:  # the eta store is full: fold it into binv
            fold_etas(etas, eta_row, eta_inv, count, binv, folded, row_a)
            count = 0
            folded = True
        _pivot(col, x, r, etas, eta_row, eta_inv, count)
        count += 1
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
        sign = 1.0
        z0_index = z0
    work.meta[0] = count
    work.meta[1] = 1 if folded else 0
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = x[i]
    return status, pivots


@kernel
def revised_refine(MsT, qs, d, work):
    """One step of iterative refinement of the basic values: ``x += B^-1 (qs - B x)`` (``MsT``: ``Ms`` transposed)."""
    r = work.row_a
    basic_residual(MsT, qs, d, work.x, work.basis, r)
    ftran(work, r)
    for i in range(r.shape[0]):
        work.x[i] += r[i]
