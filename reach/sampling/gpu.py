"""Running a plan's chunks on a CUDA GPU: the device side of :class:`reach.sampling.executors.Cuda`.

A :class:`Gpu` runs blocks of samples with :func:`reach.kernels.device.sample_kernel`,
a thread a sample or, from 20 LCP rows on, a queue of samples run a step at a time
(:func:`reach.kernels.device.schedule_for`).  The engine's :func:`~reach.sampling.engine.run_chunk`
hands each block to :meth:`Gpu.run` instead of the CPU kernel, so a chunk,
its checkpoint file and the set are the same whichever runs it.  A block of
consecutive samples (uniform sampling, a directed run's first round) draws its
caps on the device, each thread its own from (seed, index), as the host would
(:mod:`reach.kernels.drawn`); a directed round's children bring the caps the
host chose.

A block holds at most :data:`MAX_BLOCK` samples, and where the caps come from
the host as many as :data:`CAP_NUMBERS` caps allow; each thread's work arrays
are local to it (:mod:`reach.kernels.device`).  The problem's data goes to the
device once a run.  The per-sample output arrays stay on the device between
launches (:meth:`Gpu.outputs`): a launch writes every field of each of its
samples, so a later launch takes views of the same arrays instead of
allocating its own; they grow when a launch needs more.  A block run a thread a sample is
launched in parts of :data:`DOWNLOAD_PART` samples on two streams, and each part's outputs
come back while the later parts run; a queue kernel's block is one launch.
"""

from __future__ import annotations

import pickle
import time
import warnings
from collections import deque

import numpy as np

from reach.kernels import device as kernels_device
from reach.kernels.drawn import drawn_caps
from reach.kernels.lcp import uses_tableau
from reach.kernels.routh import SAMPLE_FIELDS, SampleOutput

__all__ = ["Gpu", "NoGpuError", "takes_tableau", "MAX_BLOCK", "CAP_NUMBERS", "gpu_available", "DEVICE_SECONDS",
           "LAUNCHES", "LAUNCH_RECORDS", "QUEUE_THREADS", "DOWNLOAD_PART"]

#: Most caps (numbers, 8 bytes each) of one launch, drawn on the host: 256 MiB.
CAP_NUMBERS = 2**25

#: Wall seconds spent in this process on the device's side of :meth:`Gpu.run`, for ``reach bench --gpu``; never
#: reset here.  ``"setup"``: before the caps go, the outputs' arrays (:meth:`Gpu.outputs`) and a new run's data on
#: the device; ``"upload"``: a launch's caps to the device; ``"kernel"``: the launch to its end (its last part's,
#: :data:`DOWNLOAD_PART`; the earlier parts' downloads run meanwhile); ``"download"``: the outputs back after that;
#: ``"transfer"``: upload and download together.
DEVICE_SECONDS = {"setup": 0.0, "upload": 0.0, "kernel": 0.0, "download": 0.0, "transfer": 0.0}
#: Most launches :data:`LAUNCHES` keeps.
LAUNCH_RECORDS = 4096
#: ``(samples, kernel seconds)`` of this process's last :data:`LAUNCH_RECORDS` launches of :meth:`Gpu.run`, for
#: ``reach bench --gpu`` (which clears it to record one run's): whether a run's kernel time goes to large launches
#: or to small ones, whose few threads leave most of a GPU idle.
LAUNCHES = deque(maxlen=LAUNCH_RECORDS)

#: Most samples one launch runs (a large GPU keeps about 10^5 threads resident; more queue behind them).  As
#: large as :attr:`reach.sampling.executors.Cuda.chunk_size`, so that a chunk is one launch, whose outputs are
#: the chunk's arrays as they come back.
MAX_BLOCK = 2**22


#: Samples a part of a launch of a thread a sample (:meth:`Gpu.run`): a block of more is launched in parts, on
#: two streams in turn, and each part's outputs come back while the later parts run, so that the download of all
#: but the last part is hidden behind the kernel.  Measured on an H200 (``bench/download-parts-h200.log``, 2^22
#: uniform rocking-block samples, wall): one launch ran 15.9-16.9 M samples/s under random choice and 20.3-20.5 M
#: under first; parts of 2^20, 2^19 and 2^18 ran 1.23x, 1.28-1.33x and 1.29-1.35x that (random), 1.30x,
#: 1.37x and 1.41-1.42x (first), with the same sets.  The kernel's seconds did not move (0.18 and 0.13 s).
DOWNLOAD_PART = 2**18

#: Threads of a queue kernel's launch (:meth:`Gpu.resident`) where the device does not say how many it holds.
QUEUE_THREADS = 2**16


class NoGpuError(ValueError):
    """This process has no CUDA GPU to run on (no device, no driver, or no numba-cuda)."""


def gpu_available():
    """Whether this process can run samples on a CUDA GPU (or Numba's CUDA simulator)."""
    return kernels_device.available()


