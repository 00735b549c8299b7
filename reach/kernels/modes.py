"""The contact modes of a planar Routh step: its pieces, and a certificate that a step has one solution.

Every solution of a planar Routh-step LCP (eq. 75) puts each contact in one of
seven modes:

* ``0`` no impulse: ``lambda_n = lambda_t = 0``, the contact does not close
  (``v_n' >= 0``);
* ``1..6`` an impulse, with the normal part either **capped** (``lambda_n =
  cap``, ``v_n' <= 0``) or **free** (``v_n' = 0``, ``0 <= lambda_n <= cap``), and
  the tangential part **sticking** (``v_t' = 0``, ``|lambda_t| <= mu
  lambda_n``) or **sliding** either way (``lambda_t = -+ mu lambda_n`` against
  ``v_t'``).

Each of the ``7^m`` assignments fixes ``2 m`` linear equations in ``(lambda_n,
lambda_t)``; solving them and checking the inequalities gives every solution
on a nonsingular system, and so every distinct ``v'`` that basis enumeration
finds — for ``7^m`` small solves (49 of size 4 for two contacts) instead of
``2^(5m)`` principal systems (1,024 of size up to 10).  The steps built on
them (every distinct ``v'`` of a step, drawn uniformly; the one solution of a
certified-unique step) are in :mod:`reach.kernels.planar`.

Most steps have one solution, and a certificate proves it without the
enumeration (:func:`piece_signs`, :func:`certified_unique`): the solutions
are the zeros of a piecewise-linear map whose pieces are the mode systems
and whose degree is 1, so a step none of whose negative-determinant or
singular pieces holds a solution has exactly one, which a search of the
positive pieces finds.  Redundant contacts (a block on two corners, the disk stack) make
singular pieces; each is tested exactly, as a line of solutions against
its inequalities.  Signs, inverses and null vectors depend only on W and
mu and are computed once per problem (:func:`certificate_data`).

Planar problems only (two friction directions per contact); the kernel works
in the units of :mod:`reach.kernels.routh` (impulses times the mass scale).
"""

from __future__ import annotations

import math
import numpy as np

from reach.kernels.jit import counted, kernel
from reach.kernels.linalg import invert


__all__ = ["MODES", "CERTIFY_TOL", "MAX_CERTIFIED_CONTACTS", "MAX_STORED_PIECES", "CERTIFY_MIN_CONTACTS",
           "contact_rows", "assemble", "admissible_along", "admissible", "contact_data", "decode", "piece_signs",
           "piece_inverses", "piece_point", "uncapped", "maybe_non_unique", "certificate_data",
           "certified_unique", "count_flagged", "piece_count"]

#: Modes per contact: none, and {capped, free} x {stick, slide +, slide -}.
MODES = 7


@kernel(inline="always")
def piece_count(m):
    """``MODES ** m`` by multiplications (Numba compiles an integer power with a float ``pow`` for
    negative exponents, which on a GPU is libdevice's)."""
    total = np.int64(1)  # typed, not a literal 1: its callees compile once
    for _ in range(m):
        total *= MODES
    return total


@kernel(inline="always")
def contact_rows(W, m, i, j):
    """Delassus entries (nn, nt, tn, tt) between contacts i and j of a planar W.

    The tangential impulse ``lambda_t = lambda_D+ - lambda_D-`` acts through the
    D+ column (the D- column is its negative), and the tangential velocity is
    the D+ row.
    """
    n_i, n_j = m + i, m + j
    t_i, t_j = 2 * m + 2 * i, 2 * m + 2 * j
    return float(W[n_i, n_j]), float(W[n_i, t_j]), float(W[t_i, n_j]), float(W[t_i, t_j])


