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
                    item runs as ``fn(payload, *item, device=gpu)``, on the GPU's threads
                    (:mod:`reach.sampling.gpu`)
:class:`Hybrid`     the GPU and local processes on the same phase (``backend="cuda+cpu"``):
                    the GPU takes runs of chunks from the front, each process runs from
                    the back, sized by what each side delivers; at a phase's end the GPU
                    runs again what the processes still hold
==================  =================================================================

>>> make_executor(1).describe()
'serial: 1 worker, this process'
"""

from __future__ import annotations

import os
import time
import weakref

import numpy as np

from reach.sampling.sharing import Clock, Line, Runs
from reach.sampling.workers import dask_client, drop_pool, local_pool, note_started, on_pool, run_shipped, ship, \
    worker_count

__all__ = ["Executor", "Serial", "LocalPool", "Threads", "Dask", "Cuda", "Hybrid", "make_executor", "BACKENDS",
           "HYBRID_MIN_LAUNCH", "HYBRID_MIN_SHARE"]

#: ``backend`` names of :func:`make_executor`.
BACKENDS = ("serial", "loky", "threading", "dask", "cuda", "cuda+cpu")
#: Least share of a run that :class:`Hybrid`'s processes take, by their measured rates against the GPU's; below it
#: they take nothing more: with an emulated GPU ten times as fast as two processes (a 10 % share), sharing ran 13 %
#: slower than the GPU alone (``bench/hybrid-split.log``).
HYBRID_MIN_SHARE = 0.15
#: Fewest samples a launch of :class:`Hybrid`'s GPU takes while its phase has that many left.  Its launches
#: shrink as a phase empties, down to this; with 2^15 a GPU as fast as the processes took two thirds of a 2^18-sample
#: quadruped set's rounds and the processes waited (``bench/hybrid-split.log``).
HYBRID_MIN_LAUNCH = 2**12


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
        # reach the cluster now, so that a run that cannot start fails before it opens a checkpoint; a Client made
        # for an address serves each of the run's phases, and closes with the executor (one run used to connect
        # once a phase: 21 times for a 5,000-sample directed set and its estimate)
        self.client = dask_client(scheduler)
        if self.client is not None and self.client is not scheduler:
            weakref.finalize(self, self.client.close)

    @property
    def cores(self):
        return 1  # the cluster's cores are not this machine's

    def map_unordered(self, fn, payload, items):
        import joblib

        tasks = (joblib.delayed(fn)(payload, *item) for item in items)
        config = {} if self.client is None else {"client": self.client}  # (None: the running Client)
        with joblib.parallel_config(backend="dask", **config):
            yield from joblib.Parallel(n_jobs=self.workers, return_as="generator_unordered")(tasks)


class Cuda(Executor):
    """This machine's CUDA GPU: every item in turn, each as one or a few kernel launches.

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

    def __init__(self, device=None):
        from reach.sampling.gpu import Gpu

        super().__init__(1)
        self.gpu = Gpu() if device is None else device  # (a stand-in with a Gpu's run and block_size, in tests)
        self.where = f"the GPU ({self.gpu.describe()})"

    @property
    def cores(self):
        return os.cpu_count() or 1  # the CPU is idle while the GPU runs: the selection between rounds may use it

    def map_unordered(self, fn, payload, items):
        for item in items:
            yield fn(payload, *item, device=self.gpu)


