"""The sampling kernel on a CUDA GPU: the CPU kernels compiled again as device functions, one thread a sample.

Nothing here is a second copy of the algorithm.  :func:`device_function`
takes a kernel's Python source (the ``py_func`` of its Numba dispatcher) and
compiles it with ``numba.cuda.jit(device=True)``, after swapping every kernel
it calls for that kernel's own device version (recursively, once each).  So
Lemke's method, the verification, the Routh step and Algorithm 1 are the same
code on both targets, and a change to one is a change to both.  (On scalars
the kernels call ``math.exp``, ``math.sqrt``, ``math.isnan``..., never NumPy's
ufuncs, which CUDA does not have; ``tests/sampling/test_gpu.py`` compiles the
kernel to PTX to hold that.)

The kernel itself (:func:`kernel_function`) is the only CUDA code of its
own: thread ``s`` allocates its work arrays (a
:class:`~reach.kernels.routh_data.StepWork`, every field sized to the problem)
with ``cuda.local.array`` and runs :func:`reach.kernels.routh.run_sample` on
row ``s`` of the caps.  Local arrays live in the GPU's per-thread local
memory, which the hardware interleaves thread by thread, so the threads of a
warp reading the same entry of their own arrays read one contiguous line.
Their shapes must be constants of the kernel: one kernel is compiled per
problem size, flag pair and LCP method.  The kernel's source is written from
``StepWork``'s fields (:func:`kernel_source`), so a new work array needs no
change here.

Samples are independent and keyed by their global index, so a GPU's set is
the CPU's set: bit for bit under Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, which CI runs); on a device the kernel is
compiled without fused multiply-adds or link-time optimization
(:func:`without_contraction`) and calls no transcendental function, so that
its arithmetic is the CPU's operation for operation (``REACH_GPU_FUSED=1``
trades that for speed, :data:`FUSED`).

``numba.cuda`` is imported on first use, never at import time: the CPU
install needs no CUDA.  numba-cuda 0.30 still overloads ``np.row_stack``,
which numpy 2.5 removed; :func:`numba_cuda` restores the name (as ``np.vstack``,
what numpy deprecated it for) before the import, or no kernel compiles.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import types
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from reach.kernels.cache import kernels_digest
from reach.kernels.drawn import fill_caps
from reach.kernels.enumeration import FALLBACK_MAX_N
from reach.kernels.lcp import LemkeWork
from reach.kernels.routh import (SAMPLE_FIELDS, SampleOutput, begin_sample, finish_sample, run_sample, sample_going,
                                 sample_step)
from reach.kernels.routh_data import StepWork, make_step_work

__all__ = ["numba_cuda", "available", "device_function", "work_template", "kernel_source", "kernel_file",
           "kernel_function", "kernel_module", "remove_stale_kernels", "sample_kernel", "cached_on_disk", "output_on",
           "without_contraction", "queue_source", "compiled_kernels", "forget_kernels", "SCHEDULE", "SCHEDULES",
           "QUEUE_MIN_N", "schedule_for", "THREADS_PER_BLOCK", "JIT_OPTIONS", "REGISTER_CAP", "REGISTER_CAP_MIN_N",
           "jit_options", "FUSED", "KernelKey"]

#: Threads per block of :func:`sample_kernel` (32-256 ran within 10 % of one another on an H200; docs/performance.md).
THREADS_PER_BLOCK = 64

#: Registers a thread of :func:`sample_kernel` may use where its LCP has :data:`REGISTER_CAP_MIN_N` rows or more
#: (uncapped, each thread takes 255).  Measured on an H200 (``bench/register-caps-h200.log``, the strict build,
#: 2^22 uniform samples, the same process): capped at 80 the disk stack's kernel ran 1.48x and the quadruped's
#: 1.57x their uncapped rates, with the same bits; caps of 64 to 128 ran within 6 % of 80; the rocking block
#: (n = 10) ran fastest uncapped (caps 64-128: 0.95-0.97x).  More threads share a multiprocessor while one
#: waits on its local memory, which outweighs the spills a cap adds.
REGISTER_CAP = 80
#: Smallest LCP size whose kernels :func:`jit_options` caps at :data:`REGISTER_CAP` (measured: 25 and 44 gain,
#: 10 does not).
REGISTER_CAP_MIN_N = 20

#: Options of numba-cuda's ``cuda.jit`` for :func:`sample_kernel`, as ``(name, value)`` pairs, in place of
#: :func:`jit_options`' defaults; ``None`` (the default) keeps those.  ``reach bench --gpu`` and
#: ``bench/register_caps.py`` set it to measure other options: ``()`` compiles with none (255 registers).
JIT_OPTIONS = None


def schedule_for(n):
    """The sampling kernel's schedule for LCPs of ``n`` rows: :data:`SCHEDULE` where set, else ``"queue"`` from
    :data:`QUEUE_MIN_N` rows on and ``"thread"`` below."""
    schedule = SCHEDULE or ("queue" if n >= QUEUE_MIN_N else "thread")
    if schedule not in SCHEDULES:
        raise ValueError(f"the GPU kernel's schedule (REACH_GPU_SCHEDULE) must be one of {SCHEDULES}; got "
                         f"{schedule!r}.")
    return schedule


def jit_options(n):
    """The ``cuda.jit`` options of the sampling kernel for LCPs of ``n`` rows: :data:`JIT_OPTIONS` where set, else
    a cap of :data:`REGISTER_CAP` registers from :data:`REGISTER_CAP_MIN_N` rows on, and none below."""
    if JIT_OPTIONS is not None:
        return tuple(JIT_OPTIONS)
    return (("max_registers", REGISTER_CAP),) if n >= REGISTER_CAP_MIN_N else ()


#: How the sampling kernel's threads take their samples (:func:`sample_kernel`): ``"thread"``, a thread a sample;
#: ``"queue"``, each thread takes samples from a shared counter and runs them a step at a time
#: (:func:`queue_source`); None (the default), :func:`schedule_for` picks by the LCP's size.  The same set either
#: way.  ``REACH_GPU_SCHEDULE=thread`` or ``=queue`` picks one for every size; ``reach bench --gpu`` times both.
SCHEDULE = os.environ.get("REACH_GPU_SCHEDULE") or None
#: The values of :data:`SCHEDULE`.
SCHEDULES = ("thread", "queue")
#: LCP rows from which the queue is the default schedule.  Measured on an H200 (2^20 uniform samples, kernel
#: samples/s, ``bench/gpu-h200-c0aa317.log``): the queue ran 1.09-1.16x a thread a sample on the disk stack
#: (n = 25) and the quadruped (n = 44), random and first choice, and 0.64-0.82x on the rocking block (n = 10).
QUEUE_MIN_N = 20

#: ``REACH_GPU_FUSED=1``: compile with numba-cuda's defaults, link-time optimization and fused multiply-adds
#: (faster, but the GPU's set is no longer the CPU's bit for bit; see :func:`without_contraction`).
FUSED = os.environ.get("REACH_GPU_FUSED", "") == "1"


class KernelKey(NamedTuple):
    """What a sampling kernel is compiled for: :func:`kernel_function`'s arguments (see :func:`sample_kernel`)."""

    modes: object       # None or True: reach.kernels.routh.modes_flag
    certify: object     # None or True: reach.kernels.routh.certify_flag
    n: int              # LCP size
    m: int              # contacts
    nv: int             # velocities
    N: object           # steps, where the kernel draws its caps; None where they come from the host
    tableau: bool       # whether the dense tableau can run
    options: tuple      # cuda.jit's options, (name, value) pairs (jit_options)
    schedule: str       # "thread" or "queue"


