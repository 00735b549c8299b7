"""Planar Routh steps solved on their contact modes: the structure of W, not a tableau.

A planar step's LCP (eq. 75) has ``5 m`` unknowns ``z = [beta; lambda_n;
lambda_D; gamma]``, but only the Delassus block of W couples contacts: the
cap slack ``beta`` and the sliding speed ``gamma`` follow from the
impulses, and on each contact mode (:mod:`reach.kernels.modes`) the step is
``2 m`` linear equations in ``x = (lambda_n, lambda_t)`` whose inverses are
computed once per problem.  Two kernels use this instead of Lemke's method:

* :func:`piece_step` solves a step that the certificate proves to have one
  solution (:func:`reach.kernels.modes.certified_unique`): it tries pieces —
  first the piece of the sample's previous step, which usually still holds,
  at a sample's first step a piece guessed from the contact velocities —
  until one holds the solution.  A step costs the certificate plus a few
  small products instead of a Lemke path;
* :func:`mode_step` tries every piece, keeps the distinct ``v'`` and draws one
  uniformly, keyed by (seed, sample, step): exact choice at steps that may
  have several solutions (SPEC §7).

Either way the answer is rebuilt as the LCP's ``z`` (:func:`lcp_point`) and
verified as Lemke's answers are: the residual against the original data, and
:func:`reach.kernels.routh_data.certified` (Theorem 7, friction cone).  The
search order depends only on the sample's own steps, so a sample's outcome
does not depend on which samples ran before it in the same worker.
"""

from __future__ import annotations

import math
import numpy as np

from reach.kernels.linalg import solve_dense
from reach.kernels.jit import kernel
from reach.kernels.lcp import NUMERICAL
from reach.kernels.modes import MODES, admissible, assemble, contact_data, contact_rows, piece_count
from reach.kernels.rng import PICK_STREAM, hashed_uniform
from reach.kernels.routh_data import apply_impulse, certified, fill_q
from reach.kernels.verify import clip_and_measure

__all__ = ["ENUMERATION_TOL", "MAX_TABLE_CONTACTS", "PIECE_STEP_MAX_CONTACTS", "piece_table", "next_tabled_piece", "piece_holds", "lcp_point", "verify_point", "guess_piece", "piece_step", "mode_step"]

#: Inequality tolerance of a piece's solution, relative to the step's velocity scale.
ENUMERATION_TOL = 1e-9
#: Most contacts whose pieces' inequalities are tabulated (:func:`piece_table`; 7^4 pieces take 4.6 MB).
MAX_TABLE_CONTACTS = 4
#: Most contacts where a certified-unique step is solved by :func:`piece_step`; above, Lemke's method costs
#: less (the step has one solution, so both give the same v').  A row of discs, recorded steps, CPU µs a step:
#: three contacts 2.9 by pieces against 3.5 by Lemke's method; four contacts 32.5 against 5.0, the search
#: running through about half of the 2,401 pieces.
PIECE_STEP_MAX_CONTACTS = 3


