"""Sampling the post-impact set (paper Algorithm 2) — the Python layer over :mod:`reach.routh`.

:func:`sample_post_impact_set` draws the per-step caps ``p`` from a scrambled
Sobol sequence (as the published code did) or from counter-based uniforms
over ``[0, 1]^(m N)``, cuts the index range into chunks, runs the jitted
kernel on each chunk — serially, on local processes (joblib/loky) or on a
Dask cluster — and fills one preallocated set of per-sample arrays.  Every
point is keyed by its global sample index, so the same seed gives the same
set, bit for bit, whatever the chunking, the number of workers or the
backend.

Long runs can write a checkpoint directory (one atomically written file per
finished chunk plus a manifest) and resume from it; see
:mod:`reach.checkpoint`.  :func:`sample_adaptive` samples in rounds until
new samples stop landing outside the current set.
"""

from __future__ import annotations

import time

import numpy as np

from reach.counter_rng import uniform_block
from reach.routh import CHOICE_ENUMERATE, CHOICE_FIRST, CHOICE_RANDOM, RouthKernelData, run_samples_kernel

__all__ = ["SamplingSettings", "sample_post_impact_set", "sample_adaptive", "draw_caps"]

SEQUENCES = ("sobol", "uniform")
CAPS = ("uniform", "extremes", "mixed")
#: Exponent of the "extremes" cap transform (see :func:`draw_caps`).
EXTREMES_POWER = 5.0
SOLUTION_CHOICES = {"random": CHOICE_RANDOM, "first": CHOICE_FIRST, "enumerate": CHOICE_ENUMERATE}
BACKENDS = ("serial", "loky", "threading", "dask")
PER_SAMPLE = ("velocities", "lcp_solves", "terminated", "kept", "status", "residual")


class SamplingSettings:
    """The algorithm's settings (paper Algorithm 2), validated.

    Parameters
    ----------
    n_samples : int
        Trajectory count (the paper's M).
    h : float
        Step size: per-step normal-impulse caps are ``h p``, ``p`` in ``[0, 1]^m``.
    max_steps : int
        Trajectory length N.
    eps : float, optional
        Approximation radius epsilon; the closing step caps every contact's
        impulse at ``eps / (3 psi)``.  Default ``h / 10``.
    seed : int
        Seed of the sequence and of the random solution choice.
    sequence : {"sobol", "uniform"}
    caps : {"uniform", "extremes", "mixed"}
        Distribution of the normalized caps ``p``: uniform on ``[0, 1]``
        (the paper's choice), or ``"extremes"``, which pushes each coordinate
        toward 0 or 1 (``p = (2u)^5 / 2`` below one half, mirrored above) so that
        strongly ordered resolutions — one contact taking its full cap while
        another takes almost none, step after step — are sampled far more
        often, or ``"mixed"``: uniform caps for even sample indices, extreme
        ones for odd.  The reachable set is the same; only how fast samples
        reach its parts changes (much faster with three or more contacts).
    solution_choice : {"random", "first", "enumerate"}
        How a step whose LCP has several distinct solutions is resolved
        (see :mod:`reach.routh`): ``"random"`` (default) a random covering
        vector for Lemke per step; ``"first"`` the covering vector of ones (one
        deterministic pick); ``"enumerate"`` every complementary solution of
        each step enumerated and one distinct v' chosen uniformly — exact but
        ~50x slower, for LCPs of size n <= 14 (two planar contacts).
    keep_paths : int
        Store the velocity paths of the first ``keep_paths`` samples.
    chunk_size : int
        Samples per kernel call (and per checkpoint file).
    """

    def __init__(self, n_samples, h, max_steps, *, eps=None, seed=0, sequence="sobol",
                 solution_choice="random", keep_paths=0, chunk_size=16384, caps="uniform"):
        if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 1:
            raise ValueError(f"`n_samples` must be a positive integer; got {n_samples!r}.")
        if n_samples > 2**30:
            raise ValueError(f"`n_samples` must be at most 2^30; got {n_samples!r}.")
        if not np.isfinite(h) or h <= 0:
            raise ValueError(f"`h` must be a positive number; got {h!r}.")
        if isinstance(max_steps, bool) or int(max_steps) != max_steps or max_steps < 1:
            raise ValueError(f"`max_steps` must be a positive integer; got {max_steps!r}.")
        eps = h / 10.0 if eps is None else eps
        if not np.isfinite(eps) or eps <= 0:
            raise ValueError(f"`eps` must be a positive number; got {eps!r}.")
        if sequence not in SEQUENCES:
            raise ValueError(f"`sequence` must be one of {SEQUENCES}; got {sequence!r}.")
        if caps not in CAPS:
            raise ValueError(f"`caps` must be one of {CAPS}; got {caps!r}.")
        if solution_choice not in SOLUTION_CHOICES:
            raise ValueError(f"`solution_choice` must be one of {tuple(SOLUTION_CHOICES)}; got {solution_choice!r}.")
        if int(keep_paths) != keep_paths or keep_paths < 0:
            raise ValueError(f"`keep_paths` must be a non-negative integer; got {keep_paths!r}.")
        if int(seed) != seed or seed < 0:
            raise ValueError(f"`seed` must be a non-negative integer; got {seed!r}.")
        if int(chunk_size) != chunk_size or chunk_size < 1:
            raise ValueError(f"`chunk_size` must be a positive integer; got {chunk_size!r}.")
        self.n_samples = int(n_samples)
        self.h = float(h)
        self.max_steps = int(max_steps)
        self.eps = float(eps)
        self.seed = int(seed)
        self.sequence = sequence
        self.caps = caps
        self.solution_choice = solution_choice
        self.keep_paths = int(min(keep_paths, n_samples))
        self.chunk_size = int(chunk_size)

    def as_dict(self):
        return {key: getattr(self, key) for key in
                ("n_samples", "h", "max_steps", "eps", "seed", "sequence", "caps", "solution_choice",
                 "keep_paths", "chunk_size")}

    def chunks(self, start=0, stop=None):
        """``(start, count)`` of each chunk covering sample indices ``start .. stop - 1``."""
        stop = self.n_samples if stop is None else stop
        return [(a, min(self.chunk_size, stop - a)) for a in range(start, stop, self.chunk_size)]


