"""Linear complementarity problems: the Python layer over the Lemke and enumeration kernels.

The LCP(M, q) asks for z with ``z >= 0, w = M z + q >= 0, z^T w = 0``.

* :func:`lemke` solves it by Lemke's method (:mod:`reach.kernels.lcp`) and
  verifies the answer against the original data: ``success`` only if it
  verifies.
* :func:`all_solutions` enumerates every complementary basis of a small LCP
  (n <= 22) and returns every distinct verified solution.
* :func:`lcp_residual` is the relative natural residual used to verify.

Every solve returns a status (:class:`LCPStatus`).  Lemke's method solves every
LCP with a copositive-plus matrix that has a solution; the Routh-step matrix
``W`` of the paper (eq. 75) is copositive (Theorem 6).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from reach.kernels import lcp as kernel_lcp
from reach.kernels.enumeration import enumerate_kernel
from reach.kernels.lcp import AUTO, DEFAULT_OPTIONS, REVISED, STRICT_TIE_TOL, TABLEAU, make_work, scale_lcp, solve_scaled
from reach.kernels.verify import clip_and_measure

__all__ = ["LCPStatus", "LCPResult", "LemkeWorkspace", "lemke", "METHODS", "lcp_residual", "all_solutions",
           "check_lcp", "VERIFY_TOL"]

#: Relative residual accepted as a solution (see :func:`reach.kernels.verify.residual_kernel`).
VERIFY_TOL = DEFAULT_OPTIONS.verify_tol


class LCPStatus(IntEnum):
    """Outcome of one LCP solve: the kernels' status codes (:mod:`reach.kernels.lcp`), named, with a message each."""

    SOLVED = kernel_lcp.SOLVED
    """A complementary solution was found and verified against the original data."""
    RAY = kernel_lcp.RAY
    """Lemke's path ended on a secondary ray: no solution reachable (maybe none exists)."""
    PIVOT_LIMIT = kernel_lcp.PIVOT_LIMIT
    """The pivot limit was reached before the path ended."""
    NUMERICAL = kernel_lcp.NUMERICAL
    """The final answer failed verification against the original data."""

    @property
    def message(self):
        return _MESSAGES[self]


_MESSAGES = {
    LCPStatus.SOLVED: "solved: complementary solution verified against the original data",
    LCPStatus.RAY: "ray termination: Lemke's path left on an unbounded ray (no solution reachable)",
    LCPStatus.PIVOT_LIMIT: "pivot limit reached",
    LCPStatus.NUMERICAL: "numerical failure: the final answer did not verify against the original data",
}


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
        Relative natural residual of the returned point, recomputed from the
        original data (:func:`lcp_residual`).
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


def check_lcp(M, q):
    """Validate ``M`` (n, n) and ``q`` (n,): real, finite, matching; return contiguous float copies."""
    M = np.asarray(M)
    q = np.asarray(q)
    for name, a in (("M", M), ("q", q)):
        if np.iscomplexobj(a):
            raise TypeError(f"`{name}` must be real; got a complex array.")
        if not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
            raise TypeError(f"`{name}` must be numeric; got dtype {a.dtype}.")
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"`M` must be a non-empty square matrix; got shape {M.shape}.")
    if q.shape != (M.shape[0],):
        raise ValueError(f"`q` must have shape ({M.shape[0]},) to match `M`; got {q.shape}.")
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(q))):
        raise ValueError("`M` and `q` must be finite (no NaN or inf).")
    return np.ascontiguousarray(M), np.ascontiguousarray(q)


class LemkeWorkspace:
    """The equilibrated matrix, options and buffers for repeated solves with one ``M``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    max_pivots : int, optional
        Default ``max(1000, 50 n)``.
    """

    def __init__(self, M, *, max_pivots=None):
        lcp = scale_lcp(M)
        n = lcp.M.shape[0]
        if max_pivots is not None and (int(max_pivots) != max_pivots or max_pivots < 1):
            raise ValueError(f"`max_pivots` must be a positive integer; got {max_pivots!r}.")
        self.n = n
        self.lcp = lcp
        self.options = DEFAULT_OPTIONS._replace(
            max_pivots=int(max_pivots) if max_pivots is not None else max(1000, 50 * n))
        self.work = make_work(n)
        self.ones = np.ones(n)

    @property
    def M(self):
        return self.lcp.M


#: ``lemke(method=...)``: names of the kernels' methods.
METHODS = {"auto": AUTO, "tableau": TABLEAU, "revised": REVISED}


