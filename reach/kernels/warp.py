"""Lemke's revised method with a warp an LCP: a layout to measure against one thread an LCP.

The GPU's sampling kernel (:mod:`reach.kernels.device`) runs one sample a
thread.  For the quadruped touchdown (n = 44) a thread's frame is 37.5 KB,
far more than a multiprocessor's cache holds for its threads, so most of a
solve's reads go to the L2 cache or to memory.  Here the 32 threads of a
block (one warp) solve one LCP together: the basic values, the entering
column, the eta file and the folded basis inverse live in shared memory, and
thread ``lane`` owns rows ``lane, lane + 32, ...`` of each.  The loops over
rows (loading a column, the eta and folded-inverse passes of FTRAN, the
ratios, the pivot) run split by owner between barriers; the scalar path
(which eta comes next, the minimum ratio, the degenerate exit, the pivot
count) runs in every thread at once, on the same shared values, so that all
take the same branches.  Rare work runs in thread 0 alone, as the CPU's own
kernels: a ratio tie broken lexicographically (:func:`reach.kernels.revised.ratio_test`,
with its BTRANs) and folding a full eta file (:func:`reach.kernels.revised.fold_etas`).

Every entry is computed with the CPU's operations in the CPU's order (a
dot product of the folded inverse stays in one thread; maxima and minima,
exact in any order, are reduced across threads), so the answer is the CPU's
bit for bit: the same status, pivots, final basis and basic values as
:func:`reach.kernels.revised.revised_lemke_kernel` (tested under Numba's CUDA
simulator).  The entering column alternates between two buffers: an eta pass
reads one and writes the other, so one barrier a pass keeps every thread's
reads ahead of the next writes.

This is Lemke's method alone, on recorded LCPs (``reach bench --gpu`` times
it against one thread an LCP, :func:`thread_lemke_kernel`): whether the layout
is worth carrying into the whole sampling kernel is for that measurement to
say.  The functions here are plain Python, compiled for CUDA by
:func:`warp_lemke_kernel` (``numba.cuda`` is imported on first use).
"""

from __future__ import annotations

import math
import pickle
import time
import types
import warnings

import numpy as np

from reach.kernels.device import REGISTER_CAP, device_function, kernel_module, numba_cuda, without_contraction
from reach.kernels.jit import kernel
from reach.kernels.revised import degenerate_exit, fold_etas, ratio_test, revised_lemke_kernel

__all__ = ["WARP", "LAYOUTS", "STATIC_SHARED", "shared_bytes", "warp_lemke", "device_names", "warp_lemke_kernel", "thread_lemke_kernel", "lemke_kernel_source", "run_lemke", "lean_blocks",
           "cpu_lemke_batch"]

#: Threads that solve one LCP together (a block, one warp).
WARP = 32
#: The batch kernels' layouts (:func:`lemke_kernel_source`); ``"thread-capped"`` is ``"thread"`` compiled with the
#: sampling kernel's register cap (:data:`reach.kernels.device.REGISTER_CAP`), which ran the sampler 1.5x faster.
LAYOUTS = ("thread", "thread-capped", "warp", "warp-lean")
#: Bytes of shared memory a kernel's static arrays may take (CUDA's limit): n <= 52 for ``"warp"``, 72 lean.
STATIC_SHARED = 48 * 1024

_BUILT = {}  # (layout, n, cached on disk) -> compiled kernel


def reduce_lanes(part, lane, value, largest):
    """Every thread's answer: the largest (or smallest) of the threads' ``value``s (``part``: one slot a thread)."""
    part[lane] = value
    cuda.syncthreads()  # noqa: F821 (bound by warp_lemke_kernel)
    out = part[0]
    for k in range(1, cuda.blockDim.x):  # noqa: F821
        out = max(out, part[k]) if largest else min(out, part[k])
    cuda.syncthreads()  # noqa: F821 (part is written again by the next reduction)
    return out


def load_column(MsT, d, var, col, lane, width):
    """This thread's rows of the original column of ``var``: ``e_var``, ``-Ms[:, var - n]`` or ``-d`` (z0)."""
    n = col.shape[0]
    for i in range(lane, n, width):
        if var < n:
            col[i] = 1.0 if i == var else 0.0
        elif var < 2 * n:
            col[i] = -MsT[var - n, i]
        else:
            col[i] = -d[i]


