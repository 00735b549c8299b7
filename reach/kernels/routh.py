"""The Routh multi-impact step (paper eq. 72-75) and Algorithms 1-2 as Numba kernels.

One Routh step, given the velocity v and a per-contact normal-impulse cap
``lambda_max >= 0``, solves ``LCP(W, w)`` with ``z = [beta; lambda_n;
lambda_D; gamma]``, ``w = [lambda_max; Jbar v; 0]`` (eq. 75) and moves to

    v' = v + M^-1 Jbar^T [lambda_n; lambda_D]                       (75c)

which never raises kinetic energy (Theorem 7).  Algorithm 1 repeats steps
with ``lambda_max = h p``, ``p`` in ``[0, 1]^m``, while some contact is
colliding and fewer than N steps were taken.  Algorithm 2 runs many samples
and closes each still-colliding one with a step of ``lambda_max = eps / (3
psi) 1`` before dropping what still collides.  (A sample that already
ended non-colliding is left alone: by Lemma 8 that closing step is the
identity there.)

Units.  The kernels see impulses in velocity units: with the problem's mass
scale ``g = max_i (Jn M^-1 Jn^T)_ii`` (1/kg), ``lambda' = g lambda``, the
Delassus blocks of ``W`` are divided by ``g`` and ``M^-1 Jbar^T`` too (see
:class:`RouthData`).  A change of mass unit then leaves every number the
kernels see unchanged, and a change of velocity unit scales ``q`` and the
solution by the same factor (the LCP is positively homogeneous; every
tolerance is relative to ``q``).  Sets are unit-invariant by construction.

Non-unique steps.  Where a step's LCP has several solutions with different
v' (Assumption 6 fails: compass gait, RAMone), the pick matters.  With
``CHOICE_RANDOM`` every step uses a random covering vector for Lemke's method
(log-uniform entries in [1/ratio, ratio], keyed by (seed, sample, step, try)),
``CHOICE_FIRST`` the covering vector of ones, ``CHOICE_ENUMERATE`` every
complementary solution of the step and one distinct v' drawn uniformly,
``CHOICE_EXACT`` the same by contact modes (:mod:`reach.kernels.modes`), with
steps certified unique left to Lemke's method.

Every accepted step is certified: the LCP residual against the data, Theorem
7 (kinetic energy does not rise) and the friction cone in velocity units.

Kernels take contiguous arrays, scalars and named tuples of them, write into
buffers they are given and return status codes; :mod:`reach.sampler` and
:mod:`reach.step` are the Python layer.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from reach.kernels.enumeration import FALLBACK_MAX_N, basis_point, first_solution_kernel
from reach.kernels.lcp import LemkeOptions, LemkeWork, ScaledLCP, make_work, solve_scaled
from reach.kernels.modes import certified_unique, mode_step
from reach.kernels.rng import (COVERING_STREAM, FALLBACK_STREAM, PICK_STREAM, RETRY_STREAM, hashed_uniform,
                               stream_state, uniform_at)
from reach.kernels.verify import clip_and_measure

__all__ = ["CHOICE_FIRST", "CHOICE_RANDOM", "CHOICE_ENUMERATE", "CHOICE_EXACT", "RouthData", "StepOptions", "StepWork",
           "SampleOutput", "SAMPLE_FIELDS", "make_step_work", "allocate_output", "routh_step_kernel",
           "robust_step", "take_step", "colliding", "fill_covering", "run_samples_kernel", "MAX_DISTINCT"]

#: Kernel code of ``solution_choice="first"``: the covering vector of ones.
CHOICE_FIRST = 0
#: Kernel code of ``solution_choice="random"``: a random covering vector per step.
CHOICE_RANDOM = 1
#: Kernel code of ``solution_choice="enumerate"``: basis enumeration, uniform pick.
CHOICE_ENUMERATE = 2
#: Kernel code of ``solution_choice="exact"``: mode enumeration, uniform pick.
CHOICE_EXACT = 3

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


class StepOptions(NamedTuple):
    """Everything a sampling run fixes: Lemke tolerances, caps, certificates, solution choice."""

    lemke: LemkeOptions
    h: float                    # cap scale in velocity units (g h)
    eps_lambda: float           # closing-step cap in velocity units
    colliding_tol: float        # a contact is colliding if its normal velocity < -colliding_tol
    choice: int                 # CHOICE_*
    seed: int
    energy_rtol: float = 1e-8   # Theorem 7: rounding allowance relative to the energy terms
    cone_tol: float = 1e-8      # friction-cone violation allowed, relative to the velocity scale
    covering_ratio: float = 1e3  # random covering entries are log-uniform in [1/ratio, ratio]
    retries: int = 4            # extra random covering vectors after a failed first solve


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


def make_step_work(n, m, nv):
    """Fresh :class:`StepWork` for an LCP of size ``n``, ``m`` contacts and ``nv`` velocities."""
    return StepWork(make_work(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n),
                    np.empty(n, dtype=np.int64), np.empty((n, n)), np.empty(n), np.empty(n),
                    np.empty((MAX_DISTINCT, nv)), np.empty(m), np.empty(nv), np.empty(nv))


class SampleOutput(NamedTuple):
    """Per-sample outputs of :func:`run_samples_kernel` (S samples, the first K with paths)."""

    velocities: np.ndarray      # (S, nv) final velocities
    lcp_solves: np.ndarray      # (S,) int64 LCP solves (closing step included)
    terminated: np.ndarray      # (S,) bool: Algorithm 1 ended non-colliding within N steps
    kept: np.ndarray            # (S,) bool: non-colliding after the closing step (in the set)
    status: np.ndarray          # (S,) int64: 0 ok, 1 a step's LCP failed
    residual: np.ndarray        # (S,) worst relative residual over the steps
    paths: np.ndarray           # (K, N + 2, nv) velocity paths
    path_len: np.ndarray        # (K,) int64 valid rows of each path


#: The per-sample fields (every field of :class:`SampleOutput` but the paths): name -> (dtype, per-velocity).
SAMPLE_FIELDS = {
    "velocities": (np.float64, True),
    "lcp_solves": (np.int64, False),
    "terminated": (np.bool_, False),
    "kept": (np.bool_, False),
    "status": (np.int64, False),
    "residual": (np.float64, False),
}


def allocate_output(count, nv, keep, path_rows):
    """A :class:`SampleOutput` for ``count`` samples, paths for the first ``keep`` of ``path_rows`` rows."""
    arrays = {name: np.zeros((count, nv) if per_v else count, dtype=dtype)
              for name, (dtype, per_v) in SAMPLE_FIELDS.items()}
    return SampleOutput(**arrays, paths=np.full((keep, path_rows, nv), np.nan),
                        path_len=np.zeros(keep, dtype=np.int64))


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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
        distance = -w[m + nb_ + i] / np.sqrt(mu * mu + k)  # impulse from (lambda_n, lambda_D) to the cone
        if distance * gmax > opts.cone_tol * vscale:
            return False
    return True


@nb.njit(cache=True)
def apply_impulse(Minv_JbarT, m, z, v, v_next):
    """``v_next = v + M^-1 Jbar^T lambda_bar`` (eq. 75c) with ``lambda_bar = z[m : m + nb]``."""
    for j in range(v.shape[0]):
        v_next[j] = v[j]
    for r in range(Minv_JbarT.shape[1]):
        lam = z[m + r]
        if lam != 0.0:
            for j in range(v.shape[0]):
                v_next[j] += Minv_JbarT[j, r] * lam


@nb.njit(cache=True)
def routh_step_kernel(data, v, lam, d, opts, work, v_next):
    """One Routh step (eq. 75) with covering vector ``d``: fill ``v_next``; return (status, pivots, residual).

    ``lam`` holds the caps in velocity units.  Besides the LCP verification
    the step must pass :func:`certified`; one that fails gets status 3
    (numerical).  On a failed solve ``v_next`` is a copy of ``v``.
    """
    m = data.Jn.shape[0]
    nb_ = data.Jbar.shape[0]
    fill_q(data.Jbar, m, v, lam, work.q)
    status, pivots, res = solve_scaled(data.lcp, work.q, d, opts.lemke, work.lemke, work.z, work.w)
    if status == 0 and not certified(data.lcp.M, work.q, work.z, work.w, m, nb_, opts):
        status = 3
    if status != 0:
        for j in range(v.shape[0]):
            v_next[j] = v[j]
        return status, pivots, res
    apply_impulse(data.Minv_JbarT, m, work.z, v, v_next)
    return status, pivots, res


@nb.njit(cache=True)
def colliding(Jn, v, tol):
    """Whether some contact's normal velocity ``Jn[i] @ v`` is below ``-tol``."""
    for i in range(Jn.shape[0]):
        acc = 0.0
        for j in range(Jn.shape[1]):
            acc += Jn[i, j] * v[j]
        if acc < -tol:
            return True
    return False


