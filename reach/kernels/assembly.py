"""A problem's derived arrays in a fixed order of operations: the same bits on every CPU.

:class:`reach.problem.impact.ImpactProblem` derives the kernels' inputs from
``M``, ``Jn`` and ``Jt`` once: the Cholesky factor of ``M``, ``M^-1 Jbar^T``,
the Delassus matrix, the pre-impact contact velocities and the bound ``psi``
(the largest singular value of ``M^-1 Jbar^T``).  NumPy computes such products
and factorizations with OpenBLAS and LAPACK, which pick their kernels by the
CPU they run on: each sums in its own order, and the results differ in their
last bits from one CPU to another.  Every sample's outcome follows those bits,
so the same problem and seed gave a different set on another machine (Table 3's
disk stack of 2^20 samples kept 1,046,570 outcomes on one host and 1,046,590 on
another with the same code; under ``OPENBLAS_CORETYPE=Nehalem`` or
``Sandybridge`` on one host, each of the disk stack's, the quadruped's and the
compass gait's sets of 2,048 samples was another).  These loops sum in index
order, and Numba neither reorders nor fuses floating-point operations unless
told to, so their results are the same on any CPU.  ``tests/kernels/test_assembly.py``
runs a problem under several OpenBLAS kernels and checks the bits.
"""

from __future__ import annotations

import math

import numpy as np

from reach.kernels.jit import kernel

__all__ = ["times", "cholesky", "solve_lower", "solve_lower_transposed", "product", "largest_eigenvalue",
           "JACOBI_SWEEPS"]

#: Most sweeps of the cyclic Jacobi method in :func:`largest_eigenvalue` (it converges quadratically; a few
#: dozen unknowns need well under 15).
JACOBI_SWEEPS = 50


def times(A, B, *, transpose=False):
    """``A @ B`` (``A.T @ B`` where ``transpose``) as a new array, each entry summed in index order
    (:func:`product`)."""
    A, B = np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(B, dtype=np.float64)
    C = np.empty((A.shape[1] if transpose else A.shape[0], B.shape[1]))
    product(A, B, C, transpose)
    return C


@kernel
def cholesky(A, L):
    """``L`` (lower, its upper part left as it is) with ``L L^T = A`` for a symmetric ``A``; False unless every
    pivot is positive."""
    n = A.shape[0]
    for j in range(n):
        acc = A[j, j]
        for k in range(j):
            acc -= L[j, k] * L[j, k]
        if not acc > 0.0:
            return False
        d = math.sqrt(acc)
        L[j, j] = d
        for i in range(j + 1, n):
            acc = A[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            L[i, j] = acc / d
    return True


@kernel
def solve_lower(L, B, X):
    """``X`` with ``L X = B``, ``L`` lower triangular, by forward substitution column by column."""
    n, cols = L.shape[0], B.shape[1]
    for c in range(cols):
        for i in range(n):
            acc = B[i, c]
            for k in range(i):
                acc -= L[i, k] * X[k, c]
            X[i, c] = acc / L[i, i]


@kernel
def solve_lower_transposed(L, B, X):
    """``X`` with ``L^T X = B``, ``L`` lower triangular, by back substitution column by column."""
    n, cols = L.shape[0], B.shape[1]
    for c in range(cols):
        for i in range(n - 1, -1, -1):
            acc = B[i, c]
            for k in range(i + 1, n):
                acc -= L[k, i] * X[k, c]
            X[i, c] = acc / L[i, i]


@kernel
def product(A, B, C, transpose_a):
    """``C = A B``, or ``A^T B`` where ``transpose_a``; each entry's sum in index order."""
    rows, inner = (A.shape[1], A.shape[0]) if transpose_a else (A.shape[0], A.shape[1])
    for i in range(rows):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in range(inner):
                acc += (A[k, i] if transpose_a else A[i, k]) * B[k, j]
            C[i, j] = acc


@kernel
def largest_eigenvalue(G):
    """The largest eigenvalue of the symmetric ``G`` (overwritten) by the cyclic Jacobi method, row by row."""
    n = G.shape[0]
    for _ in range(JACOBI_SWEEPS):
        off, total = 0.0, 0.0
        for p in range(n):
            for q in range(n):
                total += G[p, q] * G[p, q]
                if p != q:
                    off += G[p, q] * G[p, q]
        if off <= 1e-32 * total:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if G[p, q] == 0.0:
                    continue
                theta = (G[q, q] - G[p, p]) / (2.0 * G[p, q])
                t = (1.0 if theta >= 0.0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):  # G <- G R, then R^T G: rotate columns p and q, then rows p and q
                    gp, gq = G[k, p], G[k, q]
                    G[k, p], G[k, q] = c * gp - s * gq, s * gp + c * gq
                for k in range(n):
                    gp, gq = G[p, k], G[q, k]
                    G[p, k], G[q, k] = c * gp - s * gq, s * gp + c * gq
    largest = -math.inf
    for i in range(n):
        largest = max(largest, G[i, i])
    return largest