def warp_ftran(file, cols, cur, lane, width):
    """``B^-1`` applied to ``cols[cur]`` (the folded inverse, then the etas); the buffer that holds the result.

    ``file`` is ``(etas, eta_row, eta_inv, count, binv, folded, tmp)``.  The
    etas go two at a time where the CPU's pass takes two (same operations,
    same order), each pass from one buffer of ``cols`` into the other.
    """
    etas, eta_row, eta_inv, count, binv, folded, tmp = file
    n = tmp.shape[0]
    if folded:
        col = cols[cur]
        for i in range(lane, n, width):
            tmp[i] = col[i]
        cuda.syncthreads()  # noqa: F821
        for i in range(lane, n, width):
            acc = 0.0
            for j in range(n):
                acc += binv[i, j] * tmp[j]
            col[i] = acc
        cuda.syncthreads()  # noqa: F821
    t = 0
    while t < count:
        col, out = cols[cur], cols[1 - cur]
        r = eta_row[t]
        xr = col[r]
        if xr == 0.0:
            t += 1
            continue
        xr *= eta_inv[t]
        xs = 0.0
        s = -1
        if t + 1 < count and eta_row[t + 1] != r:
            s = eta_row[t + 1]
            xs = col[s] - etas[t, s] * xr
            if xs != 0.0:
                xs *= eta_inv[t + 1]
            else:
                s = -1
        if s >= 0:
            for i in range(lane, n, width):
                out[i] = (col[i] - etas[t, i] * xr) - etas[t + 1, i] * xs
            if r % width == lane:
                out[r] = xr - etas[t + 1, r] * xs
            if s % width == lane:
                out[s] = xs
            t += 2
        else:
            for i in range(lane, n, width):
                out[i] = col[i] - etas[t, i] * xr
            if r % width == lane:
                out[r] = xr
            t += 1
        cur = 1 - cur
        cuda.syncthreads()  # noqa: F821
    return cur


def warp_ratio_test(col, x, ratio, basis, sign, z0_index, tols, file, scratch, lane, width):
    """:func:`reach.kernels.revised.ratio_test` by the block: (the row leaving, ``max |col|``).

    ``scratch`` is ``(rows, part, pick)``: two rows for BTRAN, a slot a
    thread for the reductions, and the row thread 0 chose on a tie.
    """
    sigma, pivot_tol, tie_tol = tols
    rows, part, pick = scratch
    n = x.shape[0]
    most = 0.0
    for i in range(lane, n, width):
        most = max(most, abs(col[i]))
    colmax = reduce_lanes(part, lane, most, True)
    threshold = pivot_tol * max(colmax, 1e-300)
    least = math.inf
    for i in range(lane, n, width):
        a = sign * col[i]
        ratio[i] = x[i] / a if a > threshold else math.inf
        least = min(least, ratio[i])
    best = reduce_lanes(part, lane, least, False)
    if best == math.inf:
        return -1, colmax
    limit = best + tie_tol * (abs(best) + sigma)
    chosen = -1
    ties = 0
    for i in range(n):
        if ratio[i] <= limit:
            if basis[i] == z0_index:
                return i, colmax
            if chosen < 0:
                chosen = i
            ties += 1
    if ties > 1:  # the lexicographic tie-break, as the CPU runs it (its BTRANs are serial)
        if lane == 0:
            tied, _ = RATIO_TEST(col, x, ratio, basis, sign, z0_index, tols, file, (rows[0], rows[1]))  # noqa: F821
            pick[0] = tied
        cuda.syncthreads()  # noqa: F821
        chosen = pick[0]
    return chosen, colmax


