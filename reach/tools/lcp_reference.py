"""A plain NumPy Lemke solver and Routh step: the baseline :mod:`reach.tools.bench` measures against.

This is the same algorithm as :func:`reach.kernels.lcp.solve_scaled` and
:func:`reach.kernels.routh.routh_step_kernel` — a dense tableau ``[I, -Ms, -d, qs]``
on the equilibrated data, covering vector ``d``, lexicographic ratio test
with z0 preferred on ties, rounding noise in the basic values cleared after
each pivot, the degenerate exit when z0 is basic at zero, and a final
re-solve of the basis and residual check against the original data — written
the straightforward way: whole-row NumPy operations, ``np.linalg.solve``, no
Numba, no preallocated buffers.  It exists to give an honest "what a careful
plain implementation costs" figure, and to check that the jitted kernels
return the same solutions.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.lcp import DEFAULT_OPTIONS
from reach.problem.lcp import VERIFY_TOL, lcp_residual

PIVOT_TOL = DEFAULT_OPTIONS.pivot_tol
TIE_TOL = DEFAULT_OPTIONS.tie_tol
ZERO_TOL = DEFAULT_OPTIONS.zero_tol

__all__ = ["lemke_reference", "routh_step_reference"]


def _ratio_test(T, c, sign, basis, z0_index, ratio_scale):
    n = T.shape[0]
    col = sign * T[:, c]
    threshold = PIVOT_TOL * max(np.abs(T[:, c]).max(), 1e-300)
    candidates = np.flatnonzero(col > threshold)
    if candidates.size == 0:
        return -1
    ratios = T[candidates, -1] / col[candidates]
    best = ratios.min()
    tied = candidates[ratios <= best + TIE_TOL * (abs(best) + ratio_scale)]
    if np.any(basis[tied] == z0_index):
        return int(tied[basis[tied] == z0_index][0])
    chosen = int(tied[0])
    for i in tied[1:]:
        x = T[i, :n] / col[i]
        y = T[chosen, :n] / col[chosen]
        scale = np.maximum(np.abs(x), np.abs(y))
        less = x < y - TIE_TOL * scale
        more = x > y + TIE_TOL * scale
        decided = np.flatnonzero(less | more)
        if decided.size and less[decided[0]]:
            chosen = int(i)
    return chosen


def _pivot(T, r, c):
    T[r] *= 1.0 / T[r, c]
    T[r, c] = 1.0
    f = T[:, c].copy()
    f[r] = 0.0
    T -= np.outer(f, T[r])
    T[np.arange(T.shape[0]) != r, c] = 0.0
    np.maximum(T[:, -1], 0.0, out=T[:, -1])


def lemke_reference(M, Ms, q, d, row_scale, col_scale, *, max_pivots=1000):
    """Solve LCP(M, q) by Lemke's method on its equilibrated copy ``Ms = R M C`` (plain NumPy).

    Parameters
    ----------
    M : ndarray, shape (n, n)
        The original matrix (verification is against it).
    Ms : ndarray, shape (n, n)
        ``diag(row_scale) M diag(col_scale)``.
    q : ndarray, shape (n,)
    d : ndarray, shape (n,)
        Positive covering vector (equilibrated coordinates).
    row_scale, col_scale : ndarray, shape (n,)

    Returns
    -------
    z : ndarray, shape (n,)
    status : int
        0 solved and verified, 1 ray, 2 pivot limit, 3 failed verification
        (the codes of :class:`reach.problem.lcp.LCPStatus`).
    pivots : int
    """
    n = q.shape[0]
    qs = row_scale * q
    if qs.min() >= 0.0:
        return np.zeros(n), 0, 0
    qscale = -qs.min()  # sigma: the starting value of z0, the scale of the path's basic values
    T = np.hstack([np.eye(n), -Ms, -d[:, None], qs[:, None]])
    basis = np.arange(n)
    z0 = 2 * n
    r = _ratio_test(T, z0, -1.0, basis, -1, qscale)
    _pivot(T, r, z0)
    entering = basis[r] + n
    basis[r] = z0
    pivots, status = 1, 2
    zero = ZERO_TOL * qscale
    while pivots < max_pivots:
        r = _ratio_test(T, entering, 1.0, basis, z0, qscale)
        if r < 0 or T[r, -1] > zero:
            rows = np.flatnonzero((basis == z0) & (T[:, -1] <= zero))
            if rows.size:
                i = rows[0]
                if abs(T[i, entering]) > PIVOT_TOL * np.abs(T[:, entering]).max():
                    r = i
                elif r < 0:
                    status = 0  # z0 at zero cannot pivot out: the point is a solution already
                    break
        if r < 0:
            status = 1
            break
        _pivot(T, r, entering)
        pivots += 1
        leaving = basis[r]
        basis[r] = entering
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
    if status != 0:
        return np.zeros(n), status, pivots
    # re-solve the final basis from the equilibrated data and verify against the original
    B = np.zeros((n, n))
    for c, b in enumerate(basis):
        B[:, c] = np.eye(n)[:, b] if b < n else (-Ms[:, b - n] if b < 2 * n else -d)
    try:
        x = np.linalg.solve(B, qs)
        x += np.linalg.solve(B, qs - B @ x)
    except np.linalg.LinAlgError:
        x = T[:, -1]
    z = np.zeros(n)
    is_z = (basis >= n) & (basis < 2 * n)
    z[basis[is_z] - n] = x[is_z]
    z *= col_scale
    if not lcp_residual(M, q, z) <= VERIFY_TOL:
        status = 3
    return np.maximum(z, 0.0), status, pivots


def routh_step_reference(data, v, lambda_max, d):
    """One Routh step (eq. 75) with :func:`lemke_reference`: returns (v_next, z, status, pivots).

    ``data`` is a :class:`reach.kernels.routh.RouthData` (caps ``lambda_max``
    in its velocity units); ``d`` the covering vector.
    """
    m, nb = data.Jn.shape[0], data.Jbar.shape[0]
    n = data.lcp.M.shape[0]
    q = np.concatenate([lambda_max, data.Jbar @ v, np.zeros(n - m - nb)])
    lcp = data.lcp
    z, status, pivots = lemke_reference(lcp.M, lcp.Ms, q, d, lcp.row_scale, lcp.col_scale,
                                        max_pivots=max(1000, 50 * n))
    if status != 0:
        return v.copy(), z, status, pivots
    return v + data.Minv_JbarT @ z[m:m + nb], z, status, pivots
