"""Register caps for the GPU's sampling kernel: samples a second and bit-identity at each cap, each case.

``reach bench --gpu`` (2026-11-27, one H200, the strict build) measured the
disk stack's and the quadruped's kernels 1.27x faster capped at 96 registers
than at the 255 they take uncapped (more threads a multiprocessor, more
spills).  This sweeps the cap for all three cases of ``reach bench --gpu``:

* ``compile LABEL CAP {drawn,host}``: compile (and cache on disk) one case's kernel
  at one cap (0: none), caps drawn on the device or brought from the host;
* ``sweep``: for each case and cap, a uniform random-choice run of ``--samples``
  (kernel and wall samples a second; registers and local bytes a thread), and
  whether its kept flags, statuses, LCP counts and velocities are those of the
  uncapped kernel bit for bit; then, at each case's fastest cap, a run of
  ``--large`` samples, its agreement with one CPU core on ``--agree`` samples
  (bit for bit), and issue 40's end-to-end quadruped set at the quadruped's
  fastest cap.  JSON to ``--json``.

    PYTHONPATH=. python bench/register_caps.py compile quadruped 96 drawn
    PYTHONPATH=. python bench/register_caps.py sweep --json caps.json
"""

import argparse
import json
import sys
import time

import numpy as np

from reach import sample_post_impact_set
from reach.kernels import device
from reach.sampling.gpu import DEVICE_SECONDS
from reach.tools.bench_gpu import end_to_end, kernel_resources, problem_case

CASES = ("rocking-block", "disk-stack", "quadruped")
CAPS = (0, 64, 80, 96, 128)
COMMON = dict(completeness=False, solution_choice="random", keep_paths=0, strategy="uniform")
FIELDS = ("kept", "sample_status", "lcp_solves")


def cap_options(cap):
    """numba-cuda's options for a register cap (0: none)."""
    return (("max_registers", cap),) if cap else ()


def compile_one(label, cap, caps_from):
    """One case's kernel at one cap, compiled and cached on disk."""
    from reach.sampling.engine import Plan
    from reach.sampling.gpu import Gpu
    from reach.sampling.settings import SamplingSettings

    problem, h, N = problem_case(label)
    plan = Plan(problem, SamplingSettings(64, h, N, strategy="uniform", solution_choice="random"))
    device.JIT_OPTIONS = cap_options(cap)
    t = time.perf_counter()
    P = np.full((64, N, problem.m), 0.5) if caps_from == "host" else None
    Gpu().run(plan, P, 0, 0, N + 2, count=64)
    print(f"{label}: cap {cap or 'none'}, caps {caps_from}: compiled in {time.perf_counter() - t:.1f} s", flush=True)


def bits(result):
    """A result's flags, counts and velocities, as exact bit patterns."""
    return [getattr(result, f) for f in FIELDS] + [result.all_velocities.view(np.int64)]


def timed(problem, n, h, N, **options):
    """A GPU set of ``n`` samples, its wall seconds and its kernel seconds."""
    before = DEVICE_SECONDS["kernel"]
    result = sample_post_impact_set(problem, n, h, N, backend="cuda", **options)
    return result, result.metadata["wall_seconds"], DEVICE_SECONDS["kernel"] - before


def sweep_case(label, samples, large, agree):
    """The cap sweep of one case (see the module docstring)."""
    problem, h, N = problem_case(label)
    row, reference = {"case": label, "lcp_size": problem.lcp_size, "caps": {}}, None
    for cap in CAPS:
        device.JIT_OPTIONS = cap_options(cap)
        sample_post_impact_set(problem, min(256, samples), h, N, backend="cuda", **COMMON)  # loads the kernel
        result, wall, kernel = timed(problem, samples, h, N, **COMMON)
        got = bits(result)
        reference = got if reference is None else reference
        same = all(np.array_equal(a, b) for a, b in zip(got, reference))
        resources = [v for k, v in kernel_resources(problem.lcp_size).items() if k.endswith(f"{device.JIT_OPTIONS}")
                     or (not cap and not k.endswith(")"))]
        row["caps"][cap] = {"samples_per_s": samples / wall, "kernel_samples_per_s": samples / kernel,
                            "same_as_uncapped": same, "resources": resources}
        print(f"  {label} cap {cap or 'none'}: {samples / kernel:,.0f} kernel samples/s, {samples / wall:,.0f} wall; "
              f"same as uncapped: {same}; {resources}", flush=True)
    best = max(CAPS, key=lambda c: row["caps"][c]["kernel_samples_per_s"])
    device.JIT_OPTIONS = cap_options(best)
    _, wall, kernel = timed(problem, large, h, N, **COMMON)
    cpu = sample_post_impact_set(problem, agree, h, N, n_jobs=1, **COMMON)
    gpu = sample_post_impact_set(problem, agree, h, N, backend="cuda", **COMMON)
    row.update(best_cap=best, large={"samples": large, "samples_per_s": large / wall,
                                     "kernel_samples_per_s": large / kernel},
               agree_samples=agree, cpu_bit_identical=all(np.array_equal(a, b) for a, b in zip(bits(cpu), bits(gpu))))
    print(f"  {label}: fastest cap {best or 'none'}; 2^{large.bit_length() - 1}: {large / wall:,.0f} samples/s wall, "
          f"{large / kernel:,.0f} kernel; the CPU's set bit for bit on {agree}: {row['cpu_bit_identical']}", flush=True)
    return row


def sweep(args):
    from reach.sampling.gpu import Gpu

    report = {"device": Gpu().describe(), "build": "fused" if device.FUSED else "strict", "cases": {}}
    for label in args.cases:
        try:
            report["cases"][label] = sweep_case(label, args.samples, args.large, args.agree)
        except Exception as exc:  # keep the other cases' numbers
            report["cases"][label] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"  {label}: {report['cases'][label]['error']}", flush=True)
    quadruped = report["cases"].get("quadruped", {})
    if not args.end_to_end:
        json.dump(report, open(args.json, "w"), indent=1, default=str)
        return
    device.JIT_OPTIONS = cap_options(quadruped.get("best_cap", 0))
    try:
        report["end-to-end"] = dict(end_to_end(args.end_to_end, repeats=2), cap=quadruped.get("best_cap", 0))
        e2e = report["end-to-end"]
        print(f"end to end at cap {e2e['cap'] or 'none'}: {e2e['median_wall_s']:.2f} s; parts {e2e['parts']}")
    except Exception as exc:
        report["end-to-end"] = {"error": f"{type(exc).__name__}: {exc}"}
    json.dump(report, open(args.json, "w"), indent=1, default=str)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("compile")
    one.add_argument("label", choices=CASES)
    one.add_argument("cap", type=int)
    one.add_argument("caps_from", choices=("drawn", "host"))
    run = sub.add_parser("sweep")
    run.add_argument("--samples", type=int, default=2**20)
    run.add_argument("--large", type=int, default=2**22)
    run.add_argument("--agree", type=int, default=2**14)
    run.add_argument("--end-to-end", type=int, default=2**20, help="samples of the end-to-end set (0: none)")
    run.add_argument("--cases", nargs="+", default=CASES, choices=CASES)
    run.add_argument("--json", default="register-caps.json")
    args = parser.parse_args(argv)
    if args.what == "compile":
        compile_one(args.label, args.cap, args.caps_from)
    else:
        sweep(args)


if __name__ == "__main__":
    main(sys.argv[1:])