def warp_pivot(col, x, basis, r, entering, file, lane, width):
    """Pivot on row ``r``: record eta ``count`` and update the basic values; the variable that left."""
    etas, eta_row, eta_inv, count = file
    n = x.shape[0]
    inv = 1.0 / col[r]
    xr = x[r] * inv
    leaving = basis[r]
    cuda.syncthreads()  # noqa: F821 (every thread has read x and basis before they change)
    for i in range(lane, n, width):
        etas[count, i] = col[i]
        y = x[i] - col[i] * xr
        x[i] = 0.0 if y < 0.0 else y
    if r % width == lane:
        x[r] = xr if xr > 0.0 else 0.0
        basis[r] = entering
    if lane == 0:
        eta_row[count] = r
        eta_inv[count] = inv
    return leaving


def warp_lemke(MsT, qs, d, opts, shared, lane):
    """:func:`reach.kernels.revised.revised_lemke_kernel` by a block of threads; (status, pivots).

    ``shared`` holds the block's shared arrays, ``(etas, eta_row, eta_inv,
    binv, cols, x, ratio, basis, tmp, nz, rows, part, pick)``; on return
    ``basis`` and ``x`` hold the final basis and its basic values.
    """
    etas, eta_row, eta_inv, binv, cols, x, ratio, basis, tmp, nz, rows, part, pick = shared
    width = cuda.blockDim.x  # noqa: F821
    n = qs.shape[0]
    z0 = 2 * n
    sigma = 0.0
    for i in range(n):
        sigma = max(sigma, -qs[i])
    for i in range(lane, n, width):
        basis[i] = i
        x[i] = qs[i]
    cuda.syncthreads()  # noqa: F821
    if not sigma > 0.0:
        return 0, 0
    zero = opts.zero_tol * sigma
    pivot_tol = opts.pivot_tol
    count, folded, cur = 0, False, 0
    entering, sign, z0_index = z0, -1.0, -1
    pivots, status = 0, 2
    while pivots < opts.max_pivots:
        load_column(MsT, d, entering, cols[cur], lane, width)
        cuda.syncthreads()  # noqa: F821
        cur = warp_ftran((etas, eta_row, eta_inv, count, binv, folded, tmp), cols, cur, lane, width)
        col = cols[cur]
        r, colmax = warp_ratio_test(col, x, ratio, basis, sign, z0_index, (sigma, pivot_tol, opts.tie_tol),
                                    (etas, eta_row, eta_inv, count, binv, folded, tmp, nz), (rows, part, pick),
                                    lane, width)
        if pivots > 0 and (r < 0 or x[r] > zero):  # every thread reads the same shared values
            r = DEGENERATE(basis, x, col, z0, zero, pivot_tol * colmax, r)  # noqa: F821
        if r == -2:
            status = 0
            break
        if r < 0:
            status = 1
            break
        if count == etas.shape[0]:  # the eta file is full: thread 0 folds it into binv
            if lane == 0:
                FOLD(etas, eta_row, eta_inv, count, binv, folded, rows[0])  # noqa: F821
            cuda.syncthreads()  # noqa: F821
            count, folded = 0, True
        leaving = warp_pivot(col, x, basis, r, entering, (etas, eta_row, eta_inv, count), lane, width)
        count += 1
        pivots += 1
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
        sign = 1.0
        z0_index = z0
    cuda.syncthreads()  # noqa: F821
    return status, pivots


_HELPERS = (reduce_lanes, load_column, warp_ftran, warp_ratio_test, warp_pivot, warp_lemke)


def device_names():
    """Every name the kernels use: ``cuda``, the helpers as device functions, the CPU kernels they call."""
    cuda = numba_cuda()
    from numba import float64, int64

    from reach.kernels.lcp import LemkeWork

    names = {"cuda": cuda, "math": math, "float64": float64, "int64": int64, "LemkeWork": LemkeWork,
             "RATIO_TEST": device_function(ratio_test), "FOLD": device_function(fold_etas),
             "DEGENERATE": device_function(degenerate_exit),
             "REVISED": device_function(revised_lemke_kernel)}
    for function in _HELPERS:
        clone = types.FunctionType(function.__code__, names, function.__name__, function.__defaults__)
        names[function.__name__] = cuda.jit(device=True)(clone)
    return names


