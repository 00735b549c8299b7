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
:class:`~reach.kernels.routh_data.RouthData`).  A change of mass unit then leaves every number the
kernels see unchanged, and a change of velocity unit scales ``q`` and the
solution by the same factor (the LCP is positively homogeneous; every
tolerance is relative to ``q``).  Sets are unit-invariant by construction.

Non-unique steps.  Where a step's LCP has several solutions with different
v' (Assumption 6 fails: compass gait, RAMone), the pick matters.  With
``CHOICE_RANDOM`` every step uses a random covering vector for Lemke's method
(log-uniform entries in [1/ratio, ratio], keyed by (seed, sample, step, try)),
``CHOICE_FIRST`` the covering vector of ones, ``CHOICE_ENUMERATE`` every
complementary solution of the step and one distinct v' drawn uniformly,
``CHOICE_EXACT`` the same by contact modes (:mod:`reach.kernels.planar`), with
steps certified unique solved piece by piece instead of by Lemke's method,
``CHOICE_WALK`` a random covering vector and then one hop of Lemke's walk to
another solution, of either index (:mod:`reach.kernels.hop`).

Every accepted step is certified: the LCP residual against the data, Theorem
7 (kinetic energy does not rise) and the friction cone in velocity units.

Kernels take contiguous arrays, scalars and named tuples of them, write into
buffers they are given and return status codes; :mod:`reach.sampling.engine` and
:mod:`reach.problem.step` are the Python layer.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.kernels.enumeration import FALLBACK_MAX_N, basis_point, first_solution_kernel
from reach.kernels.hop import hop_step
from reach.kernels.jit import kernel
from reach.kernels.lcp import NUMERICAL, SOLVED, solve_scaled
from reach.kernels.modes import certified_unique
from reach.kernels.planar import PIECE_STEP_MAX_CONTACTS, mode_step, piece_step
from reach.kernels.routh_data import apply_impulse, certified, fill_q
from reach.kernels.rng import (COVERING_STREAM, FALLBACK_STREAM, PICK_STREAM, RETRY_STREAM, hashed_uniform,
                               log_uniform_fill, stream_state)
from reach.kernels.verify import clip_and_measure

__all__ = ["CHOICE_FIRST", "CHOICE_RANDOM", "CHOICE_ENUMERATE", "CHOICE_EXACT", "CHOICE_WALK", "SampleOutput", "SAMPLE_FIELDS",
           "allocate_output", "routh_step_kernel", "robust_step", "modes_or_bases", "take_step", "colliding", "fill_covering",
           "modes_flag", "certify_flag", "begin_sample", "sample_going", "sample_step", "finish_sample", "run_sample",
           "run_samples_kernel"]

#: Kernel code of ``solution_choice="first"``: the covering vector of ones.
CHOICE_FIRST = 0
#: Kernel code of ``solution_choice="random"``: a random covering vector per step.
CHOICE_RANDOM = 1
#: Kernel code of ``solution_choice="enumerate"``: basis enumeration, uniform pick.
CHOICE_ENUMERATE = 2
#: Kernel code of ``solution_choice="exact"``: mode enumeration, uniform pick.
CHOICE_EXACT = 3
#: Kernel code of ``solution_choice="walk"``: a random covering vector, then a hop (:mod:`reach.kernels.hop`).
CHOICE_WALK = 4

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


@kernel
def routh_step_kernel(data, v, lam, d, opts, lemke_opts, work, v_next):
    """One Routh step (eq. 75) with covering vector ``d``: fill ``v_next``; return (status, pivots, residual).

    ``lam`` holds the caps in velocity units; ``lemke_opts`` are Lemke's
    options (``opts.lemke``, or ``opts.lemke_strict`` for a last try).  Besides the LCP verification
    the step must pass :func:`certified`; one that fails gets status 3
    (numerical).  On a failed solve ``v_next`` is a copy of ``v``.
    """
    m = data.Jn.shape[0]
    nb_ = data.Jbar.shape[0]
    fill_q(data.Jbar, m, v, lam, work.q)
    status, pivots, res = solve_scaled(data.lcp, work.q, d, lemke_opts, work.lemke, work.z, work.w)
    if status == SOLVED and not certified(data.lcp.M, work.q, work.z, work.w, m, nb_, opts):
        status = NUMERICAL
    if status != SOLVED:
        for j in range(v.shape[0]):
            v_next[j] = v[j]
        return status, pivots, res
    apply_impulse(data.Minv_JbarT, m, work.z, v, v_next)
    return status, pivots, res