def piece_table(W, m, mode_inv):
    """Every piece's inequalities as linear rows over ``s = [v_n0; v_t0; lambda_max]`` (3m), once per problem.

    On piece ``p`` the impulses are ``x = inv_p B_p s`` and the contact
    velocities after the step are linear in ``s`` too, so each inequality of
    :func:`~reach.kernels.modes.admissible` (and the bounds ``0 <= lambda_n
    <= cap``) is a row ``r`` with ``r . s >= -tol``.  The normal impulses'
    bounds come first: most pieces fail there.  Returns ``(rows (P, 5m, 3m),
    nrows (P,) int64, -1 for a singular piece; cond (P, 5m) int64, the
    contact whose cap must be positive for the row to count (a contact capped
    at 0 may close), else -1; mask (P,) int64, the contacts the piece gives an
    impulse, as bits)``.  ``W`` is the kernels' step matrix, ``mode_inv``
    every piece's inverse (:func:`~reach.kernels.modes.certificate_data`).
    """
    P, d = MODES ** m, 3 * m
    rows = np.zeros((P, 5 * m, d))
    nrows = np.full(P, -1, dtype=np.int64)
    cond = np.full((P, 5 * m), -1, dtype=np.int64)
    mask = np.zeros(P, dtype=np.int64)
    n_, t_ = m + np.arange(m), 2 * m + 2 * np.arange(m)
    Gn = np.hstack([W[np.ix_(n_, n_)], W[np.ix_(n_, t_)]])  # v_n' = v_n0 + Gn x, x = [lambda_n; lambda_t]
    Gt = np.hstack([W[np.ix_(t_, n_)], W[np.ix_(t_, t_)]])
    mu = np.array([W[4 * m + i, m + i] for i in range(m)])
    eye = np.eye(d)
    for code in range(P):
        if math.isnan(mode_inv[code, 0, 0]):
            continue
        modes = [(code // MODES**i) % MODES for i in range(m)]
        B = np.zeros((2 * m, d))
        for i, mode in enumerate(modes):
            if mode != 0:
                B[i] = eye[2 * m + i] if mode <= 3 else -eye[i]
                if (mode - 1) % 3 == 0:
                    B[m + i] = -eye[m + i]
                mask[code] |= 1 << i
        X = mode_inv[code] @ B
        VN, VT = eye[:m] + Gn @ X, eye[m:2 * m] + Gt @ X
        first, later = [], []
        for i, mode in enumerate(modes):
            if mode == 0:
                later.append((VN[i], i))
                continue
            first += [(X[i], -1), ((1 + 1e-12) * eye[2 * m + i] - X[i], -1)]
            if mode <= 3:
                later.append((-VN[i], -1))
            kind = (mode - 1) % 3
            if kind == 0:
                later += [(mu[i] * X[i] - X[m + i], -1), (mu[i] * X[i] + X[m + i], -1)]
            else:
                later.append((VT[i] if kind == 1 else -VT[i], -1))
        for r, (row, c) in enumerate(first + later):
            rows[code, r], cond[code, r] = row, c
        nrows[code] = len(first) + len(later)
    return rows, nrows, cond, mask


@kernel
def next_tabled_piece(rows, nrows, cond, mask, first, stop, s, zero_mask, lam, tol):
    """The first piece in ``first .. stop - 1`` meeting its tabulated inequalities at ``s``, or -1.

    See :func:`piece_table`; ``zero_mask``: the step's contacts capped at 0, as bits.
    """
    d = s.shape[0]
    for code in range(first, stop):
        n = nrows[code]
        if n < 0 or (mask[code] & zero_mask) != 0:
            continue
        ok = True
        for r in range(n):
            c = cond[code, r]
            if c >= 0 and lam[c] == 0.0:
                continue
            acc = 0.0
            for j in range(d):
                acc += rows[code, r, j] * s[j]
            if acc < -tol:
                ok = False
                break
        if ok:
            return code
    return -1


@kernel(inline="always")
def piece_holds(W, inv, m, code, modes, contacts, tol, work, x, tabled):
    """Whether piece ``code`` holds a solution of the step within ``tol``; its impulses go into ``x``.

    ``contacts`` is the step's ``(vn0, vt0, lam, mu)``.  ``x`` comes from the
    piece's stored inverse (``inv``,
    :func:`~reach.kernels.modes.certificate_data`), or from solving its
    equations where none are stored (``work.A``, ``work.b`` scratch).  ``tabled``: the
    piece is known to meet its inequalities (:func:`next_tabled_piece`), only
    ``x`` is wanted.

    This repeats :func:`~reach.kernels.modes.decode`,
    :func:`~reach.kernels.modes.uncapped` and
    :func:`~reach.kernels.modes.piece_point` in one loop on purpose: through
    those helpers the certified planar step ran 20-25 % slower (compass gait,
    0.86 against 1.05-1.13 us a step, measured with a scratch script).
    """
    vn0, vt0, lam, mu = contacts
    A, b = work.A, work.b
    rest = code
    for i in range(m):  # decode the modes, skip a piece that gives a contact capped at 0 an impulse, right side
        mode = rest % MODES
        rest //= MODES
        modes[i] = mode
        if mode != 0 and lam[i] == 0.0:
            return False
        b[i] = 0.0 if mode == 0 else (lam[i] if mode <= 3 else -vn0[i])
        b[m + i] = -vt0[i] if mode != 0 and (mode - 1) % 3 == 0 else 0.0
    k = 2 * m
    if inv.shape[0] > 0:
        if math.isnan(inv[code, 0, 0]):
            return False
        for r in range(k):  # normal impulses first: most pieces fail there, after a row or two
            acc = 0.0
            for c in range(k):
                acc += inv[code, r, c] * b[c]
            x[r] = acc
            if not tabled and r < m and modes[r] != 0 and (acc < -tol or acc > lam[r] + tol + 1e-12 * lam[r]):
                return False
    else:
        assemble(W, m, modes, vn0, vt0, lam, mu, A, b)
        if not solve_dense(A, b, x, k):
            return False
    return tabled or admissible(W, m, modes, contacts, x, tol)


@kernel(inline="always")
def _step_vector(m, vn0, vt0, lam, s):
    """``s = [v_n0; v_t0; lambda_max]`` of the step, and its contacts capped at 0 as bits."""
    zero_mask = np.int64(0)  # typed, not a literal 0: its callees compile once
    for i in range(m):
        s[i], s[m + i], s[2 * m + i] = vn0[i], vt0[i], lam[i]
        if lam[i] == 0.0:
            zero_mask |= 1 << i
    return zero_mask


@kernel(inline="always")
def lcp_point(W, m, modes, x, vn0, vt0, z):
    """The LCP solution ``z = [beta; lambda_n; lambda_D; gamma]`` (eq. 75) of a piece's impulses ``x``.

    ``beta_i = max(0, -v_n,i')`` where the normal impulse is capped (or absent:
    a contact capped at 0 may close), else 0; ``lambda_D = (max(lambda_t, 0),
    max(-lambda_t, 0))``; ``gamma_i = |v_t,i'|``, the sliding speed.
    """
    for i in range(m):
        vn, vt = vn0[i], vt0[i]
        for j in range(m):
            nn, nt, tn, tt = contact_rows(W, m, i, j)
            vn += nn * x[j] + nt * x[m + j]
            vt += tn * x[j] + tt * x[m + j]
        mode = modes[i]
        ln = x[i] if mode != 0 else 0.0
        lt = x[m + i] if mode != 0 else 0.0
        z[i] = max(-vn, 0.0) if mode <= 3 else 0.0
        z[m + i] = max(ln, 0.0)
        z[2 * m + 2 * i] = max(lt, 0.0)
        z[2 * m + 2 * i + 1] = max(-lt, 0.0)
        z[4 * m + i] = abs(vt)


@kernel(inline="always")
def verify_point(data, v, lam, modes, x, vn0, vt0, opts, work, v_next):
    """Rebuild ``z`` from a piece's impulses, verify it as Lemke's answers are and move to ``v'``.

    Returns (verified, residual); ``v_next`` is written only when verified.
    """
    lcp = data.lcp
    m = data.Jn.shape[0]
    fill_q(data.Jbar, m, v, lam, work.q)
    lcp_point(lcp.M, m, modes, x, vn0, vt0, work.z)
    res = clip_and_measure(lcp.MT, work.q, work.z, work.w, lcp.row_scale, lcp.col_scale)
    if not (res <= opts.lemke.verify_tol and certified(lcp.M, work.q, work.z, work.w, m, data.Jbar.shape[0], opts)):
        return False, res
    apply_impulse(data.Minv_JbarT, m, work.z, v, v_next)
    return True, res


@kernel
def guess_piece(m, vn0, vt0, lam):
    """A likely piece at a sample's first step: closing contacts capped, sliding against their motion."""
    code = 0
    for i in range(m - 1, -1, -1):
        mode = 0
        if vn0[i] < 0.0 and lam[i] > 0.0:
            mode = 2 if vt0[i] > 0.0 else (3 if vt0[i] < 0.0 else 1)
        code = code * MODES + mode
    return code


@kernel
def piece_step(data, v, lam, opts, work, v_next):
    """The one solution of a step certified unique, found piece by piece; returns (status, residual).

    Pieces are tried cyclically in code order from ``work.piece[0]`` (the
    sample's previous step; a guess where it is -1), which is updated.
    Status 0: solved and verified; 3: no piece held a verified solution
    (the caller falls back to Lemke's method).
    """
    m = data.Jn.shape[0]
    vn0, vt0, mu = work.contact[0], work.contact[1], work.contact[2]
    tol = ENUMERATION_TOL * contact_data(data, v, vn0, vt0, mu)
    total = piece_count(m)
    W, inv = data.lcp.M, data.mode_inv
    rows, nrows, cond, pmask = data.piece_rows, data.piece_nrows, data.piece_cond, data.piece_mask
    tabled = nrows.shape[0] > 0
    sv = work.s
    zero_mask = _step_vector(m, vn0, vt0, lam, sv)
    start = work.piece[0]
    if start < 0:
        start = guess_piece(m, vn0, vt0, lam)
    modes = work.members
    if tabled:  # the first piece that meets its inequalities holds the solution
        code = next_tabled_piece(rows, nrows, cond, pmask, start, total, sv, zero_mask, lam, tol)
        if code < 0:
            code = next_tabled_piece(rows, nrows, cond, pmask, 0, start, sv, zero_mask, lam, tol)
        found = code >= 0 and piece_holds(W, inv, m, code, modes, (vn0, vt0, lam, mu), tol, work, work.x,
                                          True)
    else:
        found = False
        for k in range(total):
            code = start + k if start + k < total else start + k - total
            if piece_holds(W, inv, m, code, modes, (vn0, vt0, lam, mu), tol, work, work.x, False):
                found = True
                break
    if found:
        work.piece[0] = code
        ok, res = verify_point(data, v, lam, modes, work.x, vn0, vt0, opts, work, v_next)
        return (0 if ok else 3), res
    return NUMERICAL, 0.0


@kernel
def mode_step(data, v, lam, opts, sample, step, work, v_next):
    """Every distinct v' of a planar Routh step (``work.distinct``), one drawn uniformly into ``v_next``.

    ``lam`` holds the caps in the kernels' velocity units.  The drawn ``v'``
    is rebuilt as the LCP's ``z`` and verified (:func:`verify_point`).
    Returns (count, verified, residual); where no piece held a solution (a
    singular system everywhere: count 0) or the drawn one failed
    verification, ``v_next`` is not written and the caller falls back to
    Lemke's method.
    """
    m = data.Jn.shape[0]
    nv = v.shape[0]
    x, distinct, codes, modes = work.x, work.distinct, work.codes, work.members
    vn0, vt0, mu = work.contact[0], work.contact[1], work.contact[2]
    tol = ENUMERATION_TOL * contact_data(data, v, vn0, vt0, mu)
    same = 1e-300
    for j in range(nv):
        same = max(same, abs(v[j]))
    same *= 1e-9  # distinct v' differ by more than this (as in the basis enumeration)
    count = 0
    W, inv = data.lcp.M, data.mode_inv
    rows, nrows, cond, pmask = data.piece_rows, data.piece_nrows, data.piece_cond, data.piece_mask
    tabled = nrows.shape[0] > 0
    sv = work.s
    zero_mask = _step_vector(m, vn0, vt0, lam, sv)
    total, code = piece_count(m), -1
    contacts = (vn0, vt0, lam, mu)
    while True:
        if tabled:  # jump to the next piece that meets its inequalities
            code = next_tabled_piece(rows, nrows, cond, pmask, code + 1, total, sv, zero_mask, lam, tol)
            if code < 0:
                break
        else:
            code += 1
            if code == total:
                break
        if not piece_holds(W, inv, m, code, modes, contacts, tol, work, x, tabled):
            continue
        if count == distinct.shape[0]:
            break
        for j in range(nv):
            acc = v[j]
            for i in range(m):
                acc += data.Minv_JbarT[j, i] * x[i] + data.Minv_JbarT[j, m + 2 * i] * x[m + i]
            distinct[count, j] = acc
        duplicate = False
        for c in range(count):
            gap = 0.0
            for j in range(nv):
                gap = max(gap, abs(distinct[c, j] - distinct[count, j]))
            if gap <= same:
                duplicate = True
                break
        if not duplicate:
            codes[count] = code
            count += 1
    if count == 0:
        return 0, False, 0.0
    pick = min(int(hashed_uniform(opts.seed, PICK_STREAM, sample, step) * count), count - 1)
    piece_holds(W, inv, m, codes[pick], modes, contacts, tol, work, x, True)
    ok, res = verify_point(data, v, lam, modes, x, vn0, vt0, opts, work, v_next)
    if ok:
        work.piece[0] = codes[pick]
    return count, ok, res