@nb.njit(cache=True)
def fill_covering(d, choice, ratio, seed, sample, step, attempt):
    """The covering vector of (seed, sample, step, attempt): ones for ``CHOICE_FIRST``, else log-uniform.

    Attempt 0 draws from the covering stream, attempt ``t > 0`` from its own
    retry stream, so no two (seed, sample, step, attempt) share numbers.
    """
    if choice == CHOICE_FIRST:
        for i in range(d.shape[0]):
            d[i] = 1.0
        return
    logr = np.log(ratio)
    stream = COVERING_STREAM if attempt == 0 else RETRY_STREAM + attempt
    state = stream_state(seed, stream, sample)
    base = step * d.shape[0]
    for i in range(d.shape[0]):
        d[i] = np.exp(logr * (2.0 * uniform_at(state, base + i) - 1.0))


@nb.njit(cache=True)
def robust_step(data, v, lam, opts, choice, work, sample, step, v_next):
    """A Routh step with the sample's covering vector, made robust; returns (status, residual, solves).

    If the solve fails verification, retry with the covering vector of ones
    and then with up to ``opts.retries`` further random covering vectors
    (ill-conditioned vertices, e.g. opposing friction impulses of 1e4 at
    mu = 1e5, fail verification; another vertex usually does not).  If all
    fail and the LCP is small (n <= FALLBACK_MAX_N), enumerate its
    complementary bases from a random starting set until a solution verifies.
    """
    d = work.d
    fill_covering(d, choice, opts.covering_ratio, opts.seed, sample, step, 0)
    status, pivots, res = routh_step_kernel(data, v, lam, d, opts, work, v_next)
    tries = 1
    if status == 0:
        return status, res, tries
    fill_covering(d, CHOICE_FIRST, opts.covering_ratio, opts.seed, sample, step, 0)
    while True:
        status, pivots, res = routh_step_kernel(data, v, lam, d, opts, work, v_next)
        tries += 1
        if status == 0 or tries >= 2 + opts.retries:
            break
        fill_covering(d, CHOICE_RANDOM, opts.covering_ratio, opts.seed, sample, step, tries - 1)
    n = work.q.shape[0]
    if status == 0 or n > FALLBACK_MAX_N:
        return status, res, tries
    # last resort: work.q and work.lemke.qs still hold this step's data
    m = data.Jn.shape[0]
    offset = int(hashed_uniform(opts.seed, FALLBACK_STREAM, sample, step) * (1 << n))
    found, res = first_solution_kernel(data.lcp, work.q, work.lemke.qs, offset, opts.lemke.verify_tol,
                                       work.members, work.A, work.b, work.x, work.z, work.w)
    tries += 1
    if not found or not certified(data.lcp.M, work.q, work.z, work.w, m, data.Jbar.shape[0], opts):
        return 3, res, tries
    apply_impulse(data.Minv_JbarT, m, work.z, v, v_next)
    return 0, res, tries