def _check_choice(problem, settings):
    from reach.enumeration import FALLBACK_MAX_N

    if settings.solution_choice == "enumerate" and problem.lcp_size > FALLBACK_MAX_N:
        raise ValueError(f"`solution_choice='enumerate'` needs a step LCP of size <= {FALLBACK_MAX_N}; "
                         f"this problem's is {problem.lcp_size} (m = {problem.m}, k = {problem.k}).")


def draw_caps(m, N, start, count, *, seed=0, sequence="sobol", caps="uniform"):
    """The normalized caps ``p`` for samples ``start .. start + count - 1``: shape (count, N, m).

    ``"sobol"``: scrambled Sobol points over ``[0, 1]^(m N)`` (:mod:`reach.sobol`);
    ``"uniform"``: counter-based uniforms.  Either way sample i's caps depend
    only on (seed, i).  ``caps="extremes"`` maps each coordinate ``u`` through
    ``(2u)^5 / 2`` (``u < 1/2``) or ``1 - (2(1-u))^5 / 2``, a monotone map that
    keeps the points' stratification and has a positive density everywhere
    (values within 1e-6 of 0 or 1 are set to 0 or 1).
    """
    dim = m * N
    if sequence == "sobol":
        from reach.sobol import sobol_points

        P = sobol_points(dim, int(start), int(count), seed=seed)
    else:
        P = np.empty((int(count), dim))
        uniform_block(seed, 0, int(start), P)
    if caps != "uniform":
        E = np.where(P < 0.5, 0.5 * (2.0 * P) ** EXTREMES_POWER, 1.0 - 0.5 * (2.0 * (1.0 - P)) ** EXTREMES_POWER)
        # caps within 1e-6 of 0 or 1 are taken exactly: a contact held back (or let go) for a
        # step, and no near-degenerate LCP whose data span nine orders of magnitude
        E[E < 1e-6] = 0.0
        E[E > 1.0 - 1e-6] = 1.0
        if caps == "extremes":
            P = E
        else:  # "mixed": odd sample indices take the extreme caps, even ones the uniform caps
            odd = (np.arange(int(start), int(start) + int(count)) % 2) == 1
            P[odd] = E[odd]
    return np.ascontiguousarray(P.reshape(int(count), N, m))