def _to_device(cuda, value):
    """``value`` with every array in it (nested named tuples too) copied to the device."""
    if isinstance(value, np.ndarray):
        return cuda.to_device(np.ascontiguousarray(value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_to_device(cuda, v) for v in value])
    return value


def _part_of(out, a, b, none):
    """Samples ``a .. b - 1`` of a :class:`SampleOutput` (device or host arrays): views of its per-sample rows,
    and of its kept paths' rows among them, or ``none`` (empty paths and lengths) where it keeps none.  (numba-cuda
    slices no empty device array: "non-empty slice into empty slice".)"""
    keep = out.path_len.shape[0]
    lo, hi = min(a, keep), min(b, keep)
    paths, path_len = (out.paths[lo:hi], out.path_len[lo:hi]) if hi > lo else none
    return SampleOutput(*[x[a:b] for x in out[:len(SAMPLE_FIELDS)]], paths=paths, path_len=path_len)


def takes_tableau(options, n):
    """Whether a run of :class:`~reach.kernels.routh.StepOptions` ``options`` can take Lemke's dense tableau
    at LCP size ``n`` (its solves, or the strict retry's): else its kernel leaves the tableau out."""
    return bool(uses_tableau(options.lemke.method, n) or uses_tableau(options.lemke_strict.method, n))


