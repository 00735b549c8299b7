"""Where a plan's chunks run: one small interface, four executors.

An executor runs ``fn(payload, *item)`` for every item of a phase and yields
the answers as they finish, in any order; the engine (:func:`reach.sampling.engine.run_sampling`)
puts each answer in its place by sample index, so the set does not depend on
the executor or its worker count.

==================  =================================================================
:class:`Serial`     in this process, in order (``n_jobs=1`` or ``backend="serial"``)
:class:`LocalPool`  a pool of loky processes, started once and kept for the next run
                    (:func:`reach.sampling.workers.on_pool`); a large payload goes to each
                    worker once, as a file (:func:`reach.sampling.workers.ship`)
:class:`Threads`    threads of this process (``backend="threading"``; the kernels
                    release the GIL)
:class:`Dask`       a dask.distributed cluster (``backend="dask"``, ``scheduler``)
:class:`Cuda`       a CUDA GPU of this machine (``backend="cuda"``, ``reach run --gpu``): each
                    item runs as ``fn(payload, *item, device=gpu)``, one thread a sample
                    (:mod:`reach.sampling.gpu`)
:class:`Hybrid`     the GPU and local processes on the same phase (``backend="cuda+cpu"``):
                    the GPU takes runs of chunks from the front, each process one chunk
                    from the back
==================  =================================================================

>>> make_executor(1).describe()
'serial: 1 worker, this process'
"""

from __future__ import annotations

import os

from collections import deque

import numpy as np

from reach.sampling.workers import dask_client, drop_pool, local_pool, note_started, on_pool, run_shipped, ship, \
    worker_count

__all__ = ["Executor", "Serial", "LocalPool", "Threads", "Dask", "Cuda", "Hybrid", "make_executor", "BACKENDS",
           "HYBRID_MIN_LAUNCH"]

#: ``backend`` names of :func:`make_executor`.
BACKENDS = ("serial", "loky", "threading", "dask", "cuda", "cuda+cpu")
#: Fewest samples a launch of :class:`Hybrid`'s GPU takes while its phase has that many left: fewer would leave
#: most of a large GPU's threads idle for the launch.
HYBRID_MIN_LAUNCH = 2**15


class Executor:
    """Runs ``fn(payload, *item)`` for every item; yields the answers as they finish.

    ``workers`` is how many run at once (what a plan is cut for); ``cores``
    is how many cores of this machine the work between phases may use while
    the workers wait (1 for a remote cluster).
    """

    name = "executor"
    where = ""
    #: Most samples a chunk (None: the settings' ``chunk_size``).
    chunk_size = None
    #: Whether a phase's last chunks are smaller, so that no worker runs a large one while the rest wait.
    tapers = True

    def __init__(self, workers=1):
        self.workers = int(workers)

    @property
    def cores(self):
        return self.workers

    def map_unordered(self, fn, payload, items):
        raise NotImplementedError

    def describe(self):
        """One line: which executor, how many workers, where."""
        return f"{self.name}: {self.workers} worker{'s' if self.workers != 1 else ''}, {self.where}"


class Serial(Executor):
    """Every item in this process, in order."""

    name, where = "serial", "this process"

    def __init__(self):
        super().__init__(1)

    def map_unordered(self, fn, payload, items):
        for item in items:
            yield fn(payload, *item)


class LocalPool(Executor):
    """A pool of local loky processes, kept between runs (the next run starts for free)."""

    name, where = "loky", "local processes"

    def map_unordered(self, fn, payload, items):
        items = list(items)
        if self.workers == 1 or len(items) <= 1:  # starting a worker would cost more than it saves
            yield from Serial().map_unordered(fn, payload, items)
            return
        note_started()
        shipped = ship(payload)  # the payload itself, or a file each worker reads once if its pickle is large
        yield from on_pool(run_shipped, [(fn, shipped, *item) for item in items], min(self.workers, len(items)))


class Threads(Executor):
    """Threads of this process (joblib's threading backend)."""

    name, where = "threading", "threads of this process"

    def map_unordered(self, fn, payload, items):
        import joblib

        tasks = (joblib.delayed(fn)(payload, *item) for item in items)
        yield from joblib.Parallel(n_jobs=self.workers, backend="threading", return_as="generator_unordered")(tasks)


class Dask(Executor):
    """A dask.distributed cluster: the running Client, or one for ``scheduler`` (an address or a Client)."""

    name = "dask"

    def __init__(self, workers, scheduler=None):
        super().__init__(workers)
        self.scheduler = scheduler
        self.where = f"the cluster at {scheduler}" if isinstance(scheduler, str) else "a dask.distributed cluster"

    @property
    def cores(self):
        return 1  # the cluster's cores are not this machine's

    def map_unordered(self, fn, payload, items):
        import joblib

        client = dask_client(self.scheduler)
        tasks = (joblib.delayed(fn)(payload, *item) for item in items)
        try:
            with joblib.parallel_config(backend="dask"):
                yield from joblib.Parallel(n_jobs=self.workers, return_as="generator_unordered")(tasks)
        finally:
            if client is not None and client is not self.scheduler:
                client.close()