def run_chunk(data, settings, start, count):
    """Run samples ``start .. start + count - 1``; returns a dict of per-sample arrays.

    A pure function of (problem, settings, start, count): this is the unit of
    parallel work and of checkpointing.
    """
    problem = data.problem
    P = draw_caps(problem.m, settings.max_steps, start, count, seed=settings.seed,
                  sequence=settings.sequence, caps=settings.caps)
    nv = problem.nv
    out = {
        "start": int(start),
        "velocities": np.empty((count, nv)),
        "lcp_solves": np.empty(count, dtype=np.int64),
        "terminated": np.empty(count, dtype=bool),
        "kept": np.empty(count, dtype=bool),
        "status": np.empty(count, dtype=np.int64),
        "residual": np.empty(count),
    }
    K = max(0, min(settings.keep_paths - start, count))
    paths = np.full((K, settings.max_steps + 2, nv), np.nan)
    path_len = np.zeros(K, dtype=np.int64)
    eps_lambda = settings.eps / (3.0 * problem.psi)
    t0, c0 = time.perf_counter(), time.process_time()
    run_samples_kernel(data.W, data.Ws, data.row_scale, data.col_scale, data.Jbar, data.Minv_JbarT,
                       data.Jn, data.v0, P, settings.h, eps_lambda, problem.colliding_tol,
                       SOLUTION_CHOICES[settings.solution_choice], settings.seed, start,
                       data.max_pivots, out["velocities"], out["lcp_solves"], out["terminated"],
                       out["kept"], out["status"], out["residual"], paths, path_len)
    out["paths"] = paths
    out["path_len"] = path_len
    out["cpu_seconds"] = time.process_time() - c0
    out["kernel_seconds"] = time.perf_counter() - t0
    return out


def _chunk_task(data, settings, start, count):
    return run_chunk(data, settings, start, count)


def _execute(data, settings, todo, *, n_jobs, backend, scheduler):
    """Yield finished chunks (in any order) for the ``(start, count)`` list ``todo``."""
    if backend == "serial" or n_jobs == 1 or len(todo) <= 1:
        for start, count in todo:
            yield run_chunk(data, settings, start, count)
        return
    import joblib

    if backend == "dask":
        try:
            from distributed import Client, get_client
        except ImportError:
            raise ValueError("`backend='dask'` needs dask.distributed: pip install 'reach[dask]'.") from None
        client = None
        if scheduler is not None:
            client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        else:
            try:
                get_client()
            except ValueError:
                raise ValueError("`backend='dask'` needs a running dask.distributed Client or a "
                                 "`scheduler` address (e.g. 'tcp://host:8786').") from None
        try:
            with joblib.parallel_config(backend="dask"):
                yield from joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    joblib.delayed(_chunk_task)(data, settings, s, c) for s, c in todo)
        finally:
            if client is not None and not isinstance(scheduler, Client):
                client.close()
        return
    yield from joblib.Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")(
        joblib.delayed(_chunk_task)(data, settings, s, c) for s, c in todo)


class _Accumulator:
    """Preallocated per-sample arrays filled chunk by chunk (bounded memory)."""

    def __init__(self, problem, settings):
        n, nv = settings.n_samples, problem.nv
        self.arrays = {
            "velocities": np.empty((n, nv)),
            "lcp_solves": np.zeros(n, dtype=np.int64),
            "terminated": np.zeros(n, dtype=bool),
            "kept": np.zeros(n, dtype=bool),
            "status": np.zeros(n, dtype=np.int64),
            "residual": np.zeros(n),
        }
        self.paths = {}
        self.cpu_seconds = 0.0
        self.kernel_seconds = 0.0
        self.done = 0

    def add(self, chunk):
        a = chunk["start"]
        b = a + len(chunk["lcp_solves"])
        for key in PER_SAMPLE:
            self.arrays[key][a:b] = chunk[key]
        for i, (p, n) in enumerate(zip(chunk["paths"], chunk["path_len"])):
            self.paths[a + i] = p[:n].copy()
        self.cpu_seconds += float(chunk.get("cpu_seconds", 0.0))
        self.kernel_seconds += float(chunk.get("kernel_seconds", 0.0))
        self.done += b - a