class Gpu:
    """One CUDA GPU as the engine sees it: a block size, and :meth:`run` for a block of samples."""

    def __init__(self):
        if not gpu_available():
            raise NoGpuError("no CUDA GPU here (numba-cuda finds no device): run on the CPU, or install "
                             "'reach[cuda]' on a machine with an NVIDIA GPU and its driver.")
        self.cuda = kernels_device.numba_cuda()
        self._data = {}  # id of a plan's kernel data -> (that data, its device copy)
        self._outputs = None  # ((samples, nv), a SampleOutput of device arrays for that many samples)

    def describe(self):
        """The device's name, e.g. ``NVIDIA H200`` (``simulator`` under NUMBA_ENABLE_CUDASIM=1)."""
        try:
            name = self.cuda.get_current_device().name
        except Exception:  # the simulator's fake device
            return "simulator"
        return name.decode() if isinstance(name, bytes) else str(name)

    def block_size(self, problem, max_steps, drawn=False):
        """Samples a launch: at most :data:`MAX_BLOCK`, and as many as :data:`CAP_NUMBERS` caps allow
        where the caps come from the host (not ``drawn`` on the device)."""
        return MAX_BLOCK if drawn else max(1, min(MAX_BLOCK, CAP_NUMBERS // (max_steps * problem.m)))

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        """Samples ``first_index ..`` on the device; a host :class:`SampleOutput`.

        With caps ``P`` (S, N, m) the samples take theirs; with ``P`` None,
        ``count`` samples each draw their own on the device from (seed, index)
        (:func:`reach.kernels.drawn.fill_caps`: the caps the host would draw).
        """
        cuda = self.cuda
        problem = plan.problem
        S, nv = (count if P is None else P.shape[0]), problem.nv
        ts = time.perf_counter()
        data = self._device_data(plan)
        out = self.outputs(S, nv)._replace(paths=cuda.to_device(np.full((keep, path_rows, nv), np.nan)),
                                           path_len=cuda.device_array(keep, np.int64))
        key = (*plan.flags, problem.lcp_size, problem.m, nv, plan.settings.max_steps if P is None else None,
               takes_tableau(plan.options, problem.lcp_size))
        threads, schedule = kernels_device.THREADS_PER_BLOCK, kernels_device.schedule_for(problem.lcp_size)
        caps = self._drawn(plan) if P is None else None  # a run's drawn caps go once, as part of its setup
        queue = cuda.to_device(np.zeros(1, np.int64)) if schedule == "queue" else None
        cuda.synchronize()
        t0 = time.perf_counter()
        if P is not None:
            caps = cuda.to_device(np.ascontiguousarray(P))
        cuda.synchronize()
        t1 = time.perf_counter()
        if queue is not None:  # the queue kernel: as many threads as the device holds at once, each many samples
            blocks = -(-self.resident(S) // threads)
            self._launch(key, schedule, blocks, threads, 0, (data, plan.options, caps, first_index, S, out, queue),
                         queue)
            parts = [(0, S, None)]
        else:
            parts = self._launch_parts(key, schedule, threads, data, plan.options, caps, P is None, first_index, S,
                                       out)
        host, t2 = self._download(out, parts)
        t3 = time.perf_counter()
        for part, seconds in (("setup", t0 - ts), ("upload", t1 - t0), ("kernel", t2 - t1), ("download", t3 - t2),
                              ("transfer", (t1 - t0) + (t3 - t2))):
            DEVICE_SECONDS[part] += seconds
        LAUNCHES.append((int(S), t2 - t1))
        return host

    def _launch(self, key, schedule, blocks, threads, stream, args, queue=None):
        """Launch the sampling kernel of ``key`` on ``stream`` (0: the default one), compiled at its first launch."""
        with kernels_device.without_contraction():  # compiled at the first launch: no fused multiply-adds
            try:
                kernels_device.sample_kernel(*key, schedule=schedule)[blocks, threads, stream](*args)
            except (pickle.PicklingError, RuntimeError, OSError) as exc:  # maybe the disk cache: once without it
                if not kernels_device.cached_on_disk(key, schedule):
                    raise
                warnings.warn(f"the GPU kernel failed with Numba's disk cache ({exc}); compiling it again "
                              "without", RuntimeWarning, stacklevel=3)
                if queue is not None:
                    queue.copy_to_device(np.zeros(1, np.int64))  # the failed launch may have taken samples
                kernels_device.sample_kernel(*key, cache=False, schedule=schedule)[blocks, threads, stream](*args)

    def _launch_parts(self, key, schedule, threads, data, options, caps, drawn, first_index, S, out):
        """A thread a sample: launch samples ``0 .. S - 1`` in parts of :data:`DOWNLOAD_PART`, on two streams in
        turn; returns ``(a, b, event)`` for each part, the event recorded where its launch ends."""
        cuda = self.cuda
        streams = (cuda.stream(), cuda.stream())
        none = (cuda.device_array((0, *out.paths.shape[1:])), cuda.device_array(0, np.int64))
        parts = []
        for i, a in enumerate(range(0, S, DOWNLOAD_PART)):
            b = min(S, a + DOWNLOAD_PART)
            view = _part_of(out, a, b, none)
            args = (data, options, caps, first_index + a, b - a, view) if drawn else (data, options, caps[a:b],
                                                                                     first_index + a, view)
            stream = streams[i % 2]
            self._launch(key, schedule, -(-(b - a) // threads), threads, stream, args)
            event = cuda.event()
            event.record(stream)
            parts.append((a, b, event))
        return parts

    def _download(self, out, parts):
        """Each part's outputs to the host once its launch has ended, while the later parts run; returns the host
        :class:`SampleOutput` and the time the last launch was seen to end (``time.perf_counter``)."""
        cuda = self.cuda
        host = SampleOutput(*[np.empty(a.shape, a.dtype) for a in out])
        copies = cuda.stream()
        ended = None
        for a, b, event in parts:
            if event is None:
                cuda.synchronize()
            else:
                event.synchronize()
            ended = time.perf_counter()
            for device_array, host_array in zip(_part_of(out, a, b, (None, None)), _part_of(host, a, b, (None, None))):
                if host_array is not None and host_array.size:
                    device_array.copy_to_host(host_array, stream=copies)
        copies.synchronize()
        return host, ended

    def resident(self, samples):
        """Threads of a queue kernel's launch for ``samples`` samples: at most as many as the device's
        multiprocessors hold at once (:data:`QUEUE_THREADS` where the device does not say, as under the simulator)."""
        try:
            device = self.cuda.get_current_device()
            held = int(device.MULTIPROCESSOR_COUNT) * int(device.MAX_THREADS_PER_MULTIPROCESSOR)
        except Exception:  # the simulator's device has neither attribute
            held = QUEUE_THREADS
        return max(1, min(int(samples), held))

    def outputs(self, samples, nv):
        """A :class:`SampleOutput` of device arrays for ``samples`` samples (its paths not yet there): views of
        the arrays kept from earlier launches, which grow (to the next power of two) when they hold fewer."""
        held = self._outputs
        if held is None or held[0][0] < samples or held[0][1] != nv:
            size = 1 << max(0, int(samples) - 1).bit_length()
            held = self._outputs = None  # the old arrays go before the new ones are allocated
            arrays = kernels_device.output_on(size, nv, 0, 0, lambda shape, dtype: self.cuda.device_array(shape, dtype))
            self._outputs = held = ((size, nv), arrays)
        return SampleOutput(*[a[:samples] if name in SAMPLE_FIELDS else a
                              for name, a in zip(SampleOutput._fields, held[1])])

    def _drawn(self, plan):
        """The run's :class:`~reach.kernels.drawn.DrawnCaps` on the device (copied once a run)."""
        st = plan.settings
        key = ("caps", id(plan.data), st.seed, st.sequence, st.caps, st.max_steps)
        if key not in self._data:
            drawn = drawn_caps(plan.problem.m, st.max_steps, seed=st.seed, sequence=st.sequence, caps=st.caps)
            self._data[key] = (plan.data, _to_device(self.cuda, drawn))
        return self._data[key][1]

    def _device_data(self, plan):
        key = id(plan.data)
        if key not in self._data:  # one run's data at a time (a new run's data drops the last one's caps too)
            self._data = {key: (plan.data, _to_device(self.cuda, plan.data))}
        return self._data[key][1]
