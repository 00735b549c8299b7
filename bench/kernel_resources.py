"""What a thread of each GPU sampling kernel costs, measured without a GPU: registers, stack frame, spills.

    PYTHONPATH=. python bench/kernel_resources.py [case ...] [--choice random|first] [--fused] [--lemke]

For each case of ``reach bench --gpu`` (rocking-block, disk-stack, quadruped), the kernel whose threads
draw their own caps is compiled to PTX for a Hopper GPU (cc 9.0) as ``reach.sampling.gpu.Gpu`` compiles it
(``without_contraction``, unless ``--fused``), then assembled by the CUDA toolkit's ``ptxas -v -arch=sm_90``,
which reports what each thread holds; ``readelf`` gives the machine code's size.  With ``--lemke``, Lemke's
batch kernels of ``reach.kernels.warp`` instead, one per layout (a thread or a warp an LCP), with their
shared memory a block.  A thread's stack frame lives in local memory, so it is the figure
that bounds how many threads' frames the caches keep.  (``--fused`` only adds contraction: the LTO build
links through nvJitLink, which this script does not run.)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np


def kernel_ptx(label, choice, fused=False):
    """PTX of ``label``'s sampling kernel (caps drawn on the device), for cc 9.0."""
    from reach.kernels import device
    from reach.kernels.drawn import drawn_caps
    from reach.sampling.engine import Plan
    from reach.sampling.gpu import takes_tableau
    from reach.sampling.settings import SamplingSettings
    from reach.tools.bench_gpu import problem_case

    cuda = device.numba_cuda()
    # device functions compile for the current device's compute capability; this machine has no device
    sys.modules[cuda.dispatcher.__name__].get_current_device = lambda: type("Hopper", (), {
        "compute_capability": (9, 0)})()
    problem, h, N = problem_case(label)
    plan = Plan(problem, SamplingSettings(64, h, N, solution_choice=choice))
    out = device.output_on(64, problem.nv, 4, N + 2, np.zeros)
    args = (plan.data, plan.options, drawn_caps(problem.m, N, seed=3), 0, 64, out)
    tableau = takes_tableau(plan.options, problem.lcp_size)
    kernel, _ = device.kernel_function(*plan.flags, problem.lcp_size, problem.m, problem.nv, N, tableau)
    types = tuple(numba.typeof(a) for a in args)
    if fused:
        return cuda.compile_ptx(kernel, types, cc=(9, 0))[0], problem.lcp_size
    with device.without_contraction():
        return cuda.compile_ptx(kernel, types, cc=(9, 0))[0], problem.lcp_size


def lemke_ptx(layout, n, fused=False):
    """PTX of the Lemke batch kernel of ``layout`` (reach.kernels.warp) at LCP size ``n``, for cc 9.0."""
    from reach.kernels import device, warp
    from reach.kernels.lcp import DEFAULT_OPTIONS

    cuda = device.numba_cuda()
    sys.modules[cuda.dispatcher.__name__].get_current_device = lambda: type("Hopper", (), {
        "compute_capability": (9, 0)})()
    names = warp.device_names()
    exec(compile(warp.lemke_kernel_source(layout, n), f"<{layout} Lemke>", "exec"), names)
    K = 4
    args = (np.zeros((n, n)), np.zeros((K, n)), np.zeros((K, n)), DEFAULT_OPTIONS, np.zeros(K, np.int64),
            np.zeros(K, np.int64), np.zeros((K, n)), np.zeros((K, n), np.int64), np.zeros((1, 1, 1)))
    types = tuple(numba.typeof(a) for a in args)
    if fused:
        return cuda.compile_ptx(names["lemke"], types, cc=(9, 0))[0]
    with device.without_contraction():
        return cuda.compile_ptx(names["lemke"], types, cc=(9, 0))[0]


def resources(ptx):
    """``ptxas -v``'s report of the kernel's entry: registers, stack frame, spill stores and loads (bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.ptx"
        path.write_text(ptx)
        run = subprocess.run(["ptxas", "-v", "-arch=sm_90", str(path), "-o", str(Path(tmp) / "k.cubin")],
                             capture_output=True, text=True, check=True)
        code = code_bytes(Path(tmp) / "k.cubin")
    report = run.stderr
    entry = report[report.rfind("Compiling entry function"):]
    number = lambda pattern: int(re.search(pattern, entry).group(1))  # noqa: E731
    shared = re.search(r"(\d+) bytes smem", entry)
    return {"registers": number(r"Used (\d+) registers"), "stack_bytes": number(r"(\d+) bytes stack frame"),
            "shared_bytes": int(shared.group(1)) if shared else 0,
            "spill_stores": number(r"(\d+) bytes spill stores"), "spill_loads": number(r"(\d+) bytes spill loads"),
            "code_bytes": code}


def code_bytes(cubin):
    """Bytes of machine code (SASS, 16 a Hopper instruction) in the cubin's ``.text`` sections (``readelf -S``); -1 without readelf."""
    try:
        listing = subprocess.run(["readelf", "-S", "-W", str(cubin)], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return -1
    sizes = [int(line.split()[5], 16) for line in listing.replace("[ ", "[").splitlines()
             if " .text." in line and "PROGBITS" in line]
    return sum(sizes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["rocking-block", "disk-stack", "quadruped"])
    parser.add_argument("--choice", default="random", choices=["random", "first"])
    parser.add_argument("--fused", action="store_true", help="let NVVM contract multiply-adds")
    parser.add_argument("--lemke", action="store_true",
                        help="Lemke's batch kernels instead, each layout of reach.kernels.warp, at each case's n")
    args = parser.parse_args(argv)
    print(f"# numba {numba.__version__}, {subprocess.run(['ptxas', '--version'], capture_output=True, text=True).stdout.splitlines()[-1]}")
    print(f"# choice {args.choice}, {'fused' if args.fused else 'strict (no contraction, no LTO)'}")
    if args.lemke:
        from reach.kernels.warp import LAYOUTS
        from reach.tools.bench_gpu import problem_case

        print(f"{'case':15s} {'n':>3s} {'layout':10s} {'registers':>9s} {'stack B':>8s} {'shared B':>8s} {'spill st':>8s} {'SASS B':>8s}")
        for label in args.cases:
            n = problem_case(label)[0].lcp_size
            for layout in LAYOUTS:
                r = resources(lemke_ptx(layout, n, args.fused))
                print(f"{label:15s} {n:3d} {layout:10s} {r['registers']:9d} {r['stack_bytes']:8d} "
                      f"{r['shared_bytes']:8d} {r['spill_stores']:8d} {r['code_bytes']:8d}", flush=True)
        return
    print(f"{'case':15s} {'n':>3s} {'registers':>9s} {'stack B':>8s} {'spill st':>8s} {'spill ld':>8s} {'PTX lines':>9s} {'SASS B':>8s} {'compile s':>9s}")
    for label in args.cases:
        t = time.perf_counter()
        ptx, n = kernel_ptx(label, args.choice, args.fused)
        r = resources(ptx)
        print(f"{label:15s} {n:3d} {r['registers']:9d} {r['stack_bytes']:8d} {r['spill_stores']:8d} "
              f"{r['spill_loads']:8d} {ptx.count(chr(10)):9d} {r['code_bytes']:8d} {time.perf_counter() - t:9.0f}", flush=True)


if __name__ == "__main__":
    main()
