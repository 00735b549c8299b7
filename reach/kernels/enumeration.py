"""Complementary-basis enumeration for small LCPs, as Numba kernels.

:func:`enumerate_kernel` tries every index set S of a small LCP (n <= ~20);
:func:`reach.problem.lcp.all_solutions` is its Python layer (the baselines and the
tests use it).
:func:`first_solution_kernel` is the sampler's last resort: when no covering
vector lets Lemke's method return a verified answer for a step (ill-conditioned
vertices at mu = 1e5), the step's LCP is enumerated from a random starting set
until a solution verifies against the original data.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.jit import counted, kernel
from reach.kernels.linalg import solve_dense
from reach.kernels.verify import clip_and_measure

__all__ = ["enumerate_kernel", "first_solution_kernel", "basis_point", "FALLBACK_MAX_N"]

#: Largest LCP the sampler enumerates as a last resort (2^14 index sets).
FALLBACK_MAX_N = 14


@kernel
def _solve_principal(M, q, members, k, A, b, x):
    """Solve ``M[S, S] x = -q[S]`` for the index set ``members[:k]``; False if singular."""
    for a in range(k):
        for c in range(k):
            A[a, c] = M[members[a], members[c]]
        b[a] = -q[members[a]]
    return solve_dense(A, b, x, k)


@counted
def enumerate_kernel(M, q, out, tol):
    """Every distinct complementary point of LCP(M, q) into ``out``; the count, or -1 if ``out`` is full."""
    n = q.shape[0]
    members = np.empty(n, dtype=np.int64)
    A = np.empty((n, n))
    b = np.empty(n)
    x = np.empty(n)
    z = np.empty(n)
    count = 0
    qscale = 0.0
    for i in range(n):
        qscale = max(qscale, abs(q[i]))
    for mask in range(1 << n):
        k = np.int64(0)  # typed, not a literal 0: its callees compile once
        for i in range(n):
            if (mask >> i) & 1:
                members[k] = i
                k += 1
        if k > 0:
            if not _solve_principal(M, q, members, k, A, b, x):
                continue
        for i in range(n):
            z[i] = 0.0
        zmax = 0.0
        ok = True
        for a in range(k):
            z[members[a]] = x[a]
            zmax = max(zmax, abs(x[a]))
        scale = qscale
        mrow = 0.0
        for i in range(n):
            rs = 0.0
            for j in range(n):
                rs += abs(M[i, j])
            mrow = max(mrow, rs)
        scale = qscale + mrow * zmax
        if scale == 0.0:
            scale = 1.0
        for a in range(k):
            if x[a] < -tol * scale:
                ok = False
        if not ok:
            continue
        for i in range(n):
            if (mask >> i) & 1:
                continue
            acc = q[i]
            for j in range(n):
                acc += M[i, j] * z[j]
            if acc < -tol * scale:
                ok = False
                break
        if not ok:
            continue
        # deduplicate
        dup = False
        for s in range(count):
            same = True
            for i in range(n):
                if abs(out[s, i] - max(z[i], 0.0)) > 1e-9 * scale:
                    same = False
                    break
            if same:
                dup = True
                break
        if dup:
            continue
        if count >= out.shape[0]:
            return -1
        for i in range(n):
            out[count, i] = max(z[i], 0.0)
        count += 1
    return count


@kernel
def first_solution_kernel(lcp, q, qs, offset, verify_tol, work):
    """The first verified solution of LCP(M, q) over index sets ``offset, offset + 1, ...`` (mod 2^n).

    ``lcp`` is a :class:`reach.kernels.lcp.ScaledLCP` and ``qs = R q``;
    candidates ``z = C z_S`` are verified against the original ``M, q`` with
    :func:`reach.kernels.verify.residual_kernel`.  ``work`` holds the work
    arrays (a :class:`reach.kernels.routh_data.StepWork`: ``members`` (int64),
    ``A`` (n, n), ``b``, ``x``) and the answer ``z``, ``w``.  Returns (found,
    residual); ``work.z``, ``work.w`` hold the solution when found.
    """
    members, A, b, x, z, w = work.members, work.A, work.b, work.x, work.z, work.w
    n = q.shape[0]
    total = 1 << n
    for t in range(total):
        if not basis_point(lcp.Ms, qs, lcp.col_scale, (offset + t) % total, members, A, b, x, z):
            continue
        res = clip_and_measure(lcp.MT, q, z, w, lcp.row_scale, lcp.col_scale)
        if res <= verify_tol:
            return True, res
    return False, np.inf


@kernel
def basis_point(Ms, qs, col_scale, mask, members, A, b, x, z):
    """The complementary point of index set ``mask`` (bit i: z_i basic), in original units.

    Solves ``Ms[S, S] x = -qs[S]`` for ``S = {i : bit i of mask}`` and fills
    ``z = C x`` on S, zero elsewhere (unverified).  False if ``Ms[S, S]`` is
    numerically singular.
    """
    n = qs.shape[0]
    k = np.int64(0)  # typed, not a literal 0: its callees compile once
    for i in range(n):
        if (mask >> i) & 1:
            members[k] = i
            k += 1
    if k > 0 and not _solve_principal(Ms, qs, members, k, A, b, x):
        return False
    for i in range(n):
        z[i] = 0.0
    for a in range(k):
        z[members[a]] = x[a] * col_scale[members[a]]
    return True