@kernel
def colliding(Jn, v, tol):
    """Whether some contact's normal velocity ``Jn[i] @ v`` is below ``-tol``."""
    for i in range(Jn.shape[0]):
        acc = 0.0
        for j in range(Jn.shape[1]):
            acc += Jn[i, j] * v[j]
        if acc < -tol:
            return True
    return False


@kernel
def fill_covering(d, choice, ratio, seed, sample, step, attempt):
    """The covering vector of (seed, sample, step, attempt): ones for ``CHOICE_FIRST``, else log-uniform.

    Attempt 0 draws from the covering stream, attempt ``t > 0`` from its own
    retry stream, so no two (seed, sample, step, attempt) share numbers.
    """
    if choice == CHOICE_FIRST:
        for i in range(d.shape[0]):
            d[i] = 1.0
        return
    stream = COVERING_STREAM if attempt == 0 else RETRY_STREAM + attempt
    log_uniform_fill(d, ratio, stream_state(seed, stream, sample), step * d.shape[0])


@kernel
def robust_step(data, v, lam, opts, choice, work, sample, step, v_next):
    """A Routh step with the sample's covering vector, made robust; returns (status, residual, solves).

    If the solve fails verification, retry with another covering vector — the
    covering vector of ones, or under ``CHOICE_FIRST`` (which tried ones
    already) the sample's random covering vector of that step — and then with
    up to ``opts.retries`` further random covering vectors
    (ill-conditioned vertices, e.g. opposing friction impulses of 1e4 at
    mu = 1e5, fail verification; another vertex usually does not).  If all
    fail and the LCP is small (n <= FALLBACK_MAX_N), enumerate its
    complementary bases from a random starting set until a solution verifies.
    Last, solve once more with the first covering vector and Lemke's strict
    ratio ties (``opts.lemke_strict``): a near-tie taken as a tie can end the
    path on a basis a hair from the solution (a tiny sliding speed set to
    zero, residual 1e-8), which exact ties avoid.  Each fallback runs only
    where everything before it failed, so a step that verified before is
    solved the same way, bit for bit.

    Every try goes through one call of :func:`routh_step_kernel` (LLVM may
    compile a callee into each of its call sites; with one site for each of
    the step's callees a cold compile of the sampling kernel took 84 s
    instead of 90 s here, with the same answers).
    """
    d = work.d
    n = work.q.shape[0]
    covering_tries = 2 + opts.retries
    attempt = 0
    solves = 0
    first, other = np.int64(0), np.int64(CHOICE_RANDOM)  # typed, not literals: fill_covering compiles once
    while True:
        if attempt == 0 or attempt == covering_tries:  # the last try: the first covering vector, strict ties
            fill_covering(d, choice, opts.covering_ratio, opts.seed, sample, step, first)
        elif attempt == 1:  # the other of ones and the step's random covering vector
            fill_covering(d, other if choice == CHOICE_FIRST else CHOICE_FIRST, opts.covering_ratio,
                          opts.seed, sample, step, first)
        else:
            fill_covering(d, other, opts.covering_ratio, opts.seed, sample, step, attempt - 1)
        lemke_opts = opts.lemke_strict if attempt == covering_tries else opts.lemke
        status, pivots, res = routh_step_kernel(data, v, lam, d, opts, lemke_opts, work, v_next)
        solves += 1
        attempt += 1
        if status == SOLVED or attempt > covering_tries:
            break
        if attempt == covering_tries and n <= FALLBACK_MAX_N:
            # enumeration: work.q and work.lemke.qs still hold this step's data
            m = data.Jn.shape[0]
            offset = int(hashed_uniform(opts.seed, FALLBACK_STREAM, sample, step) * (1 << n))
            found, res = first_solution_kernel(data.lcp, work.q, work.lemke.qs, offset, opts.lemke.verify_tol, work)
            solves += 1
            if found and certified(data.lcp.M, work.q, work.z, work.w, m, data.Jbar.shape[0], opts):
                apply_impulse(data.Minv_JbarT, m, work.z, v, v_next)
                return SOLVED, res, solves
    return status, res, solves


@kernel
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
        if not clip_and_measure(lcp.MT, q, z, w, lcp.row_scale, lcp.col_scale) <= opts.lemke.verify_tol:
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