def sample_post_impact_set(problem, n_samples, h, max_steps, *, eps=None, seed=0, sequence="sobol",
                           caps="uniform", solution_choice="random", keep_paths=0, chunk_size=16384,
                           n_jobs=1,
                           backend="loky", scheduler=None, checkpoint=None, resume=False,
                           progress=False):
    """Approximate the post-impact velocity set of ``problem`` (paper Algorithm 2).

    Parameters
    ----------
    problem : ImpactProblem
    n_samples : int
        Number of trajectories M.
    h : float
        Step size (cap on each contact's normal impulse per step).
    max_steps : int
        Trajectory length N.
    eps, seed, sequence, caps, solution_choice, keep_paths, chunk_size
        See :class:`SamplingSettings`.
    n_jobs : int
        Parallel workers (joblib convention: -1 = all cores).  The result does
        not depend on it.
    backend : {"loky", "threading", "dask", "serial"}
        ``"dask"`` runs the chunks on a dask.distributed cluster through
        joblib's Dask backend: pass ``scheduler`` (an address such as
        ``"tcp://10.0.0.5:8786"`` or a ``Client``) or have a Client running.
    checkpoint : path, optional
        Directory for a checkpoint: each finished chunk is written there
        atomically, so an interrupted run (Ctrl-C, a crash) can continue.
    resume : bool
        Continue from ``checkpoint`` (its problem and settings must match).
        Without it, an existing checkpoint is an error, never silently reused
        or overwritten.
    progress : bool
        Show a progress bar (tqdm) over samples.

    Returns
    -------
    PostImpactSet
        ``.velocities`` holds the kept (non-colliding) outcomes; per-sample
        arrays (``.all_velocities``, ``.lcp_solves``, ``.terminated``,
        ``.kept``) cover every sample.

    Examples
    --------
    >>> import numpy as np
    >>> from reach import ImpactProblem, sample_post_impact_set
    >>> block = ImpactProblem(np.diag([1, 1, 5 / 12]), [[0, 1, -0.5], [0, 1, 0.5]],
    ...                       [[1, 0, 1], [1, 0, 1]], 1.0, [0, -0.4429, 0])
    >>> result = sample_post_impact_set(block, 256, h=0.3, max_steps=10)
    >>> bool(np.all(result.contact_velocities()[:, :, 0] >= -1e-9))
    True
    """
    from reach.checkpoint import Checkpoint
    from reach.result import PostImpactSet

    settings = SamplingSettings(n_samples, h, max_steps, eps=eps, seed=seed, sequence=sequence,
                                solution_choice=solution_choice, keep_paths=keep_paths,
                                chunk_size=chunk_size, caps=caps)
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}; got {backend!r}.")
    if isinstance(n_jobs, bool) or int(n_jobs) != n_jobs or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"`n_jobs` must be a positive integer or -1; got {n_jobs!r}.")
    if resume and checkpoint is None:
        raise ValueError("`resume=True` needs a `checkpoint` directory.")
    _check_choice(problem, settings)
    data = RouthKernelData(problem)
    run_chunk(data, settings, 0, 1)  # compile (or load from cache) outside the timing
    acc = _Accumulator(problem, settings)
    ckpt = None
    todo = settings.chunks()
    if checkpoint is not None:
        ckpt = Checkpoint.open(checkpoint, problem, settings, resume=resume)
        for chunk in ckpt.load_chunks():
            acc.add(chunk)
        done = set(ckpt.finished_starts())
        todo = [(s, c) for s, c in todo if s not in done]
    wall0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=settings.n_samples, initial=acc.done, desc="sampling", unit="sample",
                   unit_scale=True, leave=False)
    try:
        for chunk in _execute(data, settings, todo, n_jobs=int(n_jobs), backend=backend, scheduler=scheduler):
            acc.add(chunk)
            if ckpt is not None:
                ckpt.write_chunk(chunk)
            if bar is not None:
                bar.update(len(chunk["lcp_solves"]))
    finally:
        if bar is not None:
            bar.close()
    timing = {
        "wall_seconds": time.perf_counter() - wall0,
        "cpu_seconds": acc.cpu_seconds,
        "kernel_seconds": acc.kernel_seconds,
        "n_jobs": int(n_jobs),
        "backend": backend if int(n_jobs) != 1 else "serial",
        "resumed_samples": settings.n_samples - sum(c for _, c in todo),
    }
    result = PostImpactSet.from_arrays(problem, settings, acc.arrays, acc.paths, timing=timing)
    if ckpt is not None:
        ckpt.remove()
    return result