def lemke_kernel_source(layout, n):
    """The source of a batch kernel, ``lemke(MsT, Q, D, opts, status, pivots, X, B, BINV)``, for LCPs of size ``n``.

    ``layout`` ``"warp"``: block ``b`` (:data:`WARP` threads) solves LCP ``b``
    (``Q[b]``, covering vector ``D[b]``) with :func:`warp_lemke`, every array in
    shared memory (35 KB at n = 44); ``"warp-lean"``: the same, but the folded
    inverse, which a solve needs only after its eta file fills, is block ``b``'s
    ``BINV[b]`` in global memory, so twice as many blocks fit on a
    multiprocessor, and each block takes LCPs ``b``, ``b + blocks``, ...;
    ``"thread"``: thread ``s`` solves LCP ``s`` with the CPU's kernel in local
    arrays, as the sampling kernel does (``"thread-capped"``: the same source).  All write the status and pivots, the
    final basic values ``X[b]`` and basis ``B[b]``.
    """
    head = "def lemke(MsT, Q, D, opts, status, pivots, X, B, BINV):\n"
    if layout not in LAYOUTS:
        raise ValueError(f"no Lemke layout {layout!r}: one of {', '.join(LAYOUTS)}")
    if layout.startswith("warp") and shared_bytes(layout, n) > STATIC_SHARED:
        raise ValueError(f"a {layout} block at n = {n} needs {shared_bytes(layout, n):,} bytes of shared memory; "
                         f"a kernel's static arrays may take {STATIC_SHARED:,}")
    if layout in ("warp", "warp-lean"):
        arrays = [("etas", (n, n), "float64"), ("eta_row", n, "int64"), ("eta_inv", n, "float64"),
                  ("binv", (n, n), "float64"), ("cols", (2, n), "float64"), ("x", n, "float64"),
                  ("ratio", n, "float64"), ("basis", n, "int64"), ("tmp", n, "float64"), ("nz", n, "int64"),
                  ("rows", (2, n), "float64"), ("part", WARP, "float64"), ("pick", 1, "int64")]
        body = "".join(f"    {name} = cuda.shared.array({shape!r}, {dtype})\n" for name, shape, dtype in arrays
                       if layout == "warp" or name != "binv")
        lean = layout == "warp-lean"
        return (head + "    b = cuda.blockIdx.x\n    lane = cuda.threadIdx.x\n" + body +
                ("    binv = BINV[b]\n" if lean else "") + ("    while b < Q.shape[0]:\n" if lean else
                                                             "    if b < Q.shape[0]:\n") +
                f"        st, pv = warp_lemke(MsT, Q[b], D[b], opts, ({', '.join(a[0] for a in arrays)}), lane)\n"
                f"        for i in range(lane, {n}, cuda.blockDim.x):\n"
                "            X[b, i] = x[i]\n            B[b, i] = basis[i]\n"
                "        if lane == 0:\n            status[b] = st\n            pivots[b] = pv\n" +
                ("        b += cuda.gridDim.x\n        cuda.syncthreads()\n" if lean else ""))
    local = ", ".join(f"cuda.local.array({shape!r}, {dtype})" for shape, dtype in (
        ((1, 1), "float64"), (n, "int64"), (n, "float64"), (n, "float64"), ((n, n), "float64"), (n, "int64"),
        (n, "float64"), (n, "float64"), (n, "float64"), (n, "float64"), (n, "float64"), (n, "float64"),
        (n, "int64"), ((n, n), "float64"), (2, "int64")))
    return (head + "    s = cuda.grid(1)\n    if s < Q.shape[0]:\n"
            f"        work = LemkeWork({local})\n        z = cuda.local.array({n}, float64)\n"
            "        st, pv = REVISED(MsT, Q[s], D[s], opts, work, z)\n"
            f"        for i in range({n}):\n            X[s, i] = work.x[i]\n            B[s, i] = work.basis[i]\n"
            "        status[s] = st\n        pivots[s] = pv\n")


def _kernel(layout, n, cache=True):
    if (layout, n, cache) not in _BUILT:
        import numba

        namespace, on_disk = kernel_module(("lemke", layout, n), lemke_kernel_source(layout, n), device_names())
        options = {} if numba.config.ENABLE_CUDASIM else {"lto": False}
        if layout == "thread-capped" and options:
            options["max_registers"] = REGISTER_CAP
        _BUILT[layout, n, cache] = numba_cuda().jit(namespace["lemke"], cache=on_disk and cache, **options)
    return _BUILT[layout, n, cache]


