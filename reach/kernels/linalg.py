"""Small dense linear algebra shared by the kernels: Gaussian elimination and Gauss-Jordan inversion.

Both pivot the same way (:func:`pivot_row`): partial pivoting, and a pivot
no larger than ``1e-12`` of the matrix's largest entry counts as singular.
Contact-mode pieces (:mod:`reach.kernels.modes`), planar steps solved on a
piece (:mod:`reach.kernels.planar`) and basis enumeration
(:mod:`reach.kernels.enumeration`) use them on systems of at most a few
dozen unknowns.
"""

from __future__ import annotations

from reach.kernels.jit import kernel

__all__ = ["max_abs", "pivot_row", "solve_dense", "invert"]


@kernel
def max_abs(A, k):
    """The largest ``|A[i, j]|`` of the leading ``k x k`` block."""
    scale = 0.0
    for i in range(k):
        for j in range(k):
            scale = max(scale, abs(A[i, j]))
    return scale


@kernel
def pivot_row(A, col, k, scale):
    """The row ``p >= col`` of the largest ``|A[p, col]|``, or -1 when that is at most ``1e-12 scale`` (singular)."""
    p = col
    big = abs(A[col, col])
    for r in range(col + 1, k):
        if abs(A[r, col]) > big:
            big = abs(A[r, col])
            p = r
    if big <= 1e-12 * scale or big == 0.0:
        return -1
    return p


@kernel
def solve_dense(A, b, x, k):
    """Solve ``A[:k, :k] x = b[:k]`` in place by Gaussian elimination with partial pivoting; False if singular."""
    scale = max_abs(A, k)
    for col in range(k):
        p = pivot_row(A, col, k, scale)
        if p < 0:
            return False
        if p != col:
            for c in range(k):
                A[col, c], A[p, c] = A[p, c], A[col, c]
            b[col], b[p] = b[p], b[col]
        for r in range(col + 1, k):
            f = A[r, col] / A[col, col]
            if f != 0.0:
                for c in range(col, k):
                    A[r, c] -= f * A[col, c]
                b[r] -= f * b[col]
    for r in range(k - 1, -1, -1):
        acc = b[r]
        for c in range(r + 1, k):
            acc -= A[r, c] * x[c]
        x[r] = acc / A[r, r]
    return True


@kernel
def invert(A, inv, k):
    """``inv = A[:k, :k]^-1`` by Gauss-Jordan with partial pivoting (A is overwritten); returns det's sign, 0 if singular."""
    scale = max_abs(A, k)
    for i in range(k):
        for j in range(k):
            inv[i, j] = 1.0 if i == j else 0.0
    sign = 1
    for col in range(k):
        p = pivot_row(A, col, k, scale)
        if p < 0:
            return 0
        if p != col:
            sign = -sign
            for c in range(k):
                A[col, c], A[p, c] = A[p, c], A[col, c]
                inv[col, c], inv[p, c] = inv[p, c], inv[col, c]
        if A[col, col] < 0.0:
            sign = -sign
        f = 1.0 / A[col, col]
        for c in range(k):
            A[col, c] *= f
            inv[col, c] *= f
        for r in range(k):
            if r != col:
                g = A[r, col]
                if g != 0.0:
                    for c in range(k):
                        A[r, c] -= g * A[col, c]
                        inv[r, c] -= g * inv[col, c]
    return sign