class Cuda(Executor):
    """This machine's CUDA GPU: every item in turn, each as one or a few kernel launches of a thread a sample.

    A plan for it has one worker and large chunks (:attr:`chunk_size`): a
    GPU runs a chunk's samples at once, and its threads are the parallelism.
    """

    name = "cuda"
    #: Samples a chunk: a GPU needs tens of thousands of threads at once to be busy, and a run of at most this
    #: many samples is one chunk, whose arrays become the run's without a copy.
    chunk_size = 2**22
    #: A phase is cut into as few chunks as :attr:`chunk_size` allows, none smaller at its end
    #: (:func:`reach.sampling.plan.plan_run`): each chunk is a launch, and a small one leaves the GPU idle.
    tapers = False

    def __init__(self):
        from reach.sampling.gpu import Gpu

        super().__init__(1)
        self.gpu = Gpu()
        self.where = f"the GPU ({self.gpu.describe()})"

    @property
    def cores(self):
        return os.cpu_count() or 1  # the CPU is idle while the GPU runs: the selection between rounds may use it

    def map_unordered(self, fn, payload, items):
        for item in items:
            yield fn(payload, *item, device=self.gpu)


class Hybrid(Executor):
    """This machine's GPU and ``workers`` local processes at once, on the same phase.

    A phase's chunks wait in a line.  The GPU takes a run of consecutive
    chunks from its front as one launch (half of what is left, at least
    :data:`HYBRID_MIN_LAUNCH` samples, at most :attr:`Cuda.chunk_size`), and
    each process one chunk at a time from its back; each takes more as soon as
    it is done, so neither waits on the other but at the phase's end.  The plan
    is cut for the processes (small, tapered chunks).  A sample's outcome does
    not depend on what ran it, so the set is any executor's, bit for bit.
    :attr:`samples` counts what each side ran.
    """

    name = "cuda+cpu"

    def __init__(self, workers, device=None):
        from reach.sampling.gpu import Gpu

        super().__init__(workers)
        self.gpu = Gpu() if device is None else device  # (a stand-in with a Gpu's run and block_size, in tests)
        self.where = f"the GPU ({self.gpu.describe()}) beside local processes"
        self.samples = {"gpu": 0, "cpu": 0}
        #: Fewest samples a launch takes while its phase has that many left (:data:`HYBRID_MIN_LAUNCH`).
        self.min_launch = HYBRID_MIN_LAUNCH

    @property
    def cores(self):
        return os.cpu_count() or 1  # the selection between phases runs while both wait

    def map_unordered(self, fn, payload, items):
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        line = deque(items)
        note_started()
        pool, shipped = local_pool(self.workers), ship(payload)
        running = {}  # future -> ("gpu" or "cpu", samples)

        def feed(side):
            if not line:
                return
            item = _front_run(line, self.min_launch, Cuda.chunk_size) if side == "gpu" else line.pop()
            future = (gpu.submit(fn, payload, *item, device=self.gpu) if side == "gpu"
                      else pool.submit(run_shipped, fn, shipped, *item))
            running[future] = (side, int(item[1]))

        with ThreadPoolExecutor(1, thread_name_prefix="reach-gpu") as gpu:
            try:
                feed("gpu")
                for _ in range(self.workers):
                    feed("cpu")
                while running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        side, count = running.pop(future)
                        chunk = future.result()
                        self.samples[side] += count
                        feed(side)
                        yield chunk
            except BrokenProcessPool:
                drop_pool()
                raise
            finally:  # stopped early or failed: nothing new starts, and what runs is waited for
                line.clear()
                for future in running:
                    future.cancel()
                wait(running)


def _front_run(line, least, most):
    """Take from ``line``'s front a run of consecutive chunks ``(start, count[, caps])`` as one: half of the
    samples in the line (at least ``least``, at most ``most``; at least its first chunk)."""
    want = min(most, max(least, sum(item[1] for item in line) // 2))
    run = [line.popleft()]
    while line and line[0][0] == run[-1][0] + run[-1][1] and sum(item[1] for item in run) + line[0][1] <= want:
        run.append(line.popleft())
    start, count = run[0][0], sum(item[1] for item in run)
    if len(run[0]) == 2:
        return start, count
    return start, count, np.concatenate([item[2] for item in run])


def make_executor(n_jobs=1, backend="loky", scheduler=None, *, limit=None):
    """The executor for ``n_jobs`` (-1: every core) workers on ``backend``; at most ``limit`` workers.

    A local backend is capped at this machine's cores; ``n_jobs=1`` (or
    ``backend="serial"``) runs in this process.
    """
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}; got {backend!r}.")
    if backend == "cuda":
        return Cuda()
    if backend == "cuda+cpu":  # n_jobs processes beside the GPU (-1: every core but the one driving the GPU)
        cores = os.cpu_count() or 1
        return Hybrid(max(1, cores - 1) if n_jobs in (-1, "auto") else worker_count(n_jobs, range(cores)))
    workers = 1 if backend == "serial" else worker_count(n_jobs, range(limit or os.cpu_count() or 1))
    if backend == "dask":
        return Dask(workers, scheduler)
    if workers == 1:
        return Serial()
    return Threads(workers) if backend == "threading" else LocalPool(workers)