def lemke(M, q, *, max_pivots=None, covering=None, workspace=None, method="auto"):
    """Solve the LCP ``z >= 0, w = M z + q >= 0, z^T w = 0`` by Lemke's method.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    max_pivots : int, optional
        Pivot limit (default ``max(1000, 50 n)``).
    covering : array_like, shape (n,), optional
        Positive, finite covering vector in the equilibrated coordinates
        (default ones).  Different covering vectors can reach different
        solutions of a non-unique LCP.
    workspace : LemkeWorkspace, optional
        Reuse buffers and the equilibration of a previous call with the same M.
    method : {"auto", "tableau", "revised"}
        The dense tableau, or the revised method (the basis inverse as a
        product of one eta matrix a pivot: less work from n of about 8 on);
        both take the same path.  "auto" picks by size (the revised method from ``REVISED_MIN_N`` = 8 on).

    Returns
    -------
    LCPResult
        ``z, w, status, pivots, residual``; ``success`` is true only if the
        answer was verified against the original data.  A path that does not
        verify is followed once more with strict ratio ties
        (:data:`~reach.kernels.lcp.STRICT_TIE_TOL`); ``pivots`` counts both.

    Examples
    --------
    >>> r = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    >>> r.success, np.round(r.z, 12).tolist()
    (True, [1.333333333333, 2.333333333333])
    """
    M, q = check_lcp(M, q)
    n = M.shape[0]
    if workspace is None or workspace.n != n or not np.array_equal(workspace.M, M):
        workspace = LemkeWorkspace(M, max_pivots=max_pivots)
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {sorted(METHODS)}; got {method!r}.")
    options = workspace.options._replace(method=METHODS[method])
    if max_pivots is not None:
        if int(max_pivots) != max_pivots or max_pivots < 1:
            raise ValueError(f"`max_pivots` must be a positive integer; got {max_pivots!r}.")
        options = options._replace(max_pivots=int(max_pivots))
    if covering is None:
        d = workspace.ones
    else:
        d = np.ascontiguousarray(covering, dtype=float)
        if d.shape != (n,) or not np.all(np.isfinite(d)) or not np.all(d > 0):
            raise ValueError(f"`covering` must be a positive, finite vector of shape ({n},).")
    z = np.zeros(n)
    w = np.zeros(n)
    status, pivots, res = solve_scaled(workspace.lcp, q, d, options, workspace.work, z, w)
    if status != kernel_lcp.SOLVED:  # a near-tie taken as a tie can end a hair from the solution: once more, strict ties
        status, more, res = solve_scaled(workspace.lcp, q, d, options._replace(tie_tol=STRICT_TIE_TOL),
                                         workspace.work, z, w)
        pivots += more
    return LCPResult(z, w, LCPStatus(status), int(pivots), float(res))


def lcp_residual(M, q, z):
    """Relative natural residual of ``z`` for LCP(M, q), in equilibrated units (zero at a solution).

    See :func:`reach.kernels.verify.residual_kernel`: each row is measured
    against its own scale.  Negative entries of ``z`` count as violations.
    """
    lcp = scale_lcp(M)
    q = np.ascontiguousarray(q, dtype=float)
    z = np.array(z, dtype=float)
    w = np.empty(q.shape[0])
    return float(clip_and_measure(lcp.MT, q, z, w, lcp.row_scale, lcp.col_scale))


def all_solutions(M, q, *, max_solutions=4096, tol=1e-10):
    """Every distinct complementary solution of a small LCP, by enumerating bases.

    For each index set S (2^n of them) the principal system
    ``M[S, S] z_S = -q[S]`` is solved; the point is kept if ``z_S >= 0`` and
    ``w = M z + q >= 0`` off S (within ``tol`` relative).  Singular principal
    submatrices are skipped, so for LCPs with a continuum of solutions only
    the vertices reached by nonsingular bases are returned.

    The LCP is equilibrated first; every candidate is mapped back and kept
    only if its residual against the original data is at most
    :data:`VERIFY_TOL` (ill-conditioned vertices, such as opposing friction
    impulses of 1e4 cancelling each other, fail this and are dropped).

    Parameters
    ----------
    M : array_like, shape (n, n), with n <= 22
    q : array_like, shape (n,)

    Returns
    -------
    ndarray, shape (k, n)
        The distinct solutions z (rows), in enumeration order.
    """
    M, q = check_lcp(M, q)
    n = M.shape[0]
    if n > 22:
        raise ValueError(f"`M` is too large to enumerate bases: n = {n} > 22.")
    lcp = scale_lcp(M)
    out = np.empty((max_solutions, n))
    count = enumerate_kernel(lcp.Ms, np.ascontiguousarray(lcp.row_scale * q), out, tol)
    if count < 0:
        raise ValueError(f"more than `max_solutions` = {max_solutions} solutions; raise it.")
    kept = []
    for zs in out[:count]:
        z = zs * lcp.col_scale
        if lcp_residual(M, q, z) > VERIFY_TOL:
            continue
        if any(np.max(np.abs(z - k)) <= 1e-9 * max(1.0, np.max(np.abs(z))) for k in kept):
            continue
        kept.append(z)
    return np.array(kept).reshape(-1, n)
