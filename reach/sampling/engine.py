"""The sampling engine (paper Algorithm 2): the Python layer over :mod:`reach.kernels.routh`.

:func:`run_engine` lays a run out as a plan (:mod:`reach.sampling.plan`:
the first batch, each directed round, their chunks), draws the per-step caps
``p`` from a scrambled Sobol sequence (as the published code did) or from
counter-based uniforms over ``[0, 1]^(m N)``, runs the jitted kernel on each
chunk through an executor (:mod:`reach.sampling.executors`: serially, on local
processes or threads, or on a Dask cluster) and fills one set of per-sample
arrays (an :class:`EngineRun`; :mod:`reach.sets.run` makes it a set).  Every point is keyed
by its global sample index, so the same seed gives the same set, bit for bit,
whatever the chunking, the number of workers or the backend.

Memory follows the work done, not N: a chunk is run in blocks whose caps and
path buffers take at most :data:`CAP_BUDGET` numbers, and stored paths are
trimmed to the steps actually taken.

Long runs can write a checkpoint directory (one atomically written file per
finished chunk plus a manifest) and resume from it; see
:mod:`reach.sampling.checkpoint`.  The public entry points, which add the completeness
estimate, are two layers up: :func:`reach.sets.build.sample_post_impact_set` and
:func:`reach.sets.build.sample_adaptive`.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from reach.kernels.routh import SAMPLE_FIELDS, allocate_output, run_samples_kernel
from reach.kernels.routh_data import make_step_work
from reach.sampling.caps import draw_caps, draw_caps_at
from reach.sampling.checkpoint import Checkpoint
from reach.sampling.cold_start import split_cold_compile, start_lemke_chain, stop
from reach.sampling.directed import QUANT, children_caps
from reach.sampling.plan import EXACT_MAX_CONTACTS, Plan, plan_run  # (Plan and the limit: here too, as before)
from reach.sampling.settings import check_integer
from reach.sampling.executors import BACKENDS, make_executor
from reach.sampling.workers import auto_jobs

__all__ = ["run_engine", "EngineRun", "Plan", "run_chunk", "execute", "caps_of", "CAP_BUDGET", "EXACT_MAX_CONTACTS"]

#: Most numbers (caps, samples x N x m, plus path rows, samples x (N + 2) x nv) held at once in a chunk.
CAP_BUDGET = 2**21


_LOADED = []  # set once this process has run the kernels: a worker's first call loads them from Numba's cache


def _load_kernels(plan, other=None):
    """Run one sample untimed, once per process, so that compiling or loading the kernels is not sampling time
    (``other``: the process compiling Lemke's chain meanwhile, of
    :func:`~reach.sampling.cold_start.start_lemke_chain`)."""
    if _LOADED:
        stop(other)  # (none, unless the kernels ran here before and Numba could not cache them)
    else:
        split_cold_compile(plan, other)  # a cold cache: Lemke's chain there, the rest here
        s, p = plan.settings, plan.problem
        work = make_step_work(p.lcp_size, p.m, p.nv)
        P = draw_caps(p.m, s.max_steps, 0, 1, seed=s.seed, sequence=s.sequence, caps=s.caps)
        run_samples_kernel(plan.data, plan.options, P, 0, allocate_output(1, p.nv, 0, s.max_steps + 2), work,
                           *plan.flags)
        _LOADED.append(True)


def run_chunk(plan, start, count, caps=None, device=None):
    """Run samples ``start .. start + count - 1``; returns a dict of per-sample arrays.

    A pure function of (problem, settings, start, count) — and of ``caps``,
    the quantized caps (count, N, m) uint16 of a directed round's children
    (:mod:`reach.sampling.directed`), when given: the unit of parallel work and of
    checkpointing.  Inside, samples run in blocks whose caps fit
    :data:`CAP_BUDGET`; stored paths are trimmed to the longest path taken.
    ``device``: a :class:`reach.sampling.gpu.Gpu` runs the blocks instead of
    this process's CPU, and draws their caps too unless ``caps`` are given.
    """
    problem, settings = plan.problem, plan.settings
    N, m, nv = settings.max_steps, problem.m, problem.nv
    if device is None:
        block = max(1, min(count, CAP_BUDGET // ((N + 2) * (m + nv))))  # caps and path rows of a block
        work = make_step_work(problem.lcp_size, m, nv)
    else:
        block = max(1, min(count, device.block_size(problem, N, drawn=caps is None)))
    keep = max(0, min(settings.keep_paths - start, count))
    chunk = {} if block >= count else {name: np.empty((count, nv) if per_v else count, dtype=dtype)
                                       for name, (dtype, per_v) in SAMPLE_FIELDS.items()}
    paths, lengths = [], []
    _load_kernels(plan)
    t0, c0 = time.perf_counter(), time.process_time()
    for a in range(0, count, block):
        b = min(count, a + block)
        if caps is not None:
            P = np.ascontiguousarray(caps[a:b] / QUANT)
        elif device is None:
            P = draw_caps(m, N, start + a, b - a, seed=settings.seed, sequence=settings.sequence,
                          caps=settings.caps)
        else:
            P = None  # the device draws them, each thread its own
        keep_here = max(0, min(keep - a, b - a))
        if device is None:
            out = allocate_output(b - a, nv, keep_here, N + 2)
            run_samples_kernel(plan.data, plan.options, P, start + a, out, work, *plan.flags)
        else:
            out = device.run(plan, P, start + a, keep_here, N + 2, count=b - a)
        for name in SAMPLE_FIELDS:  # one block: its arrays are the chunk's (a GPU's chunk is one launch)
            if block >= count:
                chunk[name] = getattr(out, name)
            else:
                chunk[name][a:b] = getattr(out, name)
        rows = int(out.path_len.max(initial=0))
        paths.append(out.paths[:, :rows].copy())  # a copy: the block buffer (N + 2 rows) is freed
        lengths.append(out.path_len)
        del P, out
    rows = max((p.shape[1] for p in paths), default=0)
    chunk["paths"] = np.concatenate([np.pad(p, ((0, 0), (0, rows - p.shape[1]), (0, 0)),
                                            constant_values=np.nan) for p in paths])
    chunk["path_len"] = np.concatenate(lengths)
    chunk["start"] = int(start)
    chunk["cpu_seconds"] = time.process_time() - c0
    chunk["kernel_seconds"] = time.perf_counter() - t0
    return chunk


def execute(plan, todo, executor):
    """Yield finished chunks (in any order) for ``todo``: ``(start, count)`` or ``(start, count, caps)``."""
    yield from executor.map_unordered(run_chunk, plan, todo)


class Accumulator:
    """Per-sample arrays for the whole run, filled chunk by chunk."""

    def __init__(self, problem, settings):
        n, nv = settings.n_samples, problem.nv
        self.arrays = {name: np.zeros((n, nv) if per_v else n, dtype=dtype)
                       for name, (dtype, per_v) in SAMPLE_FIELDS.items()}
        self.paths = {}
        self.cpu_seconds = 0.0
        self.kernel_seconds = 0.0
        self.done = 0

    def add(self, chunk):
        a = chunk["start"]
        b = a + len(chunk["lcp_solves"])
        whole = a == 0 and b == len(self.arrays["lcp_solves"])  # the run in one chunk: its arrays are the run's
        for name in SAMPLE_FIELDS:
            if whole:
                self.arrays[name] = chunk[name]
            else:
                self.arrays[name][a:b] = chunk[name]
        for i, (p, n) in enumerate(zip(chunk["paths"], chunk["path_len"])):
            self.paths[a + i] = p[:n].copy()
        self.cpu_seconds += float(chunk.get("cpu_seconds", 0.0))
        self.kernel_seconds += float(chunk.get("kernel_seconds", 0.0))
        self.done += b - a

    def timing(self, wall0, n_jobs, backend):
        return {"wall_seconds": time.perf_counter() - wall0, "cpu_seconds": self.cpu_seconds,
                "kernel_seconds": self.kernel_seconds, "n_jobs": int(n_jobs),
                "backend": backend if int(n_jobs) != 1 else "serial"}


def _check_execution(n_jobs, backend, checkpoint, resume):
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}; got {backend!r}.")
    if n_jobs == "auto":
        return
    if check_integer("n_jobs", n_jobs, low=-1) == 0:
        raise ValueError("`n_jobs` must be a positive integer, -1 or \"auto\"; got 0.")
    if resume and checkpoint is None:
        raise ValueError("`resume=True` needs a `checkpoint` directory.")


class EngineRun(NamedTuple):
    """What one run of the engine gives back: per-sample arrays and the record of how it ran."""

    arrays: dict       # SAMPLE_FIELDS name -> (n_samples,) or (n_samples, nv) array, by global sample index
    paths: dict        # sample index -> its stored path (steps, nv), for the first ``keep_paths`` samples
    timing: dict       # wall, CPU and kernel seconds, workers, executor, chunks, selection, resumed samples
    child_caps: list   # (first index, quantized caps) of each directed round's children


def run_engine(problem, settings, *, executor=None, n_jobs=1, backend="loky", scheduler=None, checkpoint=None,
               resume=False, keep_checkpoint=False, progress=False):
    """Run Algorithm 2 for validated ``settings``: plan, run the phases' chunks, gather an :class:`EngineRun`.

    The record of a set (:class:`reach.sets.result.PostImpactSet`) is built above, by
    :func:`reach.sets.run.run_sampling`; see :func:`reach.sets.build.sample_post_impact_set` for the arguments.
    """
    _check_execution(n_jobs, backend, checkpoint, resume)
    other = start_lemke_chain(problem, settings)  # a cold cache: Lemke's chain compiles in another process from here
    try:
        plan = Plan(problem, settings)
    except BaseException:
        stop(other)
        raise
    _load_kernels(plan, other)  # compile (or load from cache) outside the timing
    requested = n_jobs
    if n_jobs == "auto" and backend not in ("cuda", "cuda+cpu"):  # (a GPU's run: no pilot on one core)
        n_jobs, serial_estimate = auto_jobs(backend, settings.n_samples,
                                            lambda count: run_chunk(plan, 0, count)["kernel_seconds"])
    else:
        serial_estimate = None
    if executor is None:  # before the checkpoint: a run that cannot start (no GPU, say) leaves none behind
        executor = make_executor(n_jobs, backend, scheduler, limit=settings.n_samples)
    else:
        n_jobs, backend = executor.workers, executor.name  # what the metadata records
    acc = Accumulator(problem, settings)
    ckpt, done = None, None
    if checkpoint is not None:
        ckpt = Checkpoint.open(checkpoint, problem, settings, resume=resume)
        done = np.zeros(settings.n_samples, dtype=bool)
        for chunk in ckpt.load_chunks():
            acc.add(chunk)
            done[chunk["start"]:chunk["start"] + len(chunk["lcp_solves"])] = True
    run_plan = plan_run(settings, executor.workers, done=done, chunk_size=executor.chunk_size,
                        taper=executor.tapers)
    wall0 = time.perf_counter()
    bar = _progress_bar(settings.n_samples, acc.done) if progress else None
    try:
        stored, selection = _run_phases(plan, run_plan, acc, ckpt, bar, executor)
    finally:
        if bar is not None:
            bar.close()
    timing = acc.timing(wall0, n_jobs, backend)
    timing.update(workers=executor.workers, executor=executor.describe(), chunks=len(run_plan.chunks),
                  selection_seconds=selection, resumed_samples=settings.n_samples - run_plan.samples_to_run)
    if requested == "auto":
        timing.update(n_jobs_requested="auto", serial_estimate_seconds=serial_estimate)
    if ckpt is not None and not keep_checkpoint:
        ckpt.remove()
    return EngineRun(acc.arrays, acc.paths, timing, stored)


def _run_phases(plan, run_plan, acc, ckpt, bar, executor):
    """Run the first batch, then each directed round's children; returns (the children's caps, selection seconds)."""
    problem, settings = plan.problem, plan.settings
    first, *rounds = run_plan.phases
    _run_todo(plan, list(first.chunks), acc, ckpt, bar, executor)
    stored = []  # (first index, quantized caps) of each round's children: 2 bytes per cap
    selection = 0.0  # wall seconds choosing the rounds' children (the workers wait)
    for r, phase in enumerate(rounds):
        t = time.perf_counter()
        Q = children_caps(problem, settings, r, acc.arrays, phase.start, phase.count,
                          lambda idx: caps_of(plan, idx, stored), executor.cores)
        selection += time.perf_counter() - t
        stored.append((phase.start, Q))
        todo = [(s, c, Q[s - phase.start:s - phase.start + c]) for s, c in phase.chunks]
        _run_todo(plan, todo, acc, ckpt, bar, executor)
    return stored, selection


def _run_todo(plan, todo, acc, ckpt, bar, executor):
    for chunk in execute(plan, todo, executor):
        acc.add(chunk)
        if ckpt is not None:
            ckpt.write_chunk(chunk)
        if bar is not None:
            bar.update(len(chunk["lcp_solves"]))


def caps_of(plan, indices, stored):
    """The caps (k, N, m) of samples ``indices``: a directed child's stored caps (``stored``: its run's
    ``(first index, quantized caps)`` list), or drawn by index."""
    s, p = plan.settings, plan.problem
    indices = np.asarray(indices, dtype=np.int64)
    out = np.empty((len(indices), s.max_steps, p.m))
    drawn = np.ones(len(indices), dtype=bool)
    for first, Q in stored:
        here = (indices >= first) & (indices < first + len(Q))
        out[here] = Q[indices[here] - first] / QUANT
        drawn &= ~here
    if drawn.any():
        out[drawn] = draw_caps_at(p.m, s.max_steps, indices[drawn], seed=s.seed, sequence=s.sequence, caps=s.caps)
    return out


def _progress_bar(total, initial):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc="sampling", unit="sample", unit_scale=True, leave=False)
