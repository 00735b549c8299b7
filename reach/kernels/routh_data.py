"""The Routh step's data, options and work arrays as the kernels take them, and its algebra.

:class:`RouthData` holds a problem's arrays in the kernels' units (impulses
times the mass scale: see :mod:`reach.kernels.routh`), :class:`StepOptions`
what a sampling run fixes, :class:`StepWork` the preallocated work arrays
of one problem size.  :func:`fill_q` builds a step's LCP vector (eq. 75a),
:func:`apply_impulse` moves to ``v'`` (75c) and :func:`certified` checks a
solution's physics (Theorem 7 and the friction cone): shared by Lemke's
steps (:mod:`reach.kernels.routh`) and the mode steps of planar problems
(:mod:`reach.kernels.planar`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from reach.kernels.jit import kernel
from reach.kernels.lcp import STRICT_OPTIONS, LemkeOptions, LemkeWork, ScaledLCP, make_work

__all__ = ["MAX_DISTINCT", "RouthData", "StepOptions", "StepWork", "make_step_work", "fill_q", "certified",
           "apply_impulse"]

#: Most distinct v' an enumerated step keeps.
MAX_DISTINCT = 64


class RouthData(NamedTuple):
    """A problem's arrays as the kernels take them (impulses in velocity units, see the module)."""

    lcp: ScaledLCP              # W with Delassus blocks / g, and its equilibration
    Jbar: np.ndarray            # (nb, nv)  [Jn; J_D]
    Minv_JbarT: np.ndarray      # (nv, nb)  M^-1 Jbar^T / g
    Jn: np.ndarray              # (m, nv)
    v0: np.ndarray              # (nv,) pre-impact velocity
    # exact choice (solution_choice="exact"; reach.kernels.modes.certificate_data), empty when unused
    certified: bool             # the uniqueness certificate holds (singular pieces have one null direction)
    piece_modes: np.ndarray     # (K, m) int8 modes of the negative and singular pieces
    piece_inv: np.ndarray       # (K, 2m, 2m) their inverses (pseudo-inverses where singular)
    piece_null: np.ndarray      # (K, 2, 2m) NaN, or a singular piece's left and right null vectors
    mode_inv: np.ndarray        # (7^m, 2m, 2m) every piece's inverse for the enumeration, or (0, 2m, 2m)
    # every piece's inequalities (reach.kernels.planar.piece_table), empty when unused
    piece_rows: np.ndarray      # (7^m, 5m, 3m) rows over [v_n0; v_t0; lambda_max]
    piece_nrows: np.ndarray     # (7^m,) int64 rows used, -1 for a singular piece
    piece_cond: np.ndarray      # (7^m, 5m) int64 the contact whose cap must be positive for a row to count, or -1
    piece_mask: np.ndarray      # (7^m,) int64 contacts given an impulse, as bits


class StepOptions(NamedTuple):
    """Everything a sampling run fixes: Lemke tolerances, caps, certificates, solution choice."""

    lemke: LemkeOptions
    h: float                    # cap scale in velocity units (g h)
    eps_lambda: float           # closing-step cap in velocity units
    colliding_tol: float        # a contact is colliding if its normal velocity < -colliding_tol
    choice: int                 # reach.kernels.routh.CHOICE_*
    seed: int
    energy_rtol: float = 1e-8   # Theorem 7: rounding allowance relative to the energy terms
    cone_tol: float = 1e-8      # friction-cone violation allowed, relative to the velocity scale
    covering_ratio: float = 1e3  # random covering entries are log-uniform in [1/ratio, ratio]
    retries: int = 4            # extra random covering vectors after a failed first solve
    lemke_strict: LemkeOptions = STRICT_OPTIONS  # a last try's Lemke options: strict ratio ties