@kernel
def modes_or_bases(data, v, lam, opts, work, sample, step, v_next, certify):
    """Exact choice's or enumeration's step; returns (solved, residual, the choice Lemke's method falls back on)."""
    choice = opts.choice
    if choice == CHOICE_EXACT:
        res = 0.0
        if certify is not None and certified_unique(data, v, lam, work):
            if data.piece_nrows.shape[0] == 0 or data.Jn.shape[0] > PIECE_STEP_MAX_CONTACTS:
                status = NUMERICAL  # no table, or too many pieces: Lemke's path costs less than trying pieces
            else:
                status, res = piece_step(data, v, lam, opts, work, v_next)
        else:
            count, ok, res = mode_step(data, v, lam, opts, sample, step, work, v_next)
            status = 0 if ok else 3
        return status == SOLVED, res, CHOICE_FIRST
    if choice == CHOICE_ENUMERATE:
        return enumerated_step(data, v, lam, opts, work, sample, step, v_next) > 0, 0.0, CHOICE_FIRST
    if choice == CHOICE_WALK:
        return False, 0.0, CHOICE_RANDOM
    return False, 0.0, int(choice)


@kernel(inline="always")  # (its own kernel, Numba would optimize the step's whole chain once more: see run_sample)
def take_step(data, v, lam, opts, work, sample, step, v_next, modes, certify):
    """Dispatch one step on the solution choice; returns (status, residual, solves).

    ``modes`` is ``True`` (exact choice, enumeration) or ``None`` (random and
    first choice), a matter of type, so each compiles its own kernel: with
    ``None`` the step goes to :func:`robust_step`, and Numba drops the branch
    (it prunes a test of an argument typed ``None``, not one of a bool), so
    the kernel holds no code of exact choice or enumeration.  ``certify``,
    likewise, is ``True`` where ``data`` holds the uniqueness certificate and
    ``None`` where it does not (two contacts): then neither the certificate
    nor the piece search is compiled.

    Exact choice solves a certified-unique step piece by piece up to
    :data:`~reach.kernels.planar.PIECE_STEP_MAX_CONTACTS` contacts, by Lemke's
    method above (the step has one v'; the certificate costs a few small
    products) and enumerates the others;
    enumeration tries every complementary basis; both fall back to Lemke's
    method (with the covering vector of ones) if nothing verifies.  Random
    and first choice go to Lemke's method directly; walk choice too, with the
    step's random covering vector, and then hops once (:func:`hop_step`).  :func:`robust_step` has
    one call site, so that it is compiled into this kernel once.
    """
    choice = opts.choice
    if modes is not None:  # pruned where modes is None: the kernel of random and first choice (see above)
        solved, res, choice = modes_or_bases(data, v, lam, opts, work, sample, step, v_next, certify)
        if solved:
            return 0, res, 1
    status, res, solves = robust_step(data, v, lam, opts, choice, work, sample, step, v_next)
    if modes is not None and opts.choice == CHOICE_WALK and status == SOLVED:
        paths, hopped, hop_res = hop_step(data, v, lam, opts, work, sample, step, v_next)
        solves += paths
        if hopped:
            res = hop_res
    return status, res, solves


def certify_flag(data):
    """The ``certify`` argument of :func:`run_samples_kernel`: ``True`` where ``data`` holds the certificate."""
    return True if data.certified else None


def modes_flag(choice):
    """The ``modes`` argument of :func:`run_samples_kernel` for kernel choice code ``choice`` (walk choice: True)."""
    return None if choice in (CHOICE_RANDOM, CHOICE_FIRST) else True


@kernel
def _record(out, s, v):
    """Append ``v`` to sample ``s``'s stored path, if its path is kept."""
    if s < out.paths.shape[0]:
        k = out.path_len[s]
        for j in range(v.shape[0]):
            out.paths[s, k, j] = v[j]
        out.path_len[s] = k + 1


@kernel
def _accept(out, s, v, v_next, res, worst):
    """Move to ``v_next``, record it; returns the updated worst residual."""
    for j in range(v.shape[0]):
        v[j] = v_next[j]
    _record(out, s, v)
    return max(worst, res)


@kernel(inline="always")  # (a call would pass every array of data and work: 1.2x slower)
def begin_sample(data, s, out, work):
    """Start sample ``s`` (its row of ``out``) at the pre-impact velocity ``work.v``, the first row of its path."""
    v = work.v
    for j in range(v.shape[0]):
        v[j] = data.v0[j]
    work.piece[0] = -1  # the mode search starts from a guess at each sample (reach.kernels.planar)
    if s < out.paths.shape[0]:
        out.path_len[s] = 0
    _record(out, s, v)


@kernel(inline="always")  # (a call would pass every array of data and work: 1.2x slower)
def sample_going(data, opts, v, step, N):
    """Whether a sample at ``v`` takes step ``step`` (``N``: the closing step's); returns (going, terminated).

    A non-colliding sample stops, terminated if within ``N`` steps (Algorithm
    1 ended, not the closing step); one still colliding after the closing step
    stops too, not terminated.
    """
    if not colliding(data.Jn, v, opts.colliding_tol):
        return False, step <= N
    return step <= N, False