@nb.njit(cache=True)
def enumerated_step(data, v, lam, opts, work, sample, step, v_next):
    """A Routh step that picks uniformly among *all* distinct v' of the step's LCP.

    Every complementary index set is tried (sets with ``beta_i`` but not
    ``lambda_n,i`` are skipped when ``lambda_max,i > 0``: ``beta_i > 0`` forces
    ``lambda_n,i = lambda_max,i``); the solutions that verify against the
    data and pass :func:`certified` give candidate velocities, deduplicated to
    1e-9 of the velocity scale, and one is chosen by the hash of (seed,
    sample, step).  Returns the number of distinct v' (0: none verified;
    ``v_next`` untouched).
    """
    lcp = data.lcp
    m = data.Jn.shape[0]
    nb_ = data.Jbar.shape[0]
    q, qs, z, w, distinct = work.q, work.lemke.qs, work.z, work.w, work.distinct
    fill_q(data.Jbar, m, v, lam, q)
    n = q.shape[0]
    nv = v.shape[0]
    for i in range(n):
        qs[i] = lcp.row_scale[i] * q[i]
    vscale = 1e-300
    for j in range(nv):
        vscale = max(vscale, abs(v[j]))
    count = 0
    for mask in range(1 << n):
        skip = False
        for i in range(m):
            if (mask >> i) & 1 and not (mask >> (m + i)) & 1 and lam[i] > 0.0:
                skip = True
                break
        if skip or not basis_point(lcp.Ms, qs, lcp.col_scale, mask, work.members, work.A, work.b,
                                   work.x, z):
            continue
        if not clip_and_measure(lcp.M, q, z, w, lcp.row_scale, lcp.col_scale) <= opts.lemke.verify_tol:
            continue
        if not certified(lcp.M, q, z, w, m, nb_, opts):
            continue
        if count == distinct.shape[0]:
            break
        apply_impulse(data.Minv_JbarT, m, z, v, distinct[count])   # candidate in the next free slot
        duplicate = False
        for c in range(count):
            gap = 0.0
            for j in range(nv):
                gap = max(gap, abs(distinct[c, j] - distinct[count, j]))
            if gap <= 1e-9 * vscale:
                duplicate = True
                break
        if not duplicate:
            count += 1
    if count > 0:
        pick = min(int(hashed_uniform(opts.seed, PICK_STREAM, sample, step) * count), count - 1)
        for j in range(nv):
            v_next[j] = distinct[pick, j]
    return count