@kernel
def assemble(W, m, modes, vn0, vt0, lam, mu, A, b):
    """The 2m equations of a mode assignment in x = [lambda_n; lambda_t]."""
    for r in range(2 * m):
        b[r] = 0.0
        for c in range(2 * m):
            A[r, c] = 0.0
    for i in range(m):
        mode = modes[i]
        normal, tangent = i, m + i
        if mode == 0:
            A[normal, i] = 1.0
            A[tangent, m + i] = 1.0
            continue
        capped = mode <= 3
        kind = (mode - 1) % 3  # 0 stick, 1 slide + (lambda_t = -mu lambda_n), 2 slide -
        if capped:
            A[normal, i] = 1.0
            b[normal] = lam[i]
        else:
            for j in range(m):
                nn, nt, _, _ = contact_rows(W, m, i, j)
                A[normal, j] = nn
                A[normal, m + j] = nt
            b[normal] = -vn0[i]
        if kind == 0:
            for j in range(m):
                _, _, tn, tt = contact_rows(W, m, i, j)
                A[tangent, j] = tn
                A[tangent, m + j] = tt
            b[tangent] = -vt0[i]
        else:
            A[tangent, m + i] = 1.0
            A[tangent, i] = mu[i] if kind == 1 else -mu[i]


@kernel  # not inline="always": see below
def _narrow(a, c, tol, lo, hi):
    """Narrow ``[lo, hi]`` to the z where ``a + c z >= -tol``.

    A call, not Numba's inlining: :func:`admissible_along` narrows at eight places, and is inlined (through
    :func:`admissible` and :func:`reach.kernels.planar.piece_holds`) twice into ``mode_step`` and twice into
    ``piece_step``; the inlined copies took Numba's typing and LLVM 17 s of a cold rocking block's
    compiling (``mode_step``'s own).  As a call (which LLVM still inlines where it pays) the contact
    modes' chain compiled in 15.5 s instead of 29.6 s, with the same sets bit for bit and the same
    speed (``bench/cold-start-split.log``).
    """
    if c > 0.0:
        return max(lo, (-tol - a) / c), hi
    if c < 0.0:
        return lo, min(hi, (-tol - a) / c)
    return (lo, hi) if a >= -tol else (np.inf, -np.inf)


@kernel(inline="always")
def admissible_along(W, m, modes, contacts, x, d, along, tol):
    """Whether some ``x + z d`` (any real z; only z = 0 unless ``along``) meets a mode assignment's inequalities.

    ``contacts`` is the step's ``(vn0, vt0, lam, mu)``: each contact's normal and
    tangential velocity, cap and friction coefficient.  Each inequality is
    affine in the impulses: along a line it bounds z on one side.
    """
    vn0, vt0, lam, mu = contacts
    lo, hi = (-np.inf, np.inf) if along else (0.0, 0.0)
    for i in range(m):
        vn, vt, dn, dt = vn0[i], vt0[i], 0.0, 0.0
        for j in range(m):
            nn, nt, tn, tt = contact_rows(W, m, i, j)
            vn += nn * x[j] + nt * x[m + j]
            vt += tn * x[j] + tt * x[m + j]
            if along:
                dn += nn * d[j] + nt * d[m + j]
                dt += tn * d[j] + tt * d[m + j]
        ln, lt, mode = x[i], x[m + i], modes[i]
        cn, ct = (d[i], d[m + i]) if along else (0.0, 0.0)
        if mode == 0:
            if lam[i] > 0.0:  # a contact capped at 0 takes no impulse, whatever its velocity
                lo, hi = _narrow(vn, dn, tol, lo, hi)
        else:
            lo, hi = _narrow(ln, cn, tol, lo, hi)
            lo, hi = _narrow(lam[i] + 1e-12 * lam[i] - ln, -cn, tol, lo, hi)
            if mode <= 3:  # capped: beta >= 0 means the contact still closes or rests
                lo, hi = _narrow(-vn, -dn, tol, lo, hi)
            kind = (mode - 1) % 3
            if kind == 0:
                lo, hi = _narrow(mu[i] * ln - lt, mu[i] * cn - ct, tol, lo, hi)
                lo, hi = _narrow(mu[i] * ln + lt, mu[i] * cn + ct, tol, lo, hi)
            elif kind == 1:
                lo, hi = _narrow(vt, dt, tol, lo, hi)
            else:
                lo, hi = _narrow(-vt, -dt, tol, lo, hi)
        if lo > hi:
            return False
    return True


