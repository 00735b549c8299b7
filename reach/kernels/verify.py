"""Verification of LCP answers: residuals, refinement and re-solution of a final basis.

Every answer of :func:`reach.problem.lcp.lemke` is checked here against the original
data.  The residual is the natural residual ``max_i |min(z_i, w_i)|`` taken in
the equilibrated units of the problem (the Ruiz scaling under which rows and
columns of M have unit size) and relative to ``q``.  A final basis is first
refined with the tableau's own ``B^-1``; if the answer does not verify it is
re-solved by LU with partial pivoting and iterative refinement.

Kernels only: contiguous arrays in, status numbers out, no allocation.
"""

from __future__ import annotations

import math
import numpy as np

from reach.kernels.jit import kernel

#: Lower bound of the residual's scale, relative to max|q~| (see :func:`residual_kernel`).
ROUNDING_FLOOR = 1e-7

__all__ = ["ROUNDING_FLOOR", "residual_kernel", "clip_and_measure", "basic_residual", "tableau_refine",
           "verify_tableau", "verify_basic", "refine_and_verify"]


@kernel
def basic_residual(MsT, qs, d, x, basis, r):
    """``r = qs - B x`` for the basic values ``x`` (``x[c]``: the c-th basic variable, ``basis[c]``).

    ``B`` has column ``e_i`` for a basic ``w_i``, ``-Ms[:, j]`` (row ``j`` of
    the transpose ``MsT``) for a basic ``z_j`` and ``-d`` for a basic z0.
    """
    n = qs.shape[0]
    for i in range(n):
        r[i] = qs[i]
    for c in range(n):
        xc = x[c]
        if xc == 0.0:
            continue
        b = basis[c]
        if b < n:
            r[b] -= xc
        elif b < 2 * n:
            j = b - n
            for i in range(n):
                r[i] += MsT[j, i] * xc
        else:
            for i in range(n):
                r[i] += d[i] * xc


@kernel
def residual_kernel(q, z, w, worst_negative, row_scale, col_scale):
    """Relative natural residual of ``z >= 0`` with ``w = M z + q``, in equilibrated units.

    With ``z~ = z / c``, ``w~ = r w`` and ``q~ = r q`` (the Ruiz scaling that
    makes the rows and columns of ``diag(r) M diag(c)`` of unit size), let
    ``sigma = max_i(-q~_i)``, the largest violation ``z = 0`` leaves (the
    scale of Lemke's artificial variable), but at least ``ROUNDING_FLOOR
    max|q~|``: rounding makes every answer uncertain by about 1e-16 of the
    largest entry, and the floor keeps that noise below the tolerance while a
    real violation (far above 1e-16 of the largest entry) still shows.  Each row is measured against its
    own scale: ``z~_i`` against ``sigma`` and ``w~_i`` against
    ``max(|q~_i|, sigma)``, and the residual is::

        max_i |min(z~_i / sigma, w~_i / max(|q~_i|, sigma))|

    together with ``worst_negative`` (the most negative ``z~_j`` before
    clipping) over ``sigma``.  Per-row scales matter: a huge entry of ``q``
    (a normal-impulse cap far above what the contact can take) must not make
    a closing contact's violation of its own row look small, and a wrong
    basis with one huge entry of z must not make every other violation look
    small.  NaN or inf anywhere gives ``inf``.
    """
    n = q.shape[0]
    sigma = 0.0
    big = 0.0
    for i in range(n):
        qi = row_scale[i] * q[i]
        if -qi > sigma:
            sigma = -qi
        if abs(qi) > big:
            big = abs(qi)
    sigma = max(sigma, ROUNDING_FLOOR * big)
    if sigma == 0.0:
        sigma = 1e-300
    res = -worst_negative / sigma if worst_negative < 0.0 else 0.0
    finite = True
    for i in range(n):  # no early exit, a branch less; a NaN or inf anywhere still gives inf
        zt = z[i] / col_scale[i] / sigma
        wt = row_scale[i] * w[i] / max(abs(row_scale[i] * q[i]), sigma)
        finite &= math.isfinite(zt) & math.isfinite(wt)
        c = abs(min(zt, wt))
        res = max(res, c)
    if not (finite and math.isfinite(res)):
        return np.inf
    return res