@nb.njit(cache=True)
def take_step(data, v, lam, opts, work, sample, step, v_next):
    """Dispatch one step on the solution choice; returns (status, residual, solves)."""
    if opts.choice == CHOICE_EXACT:
        # a certified-unique step is Lemke's (the certificate costs a few small products); the others enumerate
        if data.certified and certified_unique(data, v, lam, work):
            return robust_step(data, v, lam, opts, CHOICE_FIRST, work, sample, step, v_next)
        if mode_step(data, v, lam, opts.seed, sample, step, work, v_next) > 0:
            return 0, 0.0, 1
        return robust_step(data, v, lam, opts, CHOICE_FIRST, work, sample, step, v_next)
    if opts.choice == CHOICE_ENUMERATE:
        if enumerated_step(data, v, lam, opts, work, sample, step, v_next) > 0:
            return 0, 0.0, 1
        return robust_step(data, v, lam, opts, CHOICE_FIRST, work, sample, step, v_next)
    return robust_step(data, v, lam, opts, opts.choice, work, sample, step, v_next)


@nb.njit(cache=True)
def _record(out, s, v):
    """Append ``v`` to sample ``s``'s stored path, if its path is kept."""
    if s < out.paths.shape[0]:
        k = out.path_len[s]
        for j in range(v.shape[0]):
            out.paths[s, k, j] = v[j]
        out.path_len[s] = k + 1


@nb.njit(cache=True)
def _accept(out, s, v, v_next, res, worst):
    """Move to ``v_next``, record it; returns the updated worst residual."""
    for j in range(v.shape[0]):
        v[j] = v_next[j]
    _record(out, s, v)
    return max(worst, res)


@nb.njit(cache=True)
def run_samples_kernel(data, opts, P, first_index, out, work):
    """Algorithm 1 for every row of ``P`` plus Algorithm 2's closing step; no per-sample Python.

    Parameters
    ----------
    data : RouthData
    opts : StepOptions
    P : (S, N, m) float array of p values in [0, 1] (caps ``h p``)
    first_index : int
        Global index of ``P[0]`` (randomness is keyed by the global index).
    out : SampleOutput with S samples (paths of the first K)
    work : StepWork
    """
    S = P.shape[0]
    N = P.shape[1]
    m = data.Jn.shape[0]
    lam, v, v_next = work.lam, work.v, work.v_next
    for s in range(S):
        gidx = first_index + s
        for j in range(v.shape[0]):
            v[j] = data.v0[j]
        if s < out.paths.shape[0]:
            out.path_len[s] = 0
        _record(out, s, v)
        solves = 0
        worst = 0.0
        failed = False
        step = 0
        while step < N and colliding(data.Jn, v, opts.colliding_tol):
            for i in range(m):
                lam[i] = opts.h * P[s, step, i]
            status, res, tries = take_step(data, v, lam, opts, work, gidx, step, v_next)
            solves += tries
            step += 1
            if status != 0:
                failed = True
                break
            worst = _accept(out, s, v, v_next, res, worst)
        still = colliding(data.Jn, v, opts.colliding_tol)
        out.terminated[s] = not still and not failed
        if still and not failed:
            for i in range(m):
                lam[i] = opts.eps_lambda
            status, res, tries = take_step(data, v, lam, opts, work, gidx, N, v_next)
            solves += tries
            if status != 0:
                failed = True
            else:
                worst = _accept(out, s, v, v_next, res, worst)
            still = colliding(data.Jn, v, opts.colliding_tol)
        for j in range(v.shape[0]):
            out.velocities[s, j] = v[j]
        out.lcp_solves[s] = solves
        out.kept[s] = not still and not failed
        out.status[s] = 1 if failed else 0
        out.residual[s] = worst