class Hybrid(Executor):
    """This machine's GPU and ``workers`` local processes at once, on the same phase.

    A phase's chunks wait in a line, and both sides take runs of consecutive
    chunks from it as they get free: the GPU from the front as one launch,
    each process from the back.  Each side's rate is what it *delivered*:
    samples per wall second of the GPU's launches, and of the processes
    together per wall second that any of their runs was out (their start,
    their transfers and the wait for this process to collect them included,
    not only their kernels' seconds).  A launch lasts as long as its slowest
    samples, so the GPU's is modelled as a latency plus samples over a rate
    (:meth:`launch_model`): the GPU takes, as one launch, what it ends when
    the processes end the rest of the line in some time ``T``, and no launch
    where they end it first.  A process takes what it runs in ``T / 2``
    (guided self-scheduling), so the processes' runs shrink as the phase
    empties.  Until the processes have delivered a run, their rate is taken
    to be at most what it would be if all they hold came back now; before
    either rate is known the GPU takes half of the line, a process one
    chunk.  Where the processes would deliver less than
    :data:`HYBRID_MIN_SHARE` of the total, the GPU runs the rest alone.
    Once the line is empty, the GPU runs again the processes' runs still
    out, consecutive ones as one launch, where it would end them before the
    processes do; whichever side ends a sample first
    delivers it (the other's is dropped): the GPU does not wait long on the
    processes at a phase's end.  A launch takes at least :attr:`min_launch`
    samples and at most :attr:`Cuda.chunk_size`; the plan is cut in small,
    equal chunks (:attr:`chunk_size`) to take runs of.  A sample's outcome
    does not depend on what ran it, so the set is any executor's, bit for
    bit.  :attr:`samples` counts what each side delivered, :attr:`backups`
    the samples of those that the GPU delivered in the processes' place.
    """

    name = "cuda+cpu"
    #: Samples a chunk of the plan: the least a process takes.
    chunk_size = 1024
    tapers = False
    #: Runs each process has in hand at once: the next one waits in its queue while it runs one.
    in_hand = 2

    def __init__(self, workers, device=None):
        from reach.sampling.gpu import Gpu

        super().__init__(workers)
        self.gpu = Gpu() if device is None else device  # (a stand-in with a Gpu's run and block_size, in tests)
        self.where = f"the GPU ({self.gpu.describe()}) beside local processes"
        self.samples = {"gpu": 0, "cpu": 0}
        self.backups = 0
        #: Fewest samples a launch takes while its phase has that many left (:data:`HYBRID_MIN_LAUNCH`).
        self.min_launch = HYBRID_MIN_LAUNCH
        self._run = None  # the plan whose chunks the rates below were measured on
        self._rates = {}  # side -> (samples delivered, wall seconds)
        self._launches = []  # the GPU's launches in that run: (samples, wall seconds)
        self._model = None  # launch_model() of those launches, once fitted
        self._out = Clock()  # wall seconds that any of the processes' runs was out

    def _want(self, side, left):
        """Samples ``side`` (one process, for "cpu") takes from a line of ``left``; 0 for the GPU: no launch now;
        None for a process: nothing, the processes' share being under :data:`HYBRID_MIN_SHARE`.

        The GPU takes the ``x`` it would end when the processes end the rest:
        ``L + x / R = (left - x) / C`` for its launches' latency ``L`` and rate
        ``R`` (:meth:`launch_model`) and the processes' rate ``C``; a process
        takes what it runs in half of that time.
        """
        model, cpu = self.launch_model(), self.rates().get("cpu")
        if cpu is None and self._out.elapsed() > 0:  # none delivered yet: at most as if all came back now
            cpu = self._out.held / self._out.elapsed()
        if model is None or cpu is None:
            return left // 2 if side == "gpu" else 0
        latency, rate = model
        if cpu < HYBRID_MIN_SHARE * (rate + cpu):
            return left if side == "gpu" else None
        x = min(float(left), max(0.0, (left / cpu - latency) / (1 / rate + 1 / cpu)))
        if side == "gpu":
            return int(x)
        return int((left - x) / self.workers / 2)

    def launch_model(self):
        """``(latency, rate)``: a launch of ``S`` samples takes the GPU ``latency + S / rate`` wall seconds, by a
        least-squares line through this run's launches (None before the first).  A launch lasts as long as its
        slowest samples, which is most of a small one's time: on an H200, 1,024 quadruped samples took 0.09 s
        and 196,608 took 0.76 s.  Where the launches' sizes span less than a factor of two (too little to tell a
        latency from noise), or the line is of another form, the latency is 0."""
        if self._model is None and self._launches:  # fitted once a launch, not on each delivery of the processes
            S, t = np.array(self._launches, dtype=float).T
            self._model = 0.0, float(S.sum() / max(t.sum(), 1e-9))
            if S.max() >= 2 * S.min():
                slope, latency = np.polyfit(S, t, 1)
                if slope > 0 and latency >= 0:
                    self._model = float(latency), float(1 / slope)
        return self._model

    def _delivered(self, side, count, chunk):
        """Count a run of ``count`` samples that ended (0: only its clock stopped).  The GPU's rate is by its
        launches' wall seconds (one at a time, transfers included); the processes' by the wall seconds any of
        their runs was out, so that runs they never delivered count against them."""
        if side == "gpu":
            n, t = self._rates.get("gpu", (0, 0.0))
            self._rates["gpu"] = (n + count, t + float(chunk.get("kernel_seconds", 0.0)))
            self._launches.append((count, float(chunk.get("kernel_seconds", 0.0))))
            self._model = None
        n = self._rates.get("cpu", (0, 0.0))[0] + (count if side == "cpu" else 0)
        if self._out.seconds > 0:
            self._rates["cpu"] = (n, self._out.seconds)

    def rates(self):
        """Samples a wall second that each side has delivered in the run measured last (``{"gpu": .., "cpu": ..}``,
        the processes together; a side not yet measured is left out): what its share is sized by."""
        return {side: n / t for side, (n, t) in self._rates.items() if t > 0}

    def _gpu_ends_first(self, samples, taken, held):
        """Whether the GPU, from now, would end a processes' run of ``samples`` before they do.  They end it about
        when they have delivered all they held at its taking, at their rate so far; the GPU's launch of
        ``samples`` takes what :meth:`launch_model` says.  Yes while either is unknown, or their rate is 0."""
        model, cpu = self.launch_model(), self.rates().get("cpu", 0.0)
        if model is None or not cpu:
            return True
        latency, rate = model
        return time.perf_counter() + latency + samples / rate < taken + held / cpu

    @property
    def cores(self):
        return os.cpu_count() or 1  # the selection between phases runs while both wait

    def map_unordered(self, fn, payload, items):
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        if payload is not self._run:  # a new run: its rates are measured anew
            self._run, self._rates, self._launches, self._model, self._out = payload, {}, [], None, Clock()
        note_started()
        pool, shipped = local_pool(self.workers), ship(payload)
        runs = Runs(Line(items), self._out)

        def feed(side):
            line = runs.line
            if side == "gpu":
                want = self._want(side, line.left)
                if not (want or runs.busy("cpu")):  # no launch worth it now, but nothing else would end the line
                    want = line.left
                item = line.take(min(Cuda.chunk_size, max(self.min_launch, want)), front=True) if want else None
                if item:
                    runs.add(gpu.submit(fn, payload, *item, device=self.gpu), side, item)
                elif not line.left:
                    runs.back_up(lambda item: gpu.submit(fn, payload, *item, device=self.gpu), self._gpu_ends_first)
            else:
                want = self._want(side, line.left)
                item = None if want is None else line.take(want, front=False)
                if item:
                    runs.add(pool.submit(run_shipped, fn, shipped, *item), side, item)

        with ThreadPoolExecutor(1, thread_name_prefix="reach-gpu") as gpu:
            try:
                feed("gpu")
                for _ in range(self.workers * self.in_hand):
                    feed("cpu")
                while runs.out:
                    done, _ = wait(runs.out, return_when=FIRST_COMPLETED)
                    for future in done:
                        if future not in runs.out:  # a processes' run just cancelled: a back-up delivered it
                            continue
                        side, parts, backup = runs.finish(future)
                        count = sum(len(part["lcp_solves"]) for part in parts)
                        self.samples[side] += count
                        self.backups += count if backup else 0
                        ran = future.result()
                        self._delivered(side, len(ran["lcp_solves"]), ran)  # all it ran, if not all it delivered
                        feed(side)
                        if side == "cpu" and not runs.busy("gpu"):  # an idle GPU: a back-up may be worth it now
                            feed("gpu")
                        yield from parts
            except BrokenProcessPool:
                drop_pool()
                raise
            finally:  # stopped early or failed: nothing new starts, and what runs is waited for
                runs.line.items.clear()
                for future in runs.out:
                    future.cancel()
                wait(runs.out)


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
