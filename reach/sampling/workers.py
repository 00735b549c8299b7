"""Where a sampling run's chunks run: how many workers, the local worker pool, a Dask client, and the choice of ``n_jobs="auto"``."""

from __future__ import annotations

import os

__all__ = ["AUTO_SERIAL_SECONDS", "PILOT_SAMPLES", "STARTED", "IDLE_WORKER_SECONDS", "worker_count", "dask_client",
           "auto_jobs", "note_started", "local_pool", "on_pool", "drop_pool", "ship", "run_shipped", "SHIP_BYTES"]

#: ``n_jobs="auto"`` runs on one core when a pilot puts the whole run under this many seconds there.  Starting
#: two loky workers and loading the kernels in them took about a second (a 2^14-sample rocking-block run:
#: 1.2 s of sampling wall time on two workers, 0.2 s on one, warm Numba cache).
AUTO_SERIAL_SECONDS = 1.0
#: Samples of the pilot that estimates a run's time on one core (``n_jobs="auto"``).
PILOT_SAMPLES = 256
#: Set once this process has run loky workers: the pool keeps them for the next run, which then starts for free.
STARTED = []
#: Idle local workers exit after this many seconds (the next run starts new ones).
IDLE_WORKER_SECONDS = 300
_POOL = {}  # this process's local worker pool: {"executor": loky ProcessPoolExecutor, "workers": int}


def note_started():
    """Record that this process has started loky workers (:data:`STARTED`)."""
    if not STARTED:
        STARTED.append(True)


def worker_count(n_jobs, todo):
    """Worker count: ``n_jobs`` (-1: all cores) capped at the cores and at the chunks to run."""
    cores = os.cpu_count() or 1
    wanted = cores if n_jobs == -1 else n_jobs
    return max(1, min(wanted, cores, len(todo)))


def dask_client(scheduler):
    """A Client for ``scheduler`` (address or Client), or None when one is already running."""
    try:
        from distributed import Client, get_client
    except ImportError:
        raise ValueError("`backend='dask'` needs dask.distributed: pip install 'reach[dask]'.") from None
    if scheduler is None:
        try:
            get_client()
        except ValueError:
            raise ValueError("`backend='dask'` needs a running dask.distributed Client or a "
                             "`scheduler` address (e.g. 'tcp://host:8786').") from None
        return None
    if isinstance(scheduler, Client):
        return scheduler
    try:
        return Client(scheduler, timeout=10, set_as_default=False)  # (the caller uses it by name)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise ValueError(f"`scheduler` {scheduler!r} is not reachable: {exc}") from None


def auto_jobs(backend, n_samples, pilot):
    """``(n_jobs, estimate)`` for ``n_jobs="auto"``: 1 if the run would take under :data:`AUTO_SERIAL_SECONDS` on one core.

    ``pilot(count)`` runs the run's first ``count`` samples (their result is
    dropped) and returns the seconds they took; the estimate scales
    :data:`PILOT_SAMPLES` of them to ``n_samples``.  A serial backend needs no
    pilot; workers this process has already started (:data:`STARTED`) cost
    nothing to reuse, and a Dask cluster is asked for by name: both run on
    all cores.
    """
    if backend == "serial":
        return 1, None
    if backend == "dask" or (backend == "loky" and STARTED):
        return -1, None
    count = min(PILOT_SAMPLES, n_samples)
    estimate = pilot(count) / count * n_samples
    return (1 if estimate < AUTO_SERIAL_SECONDS else -1), estimate


def local_pool(workers):
    """This process's pool of ``workers`` local processes, made on first use and kept for the next run.

    loky's ``ProcessPoolExecutor`` (the one joblib ships and runs its own
    "loky" backend on), as an instance of our own: workers need no
    ``if __name__ == "__main__"`` guard in the user's script, and joblib's
    shared executor is left alone.
    """
    from joblib.externals.loky import ProcessPoolExecutor

    if _POOL.get("workers") != workers:
        drop_pool()
        threads = str(max(1, (os.cpu_count() or 1) // workers))  # as joblib limits BLAS and OpenMP in its workers
        env = {name: threads for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        _POOL.update(executor=ProcessPoolExecutor(max_workers=workers, timeout=IDLE_WORKER_SECONDS, env=env),
                     workers=workers)
    return _POOL["executor"]


def drop_pool():
    """Shut down the local worker pool (the next run makes a new one); its idle workers exit."""
    executor = _POOL.pop("executor", None)
    _POOL.pop("workers", None)
    if executor is not None:
        executor.shutdown(wait=False)


def on_pool(fn, items, workers):
    """Yield ``fn(*item)`` for every item, each as soon as it is done, computed on the local worker pool.

    All items are submitted at once and collected as they finish: joblib's
    result loop sleeps 10 ms whenever no result is ready, so each phase of a
    directed run ended up to 10 ms late (about 50 ms of a 0.77 s compass-gait
    run on two workers).  A task's exception is raised here.  If the
    consumer stops early or an item fails, the items not started are
    cancelled and the few running ones are waited for, so that the pool is
    idle for the next run; if a worker died, the pool is broken and dropped.
    """
    from concurrent.futures import as_completed, wait
    from concurrent.futures.process import BrokenProcessPool

    executor = local_pool(workers)
    futures = [executor.submit(fn, *item) for item in items]
    finished = False
    try:
        for future in as_completed(futures):
            yield future.result()
        finished = True
    except BrokenProcessPool:
        drop_pool()
        raise
    finally:
        if not finished and _POOL.get("executor") is executor:
            for future in futures:
                future.cancel()
            wait(futures)


#: An object whose pickle is larger than this goes to local workers as a file, read once per worker.
SHIP_BYTES = 1 << 20
_SHIPPED = {}  # in a worker: the object last read from a shipped file, by path


def ship(obj):
    """What carries ``obj`` (a sampling plan) to the local workers: itself, or, if its pickle is large, a file.

    Exact choice on five planar contacts stores every piece's inverse (16 MB
    on the disk stack); pickled with every chunk, that made a two-worker run
    about 15 % slower (joblib had memory-mapped such arrays).  A large plan is
    written once per run to a temporary file, which each worker reads once
    (:func:`run_shipped`): the same bytes, so the same set.  The file goes
    when the object does.
    """
    import pickle
    import tempfile
    import uuid
    import weakref

    if getattr(obj, "_shipped", None) is None:  # decided once per object: a small one is not pickled again to weigh it
        blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        if len(blob) <= SHIP_BYTES:
            obj._shipped = False
            return obj
        fd, path = tempfile.mkstemp(prefix=f"reach-plan-{uuid.uuid4().hex}-", suffix=".pkl")  # never a reused name
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        weakref.finalize(obj, os.remove, path)
        obj._shipped = path
    return obj._shipped or obj


def run_shipped(fn, shipped, *args):
    """``fn(obj, *args)`` for an ``obj`` given as itself or as the file :func:`ship` wrote (read once per process)."""
    import pickle

    if isinstance(shipped, str):
        if shipped not in _SHIPPED:
            with open(shipped, "rb") as f:
                obj = pickle.load(f)
            _SHIPPED.clear()
            _SHIPPED[shipped] = obj
        shipped = _SHIPPED[shipped]
    return fn(shipped, *args)