def shared_bytes(layout, n):
    """Shared memory a block of ``layout`` (``"warp"`` or ``"warp-lean"``) takes at LCP size ``n``."""
    return 8 * (n * n * (2 if layout == "warp" else 1) + 11 * n + WARP + 1)


def lean_blocks(n):
    """Blocks of the ``"warp-lean"`` layout at LCP size ``n``: as many as a multiprocessor holds at once
    (by shared memory: 228 KB, 1 KB of it reserved a block; at most 32 blocks), on each multiprocessor.

    No more: a block takes its LCPs one after another, so a block that waited
    for room would finish a whole block's work after the others.
    """
    shared = shared_bytes("warp-lean", n)
    try:
        processors = int(numba_cuda().get_current_device().MULTIPROCESSOR_COUNT)
    except Exception:  # the simulator's device has no such attribute
        processors = 1
    return processors * max(1, min(32, 228 * 1024 // (shared + 1024)))


def warp_lemke_kernel(n):
    """The compiled ``"warp"`` kernel of :func:`lemke_kernel_source` (launch it with :data:`WARP` threads a block;
    cached on disk as the sampling kernel is, :func:`reach.kernels.device.kernel_module`)."""
    return _kernel("warp", n)


def thread_lemke_kernel(n):
    """The compiled ``"thread"`` kernel of :func:`lemke_kernel_source` (one thread an LCP)."""
    return _kernel("thread", n)


def run_lemke(layout, MsT, Q, D, opts, threads=64, seconds=None):
    """Solve the LCPs ``(Ms, Q[k])``, covering vectors ``D[k]``, on the GPU in ``layout`` (one of
    :data:`LAYOUTS`, :func:`lemke_kernel_source`); host arrays
    ``(status, pivots, X, B)`` (compiled without fused multiply-adds, as the sampling kernel).

    ``seconds``, a dict, gains ``"kernel"``: the launch's wall seconds to its end, transfers excluded.
    """
    cuda = numba_cuda()
    K, n = Q.shape
    out = [cuda.device_array(K, np.int64), cuda.device_array(K, np.int64), cuda.device_array((K, n), np.float64),
           cuda.device_array((K, n), np.int64)]
    args = [cuda.to_device(np.ascontiguousarray(a)) for a in (MsT, Q, D)]
    blocks = min(K, lean_blocks(n))
    binv = cuda.device_array((blocks, n, n) if layout == "warp-lean" else (1, 1, 1), np.float64)
    grid = {"warp": (K, WARP), "warp-lean": (blocks, WARP)}.get(layout, ((K + threads - 1) // threads, threads))
    with without_contraction():
        kernel = _kernel(layout, n)
        cuda.synchronize()
        t = time.perf_counter()
        try:
            kernel[grid](*args, opts, *out, binv)
        except (pickle.PicklingError, RuntimeError, OSError) as exc:  # maybe Numba's disk cache: once without it
            warnings.warn(f"the {layout} Lemke kernel failed with Numba's disk cache ({exc}); compiling it again "
                          "without", RuntimeWarning, stacklevel=2)
            kernel = _BUILT[layout, n, True] = _kernel(layout, n, cache=False)  # later calls too
            kernel[grid](*args, opts, *out, binv)
        cuda.synchronize()
    if seconds is not None:
        seconds["kernel"] = time.perf_counter() - t
    return tuple(a.copy_to_host() for a in out)


@kernel
def cpu_lemke_batch(MsT, Q, D, opts, work, z, status, pivots, X, B):
    """The CPU's :func:`reach.kernels.revised.revised_lemke_kernel` on each LCP ``(Ms, Q[k])``, covering vector
    ``D[k]``: the outputs of :func:`run_lemke`, and the one-core baseline of ``reach bench --gpu``."""
    n = Q.shape[1]
    for k in range(Q.shape[0]):
        status[k], pivots[k] = revised_lemke_kernel(MsT, Q[k], D[k], opts, work, z)
        for i in range(n):
            X[k, i] = work.x[i]
            B[k, i] = work.basis[i]