@kernel(inline="always")
def admissible(W, m, modes, contacts, x, tol):
    """The inequalities of a mode assignment at its solution x (``contacts``: ``(vn0, vt0, lam, mu)``)."""
    return admissible_along(W, m, modes, contacts, x, x, False, tol)


@kernel
def contact_data(data, v, vn0, vt0, mu):
    """Each contact's normal and tangential velocity at ``v`` and its friction coefficient; returns their scale."""
    W = data.lcp.M
    m = data.Jn.shape[0]
    vscale = 1e-300
    for i in range(m):
        a = 0.0
        t = 0.0
        for j in range(v.shape[0]):
            a += data.Jbar[i, j] * v[j]
            t += data.Jbar[m + 2 * i, j] * v[j]
        vn0[i], vt0[i], mu[i] = a, t, W[4 * m + i, m + i]  # the cone row of contact i holds mu_i
        vscale = max(vscale, abs(a), abs(t))
    return vscale


# ---------------------------------------------------------------------------------------------------------------
# A uniqueness certificate: orientation of the mode pieces
# ---------------------------------------------------------------------------------------------------------------

#: Tolerance of the certificate's admissibility test, relative to the step's velocity scale: looser than the
#: enumeration's (1e-9), so a solution on a piece's boundary is never missed (a false alarm costs an enumeration).
CERTIFY_TOL = 1e-5
#: Most contacts whose pieces are oriented (7^m determinants once per problem).
MAX_CERTIFIED_CONTACTS = 6
#: Fewest contacts where exact choice tries the certificate before enumerating: with two, enumerating the 49
#: pieces costs less than testing the ~13 negative ones and then running Lemke (measured: 1.2-1.4x random
#: against 1.5-1.7x on the compass gait).
CERTIFY_MIN_CONTACTS = 3
#: Most pieces whose inverses are stored for the enumeration (7^5, 13 MB for five contacts).
MAX_STORED_PIECES = 7**5
#: A piece is singular where a singular value is below this fraction of the largest one.
SINGULAR_RTOL = 1e-9


@kernel(inline="always")
def decode(code, m, modes):
    """The modes of piece ``code`` (its base-7 digits, contact 0 first)."""
    for i in range(m):
        modes[i] = code % MODES
        code //= MODES


@counted
def _piece_system(W, m, code, modes, A):
    """Decode piece ``code`` into ``modes`` and assemble its matrix into ``A`` (the right side does not matter)."""
    decode(code, m, modes)
    mu = np.empty(m)
    for i in range(m):
        mu[i] = W[4 * m + i, m + i]
    zeros = np.zeros(m)
    assemble(W, m, modes, zeros, zeros, np.ones(m), mu, A, np.empty(2 * m))


@counted
def piece_signs(W, m):
    """Sign of the determinant of every mode assignment's system (7^m of them), in code order.

    Pieces of a piecewise-linear map: the step's solutions ``(lambda_n,
    lambda_t)`` are the zeros of ``H(x) = x - P(x - r (G x + q))`` (P the
    projection on each contact's admissible impulses, Alart-Curnier style),
    whose linear pieces are, up to positive factors, the systems
    :func:`assemble` builds.  ``H`` equals ``x`` minus a bounded map, so its
    degree is 1 and, at a regular value, ``#solutions in positive pieces -
    #solutions in negative pieces = 1``: a step with no solution in a
    negative or a singular piece has exactly one solution (each solution
    then lies where every piece is positive, where H is a local
    homeomorphism of index +1).
    """
    total = MODES ** m
    signs = np.empty(total, dtype=np.int8)
    A = np.empty((2 * m, 2 * m))
    inv = np.empty((2 * m, 2 * m))
    modes = np.empty(m, dtype=np.int64)
    for code in range(total):
        _piece_system(W, m, code, modes, A)
        signs[code] = invert(A, inv, 2 * m)
    return signs


