"""Where the GPU sampling kernel's time goes: variants that leave one stage out, timed beside the kernel as built.

Issue 40's direct port ran the rocking block's first choice at 53.5 M samples
a second on an H200, and ``reach``'s kernel at 16-18 M (docs/performance.md).
A GPU without hardware counters places time inside a kernel only by timing
variants that leave one stage out and taking differences.  Each variant here
swaps one kernel of the sample's path for a cheaper stand-in, before the
device functions are built from the CPU kernels' source
(:func:`reach.kernels.device.device_function` looks their names up then), so
the library is untouched:

==================  ===============================================================
``built``           the kernel as built, a thread a sample (what ``reach run --gpu`` runs
                    below 20 LCP rows)
``host-caps``       the caps drawn on the host and sent, instead of drawn per thread
``no-paths``        no stored path written (``routh._record`` does nothing)
``no-refinement``   no refinement of Lemke's basic values (``revised_refine``)
``no-certificate``  every solution taken as certified (Theorem 7 and the cone)
``no-checks``       neither the certificate nor the residual (``w = M z + q``)
``no-fallback``     no basis enumeration after the covering vectors fail (``first_solution_kernel``
                    finds nothing), and the thread's frame without its arrays: what a kernel
                    would be that leaves those few steps to the CPU (issue 40 allows it)
``fused``           the fused build (``REACH_GPU_FUSED=1``: LTO, fused multiply-adds)
``queue``           not a stage left out: the queue schedule (``REACH_GPU_SCHEDULE=queue``), each
                    thread taking samples from a counter and running them a step at a time
==================  ===============================================================

A variant that leaves a check out may change a sample's path (a retry, a
failed step), so each timing comes with its LCP solves a sample and its kept
share: compare seconds per LCP where those moved.  Each variant's kernel file is
named for the variant too (:func:`reach.kernels.device.kernel_file` hashes the
kernel modules' digest, given the variant's name here), so Numba caches each
on disk apart, and the compiles run in parallel processes:

    PYTHONPATH=. python bench/kernel_bisect.py compile rocking-block no-paths   # one a process, at once
    PYTHONPATH=. python bench/kernel_bisect.py time --json bisect.json          # all, one process, the GPU alone
    PYTHONPATH=. python bench/kernel_bisect.py static rocking-block             # here, no GPU: ptxas's report

``static`` compiles each variant to PTX for a Hopper GPU and reports what
``ptxas -v`` says a thread holds (registers, stack frame, spills) and the
machine code's size, as ``bench/kernel_resources.py`` does for the built kernel.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from reach.kernels import device, lcp, routh, verify
from reach.kernels.cache import kernels_digest
from reach.kernels.jit import kernel

CASES = {"rocking-block": 2**20, "quadruped": 2**18}  # samples a timed launch
VARIANTS = ("built", "host-caps", "no-paths", "no-refinement", "no-certificate", "no-checks", "no-fallback", "fused",
            "queue")
CHOICES = ("first", "random")


@kernel
def _no_record(out, s, v):
    """``routh._record`` that stores nothing."""
    return


@kernel
def _no_refine(MsT, qs, d, work):
    """``revised_refine`` that leaves the basic values as the path left them."""
    return


@kernel
def _always_certified(W, q, z, w, m, nb_, opts):
    """``certified`` that accepts every solution."""
    return True


@kernel
def _no_residual(MT, q, z, w, row_scale, col_scale):
    """``clip_and_measure`` that neither fills ``w`` nor measures: a residual of 0."""
    return 0.0


@kernel
def _no_enumeration(lcp_, q, qs, offset, verify_tol, work):
    """``first_solution_kernel`` that finds no solution."""
    return False, 0.0


PATCHES = {"no-paths": ((routh, "_record", _no_record),),
           "no-refinement": ((lcp, "revised_refine", _no_refine),),
           "no-certificate": ((routh, "certified", _always_certified),),
           "no-checks": ((routh, "certified", _always_certified), (verify, "clip_and_measure", _no_residual)),
           "no-fallback": ((routh, "first_solution_kernel", _no_enumeration), (device, "FALLBACK_MAX_N", 0))}
_ORIGINAL = {(module.__name__, name): getattr(module, name) for patches in PATCHES.values()
             for module, name, _ in patches}
_DIGEST = kernels_digest


def use(variant):
    """Make the next kernels built in this process ``variant``'s (every other variant's patches undone)."""
    for (module, name), original in _ORIGINAL.items():
        setattr(sys.modules[module], name, original)
    for module, name, replacement in PATCHES.get(variant, ()):
        setattr(module, name, replacement)
    device.FUSED = variant == "fused"
    device.SCHEDULE = "queue" if variant == "queue" else "thread"
    device.kernels_digest = (lambda: _DIGEST()) if variant == "built" else (lambda: f"{_DIGEST()} {variant}")
    device.forget_kernels()  # device functions are built again, from the names as they are now


def _plan(label, choice, samples):
    from reach.sampling.engine import Plan
    from reach.sampling.settings import SamplingSettings
    from reach.tools.bench_gpu import problem_case

    problem, h, N = problem_case(label)
    return Plan(problem, SamplingSettings(samples, h, N, strategy="uniform", solution_choice=choice)), N


def _caps(plan, count):
    """Host caps for ``host-caps``: the samples' own, drawn as the device would draw them."""
    from reach.sampling.caps import draw_caps

    s = plan.settings
    return draw_caps(plan.problem.m, s.max_steps, 0, count, seed=s.seed, sequence=s.sequence, caps=s.caps)