def sample_adaptive(problem, h, max_steps, *, epsilon, confidence=0.95, initial=4096,
                    max_samples=2**22, eps=None, seed=0, sequence="sobol", caps="uniform",
                    solution_choice="random",
                    keep_paths=0, chunk_size=16384, n_jobs=1, backend="loky", scheduler=None,
                    progress=False):
    """Sample in rounds until new samples rarely land farther than ``epsilon`` from the set.

    The first round draws ``initial`` samples; each later round draws as many
    new samples as all earlier rounds together (contiguous Sobol indices, so
    the union is the same set a fixed-size run of that size gives).  After
    each round, the probability ``p`` that a new sample lands farther than
    ``epsilon`` (contact-velocity coordinates) from the earlier outcomes is
    estimated by the fraction ``x / n`` of the round's kept samples that did;
    sampling stops when the one-sided Clopper-Pearson upper bound of ``p`` at
    the given ``confidence`` falls below ``1 - confidence``.  The paper has no
    practical rule for the sample count; this is one.

    Parameters
    ----------
    epsilon : float
        Resolution in contact-velocity coordinates (m/s).
    confidence : float in (0, 1)
    initial : int
        Samples in the first round.
    max_samples : int
        Hard cap; the result records whether the criterion was met.
    eps, seed, sequence, caps, solution_choice, keep_paths, chunk_size, n_jobs, backend, scheduler, progress
        As for :func:`sample_post_impact_set`.

    Returns
    -------
    PostImpactSet
        With ``metadata["adaptive"]``: per round the samples, new kept
        samples, how many landed farther than epsilon, the estimate and its
        upper bound; and whether the criterion was met.
    """
    from scipy.spatial import cKDTree
    from scipy.stats import beta

    from reach.result import PostImpactSet

    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"`epsilon` must be a positive number; got {epsilon!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"`confidence` must be in (0, 1); got {confidence!r}.")
    if int(initial) != initial or initial < 1 or initial > max_samples:
        raise ValueError(f"`initial` must be a positive integer <= `max_samples`; got {initial!r}.")
    settings = SamplingSettings(max_samples, h, max_steps, eps=eps, seed=seed, sequence=sequence,
                                solution_choice=solution_choice, keep_paths=keep_paths,
                                chunk_size=chunk_size, caps=caps)
    _check_choice(problem, settings)
    data = RouthKernelData(problem)
    run_chunk(data, settings, 0, 1)
    acc = _Accumulator(problem, settings)  # pages are touched only as rounds fill them
    wall0 = time.perf_counter()
    rounds, met, n = [], False, 0
    stop = int(initial)

    def points(a, b):
        sel = acc.arrays["kept"][a:b]
        cv = problem.contact_velocities(acc.arrays["velocities"][a:b][sel])
        return cv.reshape(len(cv), -1)

    while True:
        for chunk in _execute(data, settings, settings.chunks(n, stop), n_jobs=int(n_jobs),
                              backend=backend, scheduler=scheduler):
            acc.add(chunk)
        if n > 0:
            old, new = points(0, n), points(n, stop)
            far = int(np.count_nonzero(cKDTree(old).query(new)[0] > epsilon)) if len(old) else len(new)
            trials = len(new)
            upper = float(beta.ppf(confidence, far + 1, trials - far)) if far < trials else 1.0
            rounds.append({"samples": stop, "new": trials, "far": far,
                           "estimate": far / max(trials, 1), "upper_bound": upper})
            if progress:
                print(f"  {stop:>9,d} samples: {far} of {trials} new outcomes farther than "
                      f"{epsilon:g} (upper bound {upper:.2e})")
            if upper < 1 - confidence:
                met = True
        n = stop
        if met or 2 * n > max_samples:
            break
        stop = 2 * n
    final = SamplingSettings(n, h, max_steps, eps=eps, seed=seed, sequence=sequence,
                             solution_choice=solution_choice, keep_paths=keep_paths, chunk_size=chunk_size,
                             caps=caps)
    arrays = {key: value[:n].copy() for key, value in acc.arrays.items()}
    timing = {"wall_seconds": time.perf_counter() - wall0, "cpu_seconds": acc.cpu_seconds,
              "kernel_seconds": acc.kernel_seconds, "n_jobs": int(n_jobs),
              "backend": backend if int(n_jobs) != 1 else "serial"}
    result = PostImpactSet.from_arrays(problem, final, arrays, acc.paths, timing=timing)
    result.metadata["adaptive"] = {"epsilon": float(epsilon), "confidence": float(confidence),
                                   "rounds": rounds, "met": met}
    return result