_DEVICE = {}   # a kernel's py_func -> its device function
_KERNELS = {}  # KernelKey -> (the sampling kernel, cached on disk?)


def numba_cuda():
    """``numba.cuda``, imported on first call (with numpy 2.5's missing ``np.row_stack`` restored for numba-cuda)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    return cuda


@contextlib.contextmanager
def without_contraction():
    """Inside, the CUDA compiler (NVVM) keeps ``a * b + c`` as two roundings (``-fma=0``), as the CPU's does.

    NVVM contracts multiply-adds by default, and Numba's ``cuda.jit`` has no
    switch for it.  This holds only where NVVM writes the final PTX: with
    link-time optimization (numba-cuda's default where nvJitLink is installed)
    nvJitLink generates the code again and contracts (6,391 ``DFMA`` in the
    SASS of the rocking block's kernel on an H200, 2026-11-26), and cuda.core
    passes its ``fma`` option as ``-fma=false``, which NVVM refuses.  So
    :func:`sample_kernel` compiles without LTO unless :data:`FUSED`.  The
    kernels call no ``exp``, ``log`` or ``pow`` (whose libdevice versions
    differ from the C library's), so without contraction the PTX has no
    ``fma`` (tested).  A kernel compiles at its first launch, so
    :meth:`reach.sampling.gpu.Gpu.run` launches inside this.  Under the
    simulator, which compiles nothing, it does nothing.
    """
    try:
        from numba.cuda.cudadrv import nvvm
    except Exception:  # the simulator, or no toolkit: nothing is compiled
        yield
        return
    compile_ir = nvvm.compile_ir

    def strict(llvmir, **options):
        options.setdefault("fma", False)
        return compile_ir(llvmir, **options)

    nvvm.compile_ir = strict
    try:
        yield
    finally:
        nvvm.compile_ir = compile_ir


def available():
    """Whether a CUDA GPU (or Numba's simulator, ``NUMBA_ENABLE_CUDASIM=1``) can run :func:`sample_kernel`."""
    try:
        return bool(numba_cuda().is_available())
    except Exception:  # no driver, no numba-cuda, a broken toolkit: no GPU for this process
        return False


def device_function(dispatcher):
    """The CUDA device version of the Numba kernel ``dispatcher`` (compiled lazily, cached per process).

    The kernel's source is reused as it is; only the kernels it calls are
    swapped for their device versions, in a copy of its module's globals.
    """
    source = dispatcher.py_func
    if source not in _DEVICE:
        names = dict(source.__globals__)
        for name in source.__code__.co_names:
            if isinstance(names.get(name), Dispatcher):
                names[name] = device_function(names[name])
        clone = types.FunctionType(source.__code__, names, source.__name__, source.__defaults__,
                                   source.__closure__)
        clone.__qualname__ = source.__qualname__
        clone.__doc__ = source.__doc__
        _DEVICE[source] = numba_cuda().jit(device=True)(clone)
    return _DEVICE[source]


def _local(array):
    """``cuda.local.array(shape, dtype)`` of a template array, as source."""
    return f"cuda.local.array({tuple(int(d) for d in array.shape)!r}, {np.dtype(array.dtype).name})"


def work_template(modes, n, m, nv, tableau=True):
    """The :class:`StepWork` whose shapes a thread's local arrays take: :func:`make_step_work`'s, trimmed.

    A thread's frame holds every array whether its path touches it or not,
    so arrays that a kernel cannot reach are one entry long: the enumeration's
    (``members``, ``A``, ``b``, ``x``) where neither contact modes nor the
    enumeration fallback (LCP size at most :data:`FALLBACK_MAX_N`) run, the
    candidates of an enumerated step (``distinct``, ``codes``) without modes,
    and Lemke's dense tableau ``T`` where only the revised method runs (not
    ``tableau``: :func:`reach.kernels.lcp.uses_tableau` is false for the run's
    method and size; its LU re-solve then factors in the folded inverse's store).  For the
    quadruped touchdown (random choice, n = 44) that leaves 57 KiB of the 93 KiB
    out (tested).
    """
    work = make_step_work(n, m, nv)
    if not tableau:
        work = work._replace(lemke=work.lemke._replace(T=np.empty((1, 1))))
    if modes is None:
        work = work._replace(distinct=np.empty((1, nv)), codes=np.empty(1, dtype=np.int64))
        if n > FALLBACK_MAX_N:
            work = work._replace(members=np.empty(1, dtype=np.int64), A=np.empty((1, 1)), b=np.empty(1),
                                 x=np.empty(1))
    return work


def kernel_source(modes, n, m, nv, N=None, tableau=True, schedule="thread"):
    """Source of the kernel for an LCP of size ``n``, ``m`` contacts and ``nv`` velocities.

    Thread ``s`` makes its :class:`StepWork` of local arrays shaped as
    :func:`work_template`'s (``tableau``: whether the dense tableau can run) and runs sample ``first_index + s`` (``RUN``,
    ``MODES`` and ``CERTIFY`` are bound by :func:`kernel_function`).  With
    ``N`` None the kernel is ``samples(data, opts, P, first_index, out)``
    and takes the sample's caps from row ``s`` of ``P``; with ``N`` steps it
    is ``samples(data, opts, drawn, first_index, count, out)`` and the thread
    draws its own caps (``FILL``: :func:`reach.kernels.drawn.fill_caps`, from
    a :class:`~reach.kernels.drawn.DrawnCaps`).  ``schedule="queue"`` writes
    :func:`queue_source`'s kernel instead.
    """
    template = work_template(modes, n, m, nv, tableau)
    lemke = ", ".join(_local(a) for a in template.lemke)
    rest = ", ".join(_local(a) for a in template[1:])
    make = f"work = StepWork(LemkeWork({lemke}), {rest})"
    if schedule == "queue":
        return queue_source(f"    {make}", m, N)
    work = f"        {make}\n"
    if N is None:
        return (f"def samples(data, opts, P, first_index, out):\n"
                f"    s = cuda.grid(1)\n"
                f"    if s < P.shape[0]:\n{work}"
                f"        RUN(data, opts, P[s], s, first_index + s, out, work, MODES, CERTIFY)\n")
    return (f"def samples(data, opts, drawn, first_index, count, out):\n"
            f"    s = cuda.grid(1)\n"
            f"    if s < count:\n{work}"
            f"        p = cuda.local.array(({int(N)}, {int(m)}), float64)\n"
            f"        FILL(p, drawn.V, drawn.shift, drawn.sequence, drawn.caps, drawn.seed, first_index + s)\n"
            f"        RUN(data, opts, p, s, first_index + s, out, work, MODES, CERTIFY)\n")


def queue_source(work, m, N=None):
    """Source of the queue kernel: a thread takes samples from a shared counter, one step of one at a time.

    A warp runs as long as its slowest thread.  With a thread a sample, the
    warp of 32 samples waits for the one that takes the most Routh steps: the
    CPU's LCP solves of 2^14-2^16 uniform samples put the busy share of a
    warp's lanes at 0.38-0.46 (rocking block, disk stack, quadruped;
    ``bench/warp-balance.log``).  Here ``queue[0]`` counts the samples taken,
    and each turn of a thread's loop is one step of its sample: a thread whose
    sample has ended writes it (``FINISH``), takes the next (``atomic.add``),
    draws its caps (``FILL``; with ``N`` None, row ``s`` of ``P``) and starts it
    (``BEGIN``) until it holds one that needs a step (``GOING``), and then the
    threads of the warp take their steps (``STEP``) together.  The parts are
    :func:`reach.kernels.routh.run_sample`'s, in its order, so a sample's
    outcome is the thread kernel's bit for bit, whichever thread runs it.
    """
    if N is None:
        head, caps, steps, local = "P", "p = P[s]", "P.shape[1]", "    p = P[0]  # (typed before the loop)\n"
    else:
        head, steps = "drawn", str(int(N))
        caps = "FILL(p, drawn.V, drawn.shift, drawn.sequence, drawn.caps, drawn.seed, first_index + s)"
        local = f"    p = cuda.local.array(({int(N)}, {int(m)}), float64)\n"
    lines = [f"def samples(data, opts, {head}, first_index, count, out, queue):", work.rstrip(), local.rstrip(),
             f"    N = {steps}",
             "    s, held = 0, False",
             "    step, solves, worst, failed = 0, 0, 0.0, False",
             "    while True:",
             "        while True:  # finish samples, take the next, until this thread holds one that takes a step",
             "            if held:",
             "                going, terminated = (False, False) if failed else GOING(data, opts, work.v, step, N)",
             "                if going:",
             "                    break",
             "                FINISH(data, opts, s, out, work.v, terminated, failed, solves, worst)",
             "            s = cuda.atomic.add(queue, 0, 1)",
             "            if s >= count:",
             "                return",
             f"            {caps}",
             "            BEGIN(data, s, out, work)",
             "            step, solves, worst, failed, held = 0, 0, 0.0, False, True",
             "        solved, tries, worst = STEP(data, opts, p, s, first_index + s, out, work, MODES, CERTIFY, step, "
             "worst)",
             "        solves += tries",
             "        step += 1",
             "        failed = not solved"]
    return "\n".join(line for line in lines if line) + "\n"


def kernel_file(key, source):
    """A module file holding ``source``, named by it, the kernel ``key`` and every kernel module's hash; or None.

    Numba caches a compiled kernel on disk only if its source is a file
    (next to it, in ``__pycache__``), and keys the cache on that file alone:
    the name changes whenever the kernel, its key or any kernel it calls
    does, so a cached kernel is never a stale one.  The name begins with the
    kernel modules' hash, so writing a new file also removes the files (and
    their compiled kernels) that an earlier version of the kernels wrote
    (:func:`remove_stale_kernels`).  None where the package's folder is
    read-only: the kernel then compiles in each process.
    """
    modules = kernels_digest()
    digest = hashlib.sha256(f"{modules} {key!r} fused={FUSED}\n{source}".encode()).hexdigest()[:20]
    path = Path(__file__).resolve().parent / "__pycache__" / "cuda" / f"kernel_{modules[:12]}_{digest}.py"
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_kernels(path.parent, f"kernel_{modules[:12]}_")
            partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
            partial.write_text(f"# reach's GPU kernel {key!r}, written by reach.kernels.device\n{source}")
            partial.replace(path)
    except OSError:
        return None
    return path


def remove_stale_kernels(folder, current):
    """Remove the kernel files in ``folder`` whose names do not begin with ``current``, and Numba's cache of each."""
    stale = [f for f in folder.glob("*kernel_*.py") if not f.name.startswith(current)]
    for f in stale:
        for cached in (folder / "__pycache__").glob(f"{f.stem}.*"):
            cached.unlink(missing_ok=True)
        f.unlink(missing_ok=True)


def kernel_function(modes, certify, n, m, nv, N=None, tableau=True, compile_options=(), schedule="thread"):
    """The Python function :func:`sample_kernel` compiles (:func:`kernel_source`, its names bound), and
    whether Numba may cache it on disk (its source is a :func:`kernel_file`, named for ``compile_options`` too)."""
    from numba import float64, int64

    names = {"cuda": numba_cuda(), "StepWork": StepWork, "LemkeWork": LemkeWork, "float64": float64,
             "int64": int64, "FILL": device_function(fill_caps), "MODES": modes, "CERTIFY": certify}
    if schedule == "queue":
        names.update(BEGIN=device_function(begin_sample), GOING=device_function(sample_going),
                     STEP=device_function(sample_step), FINISH=device_function(finish_sample))
    else:
        names["RUN"] = device_function(run_sample)
    key = (modes, certify, n, m, nv, N, tableau, tuple(compile_options), schedule)
    namespace, on_disk = kernel_module(key, kernel_source(modes, n, m, nv, N, tableau, schedule), names)
    return namespace["samples"], on_disk


def kernel_module(key, source, names):
    """The names ``source`` defines, run with ``names`` bound; and whether Numba may cache its kernels on disk.

    The source runs from its :func:`kernel_file` (so Numba can cache what it
    compiles), or from memory where the package's folder is read-only.
    """
    path = kernel_file(key, source)
    if path is None:
        namespace = dict(names)
        exec(compile(source, f"<reach GPU kernel {key!r}>", "exec"), namespace)
        return namespace, False
    spec = importlib.util.spec_from_file_location(f"reach_cuda_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(names)
    spec.loader.exec_module(module)
    return module.__dict__, True


def sample_kernel(modes, certify, n, m, nv, N=None, tableau=True, cache=True, schedule=None):
    """The CUDA kernel: ``kernel[blocks, threads](data, opts, P, first_index, out)``, or with ``N``
    ``kernel[blocks, threads](data, opts, drawn, first_index, count, out)`` (see :func:`kernel_source`).

    ``modes`` and ``certify`` are :func:`reach.kernels.routh.run_samples_kernel`'s
    (``None`` or ``True``): constants of the kernel, so a run of random or first
    choice compiles no contact-mode code, as on the CPU; ``n``, ``m``, ``nv``
    (and ``N``) size the work arrays, and without ``tableau`` (the run's
    Lemke method at size ``n`` is the revised one) the dense tableau is left out.  Thread ``s`` fills row ``s`` of ``out`` (a
    :class:`~reach.kernels.routh.SampleOutput`).  Compiled at its first launch,
    and cached on disk (:func:`kernel_file`) unless ``cache`` is false: a later
    process loads it.  ``cache=False`` replaces a cached kernel of this key.
    It is compiled with :func:`jit_options` (as they are at its first call).  ``schedule``: ``"thread"`` (a
    thread a sample) or ``"queue"`` (:func:`queue_source`; then ``kernel[blocks, threads](..., count, out, queue)``
    with caps from the host too); None, :func:`schedule_for`'s.
    """
    schedule = schedule or schedule_for(n)
    options = jit_options(n)
    key = KernelKey(modes, certify, n, m, nv, N, tableau, options, schedule)
    if key not in _KERNELS or (not cache and _KERNELS[key][1]):
        function, on_disk = kernel_function(*key)
        # the function goes in as an argument: numba-cuda 0.30 drops ``lto`` given to ``jit(...)`` as a decorator;
        # the simulator takes neither ``lto`` nor the tuning options
        given = {} if numba.config.ENABLE_CUDASIM else {"lto": None if FUSED else False, **dict(options)}
        _KERNELS[key] = (numba_cuda().jit(function, cache=on_disk and cache, **given), on_disk and cache)
    return _KERNELS[key][0]


def cached_on_disk(key, schedule=None):
    """Whether the kernel of ``key`` (:func:`sample_kernel`'s arguments, with today's :func:`jit_options`) is
    compiled with Numba's disk cache."""
    modes, certify, n, *rest = key
    key = KernelKey(modes, certify, n, *rest, jit_options(n), schedule or schedule_for(n))
    return key in _KERNELS and _KERNELS[key][1]


def compiled_kernels():
    """``(key, kernel)`` of each sampling kernel :func:`sample_kernel` made in this process; ``key`` is a
    :class:`KernelKey`."""
    return [(key, kernel) for key, (kernel, _) in _KERNELS.items()]


def forget_kernels():
    """Forget this process's device functions and sampling kernels, so that the next ones are built again from the
    kernels' names as they are then (a bench that swaps a kernel for a stand-in needs this)."""
    _DEVICE.clear()
    _KERNELS.clear()


def output_on(count, nv, keep, path_rows, allocate):
    """A :class:`SampleOutput` made by ``allocate(shape, dtype)`` (see :func:`reach.kernels.routh.allocate_output`)."""
    arrays = {name: allocate((count, nv) if per_v else (count,), dtype)
              for name, (dtype, per_v) in SAMPLE_FIELDS.items()}
    return SampleOutput(**arrays, paths=allocate((keep, path_rows, nv), np.float64),
                        path_len=allocate((keep,), np.int64))