class StepWork(NamedTuple):
    """Work arrays of one problem size (LCP n, contacts m, velocity nv)."""

    lemke: LemkeWork
    q: np.ndarray               # (n,)
    z: np.ndarray               # (n,)
    w: np.ndarray               # (n,)
    d: np.ndarray               # (n,) covering vector
    members: np.ndarray         # (n,) int64, enumeration
    A: np.ndarray               # (n, n), enumeration
    b: np.ndarray               # (n,), enumeration
    x: np.ndarray               # (n,), enumeration
    distinct: np.ndarray        # (MAX_DISTINCT, nv) candidate v' of an enumerated step
    lam: np.ndarray             # (m,)
    v: np.ndarray               # (nv,)
    v_next: np.ndarray          # (nv,)
    contact: np.ndarray         # (3, m) each contact's normal and tangential velocity and mu (planar steps)
    piece: np.ndarray           # (1,) int64 mode piece of the sample's last planar step, -1 at its start
    codes: np.ndarray           # (MAX_DISTINCT,) int64 the piece of each candidate v' of an enumerated step
    s: np.ndarray               # (3m,) [v_n0; v_t0; lambda_max] of a planar step


def make_step_work(n, m, nv):
    """Fresh :class:`StepWork` for an LCP of size ``n``, ``m`` contacts and ``nv`` velocities."""
    return StepWork(make_work(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                    np.empty(n, dtype=np.int64), np.empty((n, n)), np.empty(n), np.empty(n),
                    np.empty((MAX_DISTINCT, nv)), np.empty(m), np.empty(nv), np.empty(nv), np.empty((3, m)),
                    np.full(1, -1, dtype=np.int64), np.empty(MAX_DISTINCT, dtype=np.int64), np.empty(3 * m))



@kernel
def fill_q(Jbar, m, v, lam, q):
    """The Routh-step LCP vector ``q = [lambda_max; Jbar v; 0]`` (eq. 75a)."""
    nb_ = Jbar.shape[0]
    for i in range(m):
        q[i] = lam[i]
    for r in range(nb_):
        acc = 0.0
        for j in range(v.shape[0]):
            acc += Jbar[r, j] * v[j]
        q[m + r] = acc
    for i in range(m + nb_, q.shape[0]):
        q[i] = 0.0


@kernel
def certified(W, q, z, w, m, nb_, opts):
    """Physical certificates of a step's solution: Theorem 7 and the friction cone.

    Energy: ``dK = lambda . Jbar v + lambda^T G lambda / 2 <= 0`` with G the
    Delassus block of W (``Jbar v`` sits in ``q``), rounding allowed relative
    to the terms' magnitudes plus an energy floor ``(Jbar v)_r^2 / G_rr``.
    Cone: the distance of each contact's impulse ``(lambda_n, lambda_D)`` to
    its friction cone, ``max(0, sum lambda_D - mu lambda_n) / sqrt(mu^2 + k)``,
    turned into a velocity (times the largest Delassus diagonal entry), may be
    at most ``cone_tol`` of the velocity scale: a friction impulse outside the
    cone that the LCP's row scaling would hide is refused, while at mu = 1e5 a
    friction impulse with a normal impulse 1e5 times smaller is (rightly) not.
    """
    dk = 0.0
    magnitude = 0.0
    vscale = 0.0
    gmax = 0.0
    for r in range(nb_):
        vscale = max(vscale, abs(q[m + r]))
        g = W[m + r, m + r]
        gmax = max(gmax, g)
        if g > 0.0:
            magnitude += 1e-4 * q[m + r] * q[m + r] / g
        lam = z[m + r]
        if lam != 0.0:
            t = lam * q[m + r]
            acc = 0.0
            for c in range(nb_):
                acc += W[m + r, m + c] * z[m + c]
            dk += t + 0.5 * lam * acc
            magnitude += abs(t) + 0.5 * abs(lam * acc)
    if not dk <= opts.energy_rtol * magnitude:
        return False
    k = (nb_ - m) // m
    for i in range(m):
        mu = W[m + nb_ + i, m + i]
        distance = -w[m + nb_ + i] / math.sqrt(mu * mu + k)  # impulse from (lambda_n, lambda_D) to the cone
        if distance * gmax > opts.cone_tol * vscale:
            return False
    return True


@kernel
def apply_impulse(Minv_JbarT, m, z, v, v_next):
    """``v_next = v + M^-1 Jbar^T lambda_bar`` (eq. 75c) with ``lambda_bar = z[m : m + nb]``."""
    for j in range(v.shape[0]):
        v_next[j] = v[j]
    for r in range(Minv_JbarT.shape[1]):
        lam = z[m + r]
        if lam != 0.0:
            for j in range(v.shape[0]):
                v_next[j] += Minv_JbarT[j, r] * lam