@counted
def piece_inverses(W, m, codes):
    """``(modes (K, m) int8, inverses (K, 2m, 2m))`` of the pieces ``codes``; a singular one has an inverse of NaN."""
    K = codes.shape[0]
    modes_out = np.empty((K, m), dtype=np.int8)
    inv = np.empty((K, 2 * m, 2 * m))
    A = np.empty((2 * m, 2 * m))
    modes = np.empty(m, dtype=np.int64)
    for p in range(K):
        _piece_system(W, m, codes[p], modes, A)
        for i in range(m):  # not a slice's assignment: its shape check compiles an error message, 3 s of a cold start
            modes_out[p, i] = modes[i]
        if invert(A, inv[p], 2 * m) == 0:
            inv[p, :, :] = np.nan
    return modes_out, inv


@kernel(inline="always")
def _piece_rhs(modes, m, vn0, vt0, lam, b):
    """The right side of a piece's equations at the step's velocities and caps (see :func:`assemble`)."""
    for i in range(m):
        mode = modes[i]
        b[i] = 0.0 if mode == 0 else (lam[i] if mode <= 3 else -vn0[i])
        b[m + i] = -vt0[i] if mode != 0 and (mode - 1) % 3 == 0 else 0.0


@kernel(inline="always")
def piece_point(inv, modes, m, vn0, vt0, lam, tol, b, x):
    """``x = inv @ b`` of a piece from its precomputed inverse; False as soon as a normal impulse leaves ``[0, cap]``.

    Normal impulses come first: most pieces fail there, after a row or two.
    """
    _piece_rhs(modes, m, vn0, vt0, lam, b)
    k = 2 * m
    for r in range(k):
        acc = 0.0
        for c in range(k):
            acc += inv[r, c] * b[c]
        x[r] = acc
        if r < m and modes[r] != 0 and (acc < -tol or acc > lam[r] + tol + 1e-12 * lam[r]):
            return False
    return True


@kernel
def _singular_piece_holds(W, m, modes, pinv, null, contacts, tol, b, x):
    """Whether a singular piece (one null direction) holds a solution within ``tol``.

    Its equations have a solution only if ``b`` is orthogonal to the left
    null vector ``null[0]``; the solutions are then the line ``pinv @ b + z
    null[1]``, and the piece holds one if the line meets its inequalities.
    """
    vn0, vt0, lam, _ = contacts
    _piece_rhs(modes, m, vn0, vt0, lam, b)
    k = 2 * m
    yb = 0.0
    for r in range(k):
        yb += null[0, r] * b[r]
    if abs(yb) > tol:
        return False
    for r in range(k):
        acc = 0.0
        for c in range(k):
            acc += pinv[r, c] * b[c]
        x[r] = acc
    return admissible_along(W, m, modes, contacts, x, null[1], True, tol)


@kernel(inline="always")
def uncapped(modes, m, lam):
    """Whether a piece gives an impulse to a contact whose cap is 0 (such a contact takes none: skip it)."""
    for i in range(m):
        if lam[i] == 0.0 and modes[i] != 0:
            return True
    return False


@kernel
def maybe_non_unique(data, contacts, tol, work):
    """Whether some negative or singular piece holds a solution (within ``tol``): the step may be non-unique.

    False certifies that the step has one solution (:func:`piece_signs`).
    ``contacts`` is the step's ``(vn0, vt0, lam, mu)``.  Contacts with a zero
    cap take no impulse, so only pieces that leave them without one count.
    The pieces are ``data``'s certificate (:func:`certificate_data`): a piece
    whose ``piece_null[p, 0, 0]`` is NaN is negative (``piece_inv`` its
    inverse); the others are singular (``piece_inv`` a pseudo-inverse,
    ``piece_null`` its left and right null vectors).  ``work.members``,
    ``work.b`` and ``work.x`` are scratch.
    """
    W, m, lam = data.lcp.M, data.Jn.shape[0], contacts[2]
    piece_modes, piece_inv, piece_null = data.piece_modes, data.piece_inv, data.piece_null
    modes, b, x = work.members, work.b, work.x
    for p in range(piece_modes.shape[0]):
        for i in range(m):
            modes[i] = piece_modes[p, i]
        if uncapped(modes, m, lam):
            continue
        if math.isnan(piece_null[p, 0, 0]):
            if piece_point(piece_inv[p], modes, m, contacts[0], contacts[1], lam, tol, b, x) and \
                    admissible(W, m, modes, contacts, x, tol):
                return True
        elif _singular_piece_holds(W, m, modes, piece_inv[p], piece_null[p], contacts, tol, b, x):
            return True
    return False