def launch(gpu, plan, N, variant, count, P=None):
    """One launch of ``count`` samples; (the kernel's seconds, the output)."""
    from reach.sampling.gpu import DEVICE_SECONDS

    before = DEVICE_SECONDS["kernel"]
    out = gpu.run(plan, P if variant == "host-caps" else None, 0, 0, N + 2, count=count)
    return DEVICE_SECONDS["kernel"] - before, out


def compile_one(label, variant):
    """Compile ``variant``'s kernel for ``label`` (cached on disk)."""
    from reach.sampling.gpu import Gpu

    use(variant)
    plan, N = _plan(label, "first", 64)
    t = time.perf_counter()
    launch(Gpu(), plan, N, variant, 64, _caps(plan, 64))
    print(f"{label}: {variant} compiled in {time.perf_counter() - t:.1f} s", flush=True)


def time_all(labels, repeats=3, samples=None, variants=VARIANTS):
    """Every variant of each case, each choice: kernel samples a second (median of ``repeats`` launches of
    ``samples``, else the case's :data:`CASES` count), LCP solves a sample, kept share."""
    from reach.sampling.gpu import Gpu

    rows = []
    for label in labels:
        count = samples or CASES[label]
        for variant in variants:
            use(variant)
            gpu = Gpu()
            for choice in CHOICES:
                plan, N = _plan(label, choice, count)
                P = _caps(plan, count) if variant == "host-caps" else None
                t = time.perf_counter()
                launch(gpu, plan, N, variant, 64, P[:64] if P is not None else None)  # loads (or compiles) it
                load_s = time.perf_counter() - t
                seconds, out = zip(*[launch(gpu, plan, N, variant, count, P) for _ in range(repeats)])
                kernel_s = float(np.median(seconds))
                row = {"case": label, "variant": variant, "choice": choice, "samples": count, "load_s": load_s,
                       "kernel_s": kernel_s, "samples_per_s": count / kernel_s,
                       "lcps_per_sample": float(out[-1].lcp_solves.mean()), "kept": float(out[-1].kept.mean())}
                row["lcps_per_s"] = row["samples_per_s"] * row["lcps_per_sample"]
                rows.append(row)
                print(f"  {label} {variant:15s} {choice:6s} {row['samples_per_s']:>13,.0f} samples/s "
                      f"{row['lcps_per_sample']:.3f} LCPs a sample, kept {row['kept']:.4f}", flush=True)
    return rows


