"""Where a sampling run's chunks run: how many workers, a Dask client, and the choice of ``n_jobs="auto"``."""

from __future__ import annotations

import os

__all__ = ["AUTO_SERIAL_SECONDS", "PILOT_SAMPLES", "STARTED", "worker_count", "dask_client", "auto_jobs",
           "note_started"]

#: ``n_jobs="auto"`` runs on one core when a pilot puts the whole run under this many seconds there.  Starting
#: two loky workers and loading the kernels in them took about a second (a 2^14-sample rocking-block run:
#: 1.2 s of sampling wall time on two workers, 0.2 s on one, warm Numba cache).
AUTO_SERIAL_SECONDS = 1.0
#: Samples of the pilot that estimates a run's time on one core (``n_jobs="auto"``).
PILOT_SAMPLES = 256
#: Set once this process has run loky workers: joblib keeps them for the next run, which then starts for free.
STARTED = []


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
        return Client(scheduler, timeout=10)
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