@kernel
def _basis_solve(MsT, qs, d, F, dx, x, basis, perm, r):
    """Re-solve the final basis from the equilibrated data by LU with partial pivoting.

    ``B`` has column ``e_i`` for a basic ``w_i``, ``-Ms[:, j]`` (row ``j`` of
    the transpose ``MsT``) for a basic ``z_j`` and ``-d`` for a basic z0 (the degenerate exit).  Its LU
    factors fill ``F[:n, :n]``; the basic values land in ``x`` (entry c: the
    c-th basic variable), through corrections ``dx``.  Two steps of iterative
    refinement follow.  ``perm, r`` are n-vectors of workspace.  Returns False
    (``x`` kept) if ``B`` is singular.  The tableau passes views of its own
    columns (``F = T[:, n:2n]``, ``dx = T[:, 2n]``, ``x = T[:, 2n + 1]``), the
    revised method its folded inverse's store and vectors, so it needs no tableau.
    """
    n = qs.shape[0]
    for c in range(n):
        b = basis[c]
        for i in range(n):
            if b < n:
                F[i, c] = 1.0 if i == b else 0.0
            elif b < 2 * n:
                F[i, c] = -MsT[b - n, i]
            else:
                F[i, c] = -d[i]
    big = 0.0
    for i in range(n):
        for c in range(n):
            big = max(big, abs(F[i, c]))
    for col in range(n):
        p = col
        piv = abs(F[col, col])
        for k in range(col + 1, n):
            if abs(F[k, col]) > piv:
                piv = abs(F[k, col])
                p = k
        perm[col] = p
        if piv <= 1e-14 * big:
            return False
        if p != col:
            for c in range(n):
                tmp = F[col, c]
                F[col, c] = F[p, c]
                F[p, c] = tmp
        for k in range(col + 1, n):
            f = F[k, col] / F[col, col]
            F[k, col] = f
            if f != 0.0:
                for c in range(col + 1, n):
                    F[k, c] -= f * F[col, c]
    for i in range(n):
        x[i] = 0.0
    for it in range(3):
        basic_residual(MsT, qs, d, x, basis, r)  # zero x on the first pass
        # solve B dx = r with the stored factors
        for col in range(n):             # P r (the factor rows were swapped whole)
            p = int(perm[col])
            if p != col:
                tmp = r[col]
                r[col] = r[p]
                r[p] = tmp
        for col in range(n):             # L y = P r
            for k in range(col + 1, n):
                r[k] -= F[k, col] * r[col]
        for k in range(n - 1, -1, -1):
            acc = r[k]
            for c in range(k + 1, n):
                acc -= F[k, c] * dx[c]
            dx[k] = acc / F[k, k]
        for c in range(n):
            x[c] += dx[c]
    return True


@kernel
def refine_and_verify(lcp, q, qs, d, F, dx, x, basis, z, w):
    """Re-solve the final basis against the data, map back to the original space, verify.

    ``lcp`` is a :class:`reach.kernels.lcp.ScaledLCP`: ``Ms = R M C`` and
    ``qs = R q`` are the equilibrated data the final basis ``basis`` was
    reached on, with basic values ``x``; ``MT`` and ``MsT`` are the
    transposes of ``M`` and ``Ms``.  The basic system is solved
    afresh by LU (:func:`_basis_solve`, its factors in ``F``; the values ``x`` are kept
    only if that basis is singular).  Then ``z = C z_scaled`` is checked
    against the original ``M, q``: negatives are clipped to zero and the
    dimensionless residual of :func:`residual_kernel` is returned; ``w = M z
    + q`` on exit.
    """
    _basis_solve(lcp.MsT, qs, d, F, dx, x, basis, z, w)
    return verify_basic(lcp.MT, q, x, basis, z, w, lcp.row_scale, lcp.col_scale)


@kernel
def tableau_refine(MsT, qs, d, T, basis, r):
    """One step of iterative refinement of the basic values with the tableau's own ``B^-1``.

    The tableau's first n columns hold ``B^-1`` (row c belongs to the c-th basic
    variable); the residual ``qs - B x`` is recomputed from the equilibrated data.
    """
    n = qs.shape[0]
    rhs = 2 * n + 1
    basic_residual(MsT, qs, d, T[:, rhs], basis, r)
    for c in range(n):
        acc = 0.0
        row = T[c]
        for i in range(n):
            acc += row[i] * r[i]
        T[c, rhs] += acc


@kernel
def clip_and_measure(MT, q, z, w, row_scale, col_scale):
    """Clip ``z`` at zero, fill ``w = M z + q`` (``MT`` is the transpose of ``M``), return :func:`residual_kernel`'s residual.

    ``w`` is built as ``q`` plus the rows of ``MT`` times ``z``, ``j`` = 0, 1, ...:
    each entry's sum is taken in the order of a row-by-row dot product (so
    the same bits), in loops that vectorize.
    """
    n = q.shape[0]
    worst_negative = 0.0
    for j in range(n):
        if z[j] < 0.0:  # only a negative entry can set the worst (a division only there)
            worst_negative = min(worst_negative, z[j] / col_scale[j])
            z[j] = 0.0
    for i in range(n):
        w[i] = q[i]
    for j in range(n):
        zj = z[j]
        if zj == 0.0:  # most of a step's z is zero; its terms would add only zeros (the same bits, up to a zero's sign)
            continue
        for i in range(n):
            w[i] += MT[j, i] * zj
    return residual_kernel(q, z, w, worst_negative, row_scale, col_scale)


@kernel
def verify_tableau(MT, q, T, basis, z, w, row_scale, col_scale):
    """Map the tableau's basic values to the original space, fill ``w = M z + q`` (``MT``: ``M`` transposed), return the residual."""
    return verify_basic(MT, q, T[:, 2 * q.shape[0] + 1], basis, z, w, row_scale, col_scale)


@kernel
def verify_basic(MT, q, x, basis, z, w, row_scale, col_scale):
    """Map basic values ``x`` (equilibrated) to the original space, fill ``w = M z + q`` (``MT``: ``M`` transposed), return the residual."""
    n = q.shape[0]
    for i in range(n):
        z[i] = 0.0
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = x[i] * col_scale[b - n]
    return clip_and_measure(MT, q, z, w, row_scale, col_scale)