def format_rows(rows):
    """A Markdown table: each variant against ``built`` of the same case and choice."""
    base = {(r["case"], r["choice"]): r for r in rows if r["variant"] == "built"}
    lines = ["| case | choice | variant | kernel samples/s | ÷ built | LCPs a sample | LCPs/s ÷ built | kept |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        b = base.get((r["case"], r["choice"]))
        ratio = f"{r['samples_per_s'] / b['samples_per_s']:.2f}×" if b else ""
        per_lcp = f"{r['lcps_per_s'] / b['lcps_per_s']:.2f}×" if b else ""
        lines.append(f"| {r['case']} | {r['choice']} | {r['variant']} | {r['samples_per_s']:,.0f} | {ratio} | "
                     f"{r['lcps_per_sample']:.3f} | {per_lcp} | {r['kept']:.4f} |")
    return "\n".join(lines)


def static(labels, variants=VARIANTS):
    """Each variant's PTX for cc 9.0 through ``ptxas -v``, here without a GPU (``bench/kernel_resources.py``)."""
    import numba

    sys.path.insert(0, str(Path(__file__).parent))
    from kernel_resources import resources

    from reach.kernels.drawn import drawn_caps
    from reach.sampling.gpu import takes_tableau

    cuda = device.numba_cuda()
    sys.modules[cuda.dispatcher.__name__].get_current_device = lambda: type("Hopper", (), {
        "compute_capability": (9, 0)})()
    print(f"{'case':15s} {'variant':15s} {'registers':>9s} {'stack B':>8s} {'spill st':>8s} {'spill ld':>8s} "
          f"{'SASS B':>8s}")
    for label in labels:
        for variant in variants:
            use(variant)
            plan, N = _plan(label, "first", 64)
            p = plan.problem
            out = device.output_on(64, p.nv, 4, N + 2, np.zeros)
            drawn = variant != "host-caps"
            caps = drawn_caps(p.m, N, seed=3) if drawn else np.zeros((64, N, p.m))
            args = (plan.data, plan.options, caps, 0, 64, out) if drawn else (plan.data, plan.options, caps, 0, out)
            if device.SCHEDULE == "queue":
                args = (*args, np.zeros(1, np.int64))
            kernel_fn, _ = device.kernel_function(*plan.flags, p.lcp_size, p.m, p.nv, N if drawn else None,
                                                  takes_tableau(plan.options, p.lcp_size),
                                                  device.jit_options(p.lcp_size), device.SCHEDULE)
            types = tuple(numba.typeof(a) for a in args)
            if variant == "fused":
                ptx = cuda.compile_ptx(kernel_fn, types, cc=(9, 0))[0]
            else:
                with device.without_contraction():
                    ptx = cuda.compile_ptx(kernel_fn, types, cc=(9, 0))[0]
            r = resources(ptx)
            print(f"{label:15s} {variant:15s} {r['registers']:9d} {r['stack_bytes']:8d} {r['spill_stores']:8d} "
                  f"{r['spill_loads']:8d} {r['code_bytes']:8d}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("compile", "time", "static"))
    parser.add_argument("case", nargs="?", choices=tuple(CASES))
    parser.add_argument("variant", nargs="?", choices=VARIANTS, help="compile: the variant; static: only this one")
    parser.add_argument("--json", help="time: write the rows here")
    parser.add_argument("--samples", type=int, help="time: samples a launch, every case (default: CASES)")
    parser.add_argument("--repeats", type=int, default=3, help="time: launches timed, each variant and choice")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=VARIANTS, help="time: these alone")
    args = parser.parse_args()
    labels = [args.case] if args.case else list(CASES)
    if args.mode == "compile":
        compile_one(args.case, args.variant)
    elif args.mode == "static":
        static(labels, [args.variant] if args.variant else VARIANTS)
    else:
        rows = time_all(labels, args.repeats, args.samples, args.variants)
        print(format_rows(rows))
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