@kernel(inline="always")  # (a call would pass every array of data and work: 1.2x slower)
def sample_step(data, opts, p, s, gidx, out, work, modes, certify, step, worst):
    """Step ``step`` of sample ``s`` (global index ``gidx``), caps ``h p[step]`` or at ``N`` the closing step's;
    moves ``work.v`` and records it.  Returns (solved, LCP solves, worst residual so far)."""
    lam = work.lam
    for i in range(lam.shape[0]):
        lam[i] = opts.eps_lambda if step == p.shape[0] else opts.h * p[step, i]
    status, res, tries = take_step(data, work.v, lam, opts, work, gidx, step, work.v_next, modes, certify)
    if status != SOLVED:
        return False, tries, worst
    return True, tries, _accept(out, s, work.v, work.v_next, res, worst)


@kernel(inline="always")  # (a call would pass every array of data and work: 1.2x slower)
def finish_sample(data, opts, s, out, v, terminated, failed, solves, worst):
    """Write sample ``s``'s row of ``out``: its velocity ``v``, flags, LCP solves and worst residual."""
    for j in range(v.shape[0]):
        out.velocities[s, j] = v[j]
    out.terminated[s] = terminated and not failed
    out.lcp_solves[s] = solves
    out.kept[s] = not failed and not colliding(data.Jn, v, opts.colliding_tol)
    out.status[s] = 1 if failed else 0
    out.residual[s] = worst


@kernel(inline="always")
def run_sample(data, opts, p, s, gidx, out, work, modes, certify):
    """Algorithm 1 with caps ``p`` (N, m) for global sample index ``gidx``, plus Algorithm 2's closing step.

    Writes row ``s`` of ``out``; :func:`run_samples_kernel` calls it for
    every row of its caps, and the GPU's kernel (:mod:`reach.kernels.device`)
    for its thread's sample.  See :func:`run_samples_kernel` for the arguments.
    Its parts (:func:`begin_sample`, :func:`sample_going`, :func:`sample_step`,
    :func:`finish_sample`) are kernels of their own, so that the GPU's queue
    kernel can run a thread's samples one step at a time.

    On the CPU it is inlined, as :func:`take_step` is: Numba optimizes each
    kernel together with every kernel it calls, so each kernel between
    :func:`run_samples_kernel` and the step optimized the step's whole chain
    once more.  Inlined, a cold ``reach run rocking-block`` compiled for 69 s
    of CPU time instead of 75 s (Numba's compile events); the sets are the
    same, bit for bit, and so is the time a sample takes.  The GPU's device
    functions are built from the source and do not inline it.
    """
    N = p.shape[0]
    begin_sample(data, s, out, work)
    solves = 0
    worst = 0.0
    failed = False
    step = np.int64(0)  # not the literal 0: Numba would compile take_step's chain once more for it
    # steps 0 .. N - 1 with caps h p, then (if still colliding) the closing step N with caps eps_lambda;
    # one call site of take_step, so that it is compiled into this kernel once
    while True:
        going, terminated = sample_going(data, opts, work.v, step, N)
        if not going:
            break
        solved, tries, worst = sample_step(data, opts, p, s, gidx, out, work, modes, certify, step, worst)
        solves += tries
        step += 1
        if not solved:
            failed = True
            break
    finish_sample(data, opts, s, out, work.v, terminated, failed, solves, worst)


@kernel
def run_samples_kernel(data, opts, P, first_index, out, work, modes, certify):
    """Algorithm 1 for every row of ``P`` plus Algorithm 2's closing step; no per-sample Python.

    ``modes``: ``None`` where every step goes to Lemke's method (``opts.choice``
    random or first), ``True`` otherwise (:func:`modes_flag` gives it).  Numba
    compiles a kernel per argument type and drops the branch a ``None``
    decides, so a run of random or first choice never compiles the contact
    modes' code or the enumeration's.  ``certify``: ``True`` where ``data``
    holds the uniqueness certificate, else ``None`` (:func:`certify_flag`), so
    exact choice on two contacts compiles neither the certificate nor the piece
    search (a cold `reach run rocking-block` took 69 s of CPU instead of 84).

    Parameters
    ----------
    data : reach.kernels.routh_data.RouthData
    opts : reach.kernels.routh_data.StepOptions
    P : (S, N, m) float array of p values in [0, 1] (caps ``h p``)
    first_index : int
        Global index of ``P[0]`` (randomness is keyed by the global index).
    out : SampleOutput with S samples (paths of the first K)
    work : reach.kernels.routh_data.StepWork
    """
    for s in range(P.shape[0]):
        run_sample(data, opts, P[s], s, first_index + s, out, work, modes, certify)