def _null_directions(W, m, codes):
    """Pseudo-inverses and unit (left, right) null vectors of singular pieces; None if one has more than one."""
    modes = np.empty(m, dtype=np.int64)
    A = np.empty((2 * m, 2 * m))
    pinv = np.empty((len(codes), 2 * m, 2 * m))
    null = np.empty((len(codes), 2, 2 * m))
    for p, code in enumerate(codes):
        _piece_system(W, m, code, modes, A)
        U, sv, Vt = np.linalg.svd(A)
        if np.count_nonzero(sv <= SINGULAR_RTOL * sv[0]) != 1:
            return None
        pinv[p] = np.linalg.pinv(A, rcond=SINGULAR_RTOL)
        null[p, 0], null[p, 1] = U[:, -1], Vt[-1]
    return pinv, null


def certificate_data(W, m, *, certify=True):
    """``(certified, piece_modes, piece_inv, piece_null, mode_inv)``: what exact choice needs, once per problem.

    ``W`` is the kernels' step matrix of a planar problem with ``m`` contacts.
    The certificate keeps every piece whose determinant is negative, with its
    inverse, and every singular piece, with its pseudo-inverse and null
    vectors (``piece_modes``, ``piece_inv``, ``piece_null``).  Redundant
    contacts (a block on two corners has four impulse components and three
    velocities) make singular pieces; one can hold a continuum of solutions
    the degree argument does not count, so a step where a singular piece
    holds a solution is enumerated too.  The certificate holds
    (``certified``) when every singular piece has a single null direction;
    else every step enumerates.  ``mode_inv`` holds the inverse of every
    piece (NaN where singular) for the enumeration of :func:`reach.kernels.planar.mode_step`
    when there are at most :data:`MAX_STORED_PIECES` pieces; else it is
    empty and the enumeration solves each piece.  ``certify=False`` skips
    the certificate (``certified`` is False, every step enumerates).
    """
    if m > MAX_CERTIFIED_CONTACTS:
        raise ValueError(f"the uniqueness certificate orients 7^m pieces; m = {m} > {MAX_CERTIFIED_CONTACTS}")
    W = np.ascontiguousarray(W, dtype=float)
    signs = piece_signs(W, m)
    negative, singular = np.flatnonzero(signs < 0), np.flatnonzero(signs == 0)
    nulls = _null_directions(W, m, singular) if certify else None
    certified = nulls is not None
    codes = np.concatenate([negative, singular]) if certified else negative[:0]
    modes, inv = piece_inverses(W, m, codes.astype(np.int64))  # singular pieces' inverses: NaN, replaced below
    null = np.full((len(codes), 2, 2 * m), np.nan)
    if certified and len(singular):
        inv[len(negative):], null[len(negative):] = nulls
    if MODES**m <= MAX_STORED_PIECES:
        _, every = piece_inverses(W, m, np.arange(MODES**m, dtype=np.int64))
    else:
        every = np.zeros((0, 2 * m, 2 * m))
    return certified, modes, inv, null, every


@kernel
def certified_unique(data, v, lam, work):
    """Whether the step at ``v`` with caps ``lam`` (velocity units) provably has a single solution.

    Needs :func:`certificate_data` in ``data`` (``data.certified``).
    Fills ``work.q``, ``work.z``, ``work.w`` with the contacts' velocities
    and friction coefficients (as :func:`reach.kernels.planar.mode_step` does).
    """
    vn0, vt0, mu = work.q, work.z, work.w
    vscale = contact_data(data, v, vn0, vt0, mu)
    return not maybe_non_unique(data, (vn0, vt0, lam, mu), CERTIFY_TOL * vscale, work)


@kernel
def count_flagged(data, V, L, work):
    """How many of the steps ``(V[k], L[k])`` (caps in velocity units) the certificate does not prove unique."""
    flagged = 0
    for k in range(V.shape[0]):
        if not certified_unique(data, V[k], L[k], work):
            flagged += 1
    return flagged
