"""A launch in parts, its downloads behind the later parts' kernels, against one launch: on a machine with a GPU.

A uniform set on the GPU (``backend="cuda"``, a thread a sample) of ``--samples`` samples runs with
:data:`reach.sampling.gpu.DOWNLOAD_PART` set to each of ``--parts`` (the first, the whole launch in one part:
the download after the kernel, as before parts), in alternating rounds, ``--repeats`` rounds, random and first
choice.  Reported, medians over the rounds: wall and CPU seconds of the set, the kernel's seconds (launch to the
last part's end) and the download's after it (:data:`reach.sampling.gpu.DEVICE_SECONDS`), and each setting's
samples a second and its speed-up on the one-part run of the same round.  Each run's set is checked against the
one-part run's, bit for bit.

    PYTHONPATH=. python bench/download_parts.py --case rocking-block --samples 4194304 --json parts.json
"""

import argparse
import json
import statistics
import time

import numpy as np

from reach import sample_post_impact_set
from reach.sampling import gpu as gpus
from reach.tools.bench_gpu import problem_case

FIELDS = ("all_velocities", "lcp_solves", "terminated", "kept", "sample_status", "residual")


def timed(problem, n, h, N, part, choice):
    """One uniform GPU set of ``n`` samples in parts of ``part``: the set and what was measured."""
    gpus.DOWNLOAD_PART = part
    before = dict(gpus.DEVICE_SECONDS)
    t, c = time.perf_counter(), time.process_time()
    result = sample_post_impact_set(problem, n, h, N, backend="cuda", strategy="uniform", completeness=False,
                                    solution_choice=choice, keep_paths=0)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    device = {k: gpus.DEVICE_SECONDS[k] - before[k] for k in before}
    return result, {"wall_s": wall, "cpu_s": cpu, "set_wall_s": result.metadata["wall_seconds"],
                    "kernel_s": device["kernel"], "download_s": device["download"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="rocking-block")
    parser.add_argument("--samples", type=int, default=2**22)
    parser.add_argument("--parts", type=int, nargs="+", default=[2**22, 2**20, 2**19, 2**18])
    parser.add_argument("--choices", nargs="+", default=["random", "first"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warm", type=int, default=2**16, help="samples of the untimed run that loads the kernel")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    problem, h, N = problem_case(args.case)
    default = gpus.DOWNLOAD_PART
    report = {"case": args.case, "samples": args.samples, "default_part": default, "choices": {}}
    for choice in args.choices:
        timed(problem, args.warm, h, N, default, choice)  # compile or load the kernel, outside the timing
        runs = {part: [] for part in args.parts}
        same = True
        for r in range(args.repeats):
            reference = None
            for part in args.parts:
                result, run = timed(problem, args.samples, h, N, part, choice)
                if reference is None:
                    reference = result
                else:
                    same &= all(np.array_equal(getattr(reference, f), getattr(result, f)) for f in FIELDS)
                runs[part].append(run)
                print(f"{args.case} {choice} round {r}: parts of {part:,}: {args.samples / run['set_wall_s']:,.0f} "
                      f"samples/s (wall {run['set_wall_s']:.3f} s, kernel {run['kernel_s']:.3f} s, download after "
                      f"it {run['download_s']:.3f} s, CPU {run['cpu_s']:.3f} s)", flush=True)
        one = runs[args.parts[0]]
        rows = {}
        for part, done in runs.items():
            rows[part] = {key: statistics.median(run[key] for run in done) for key in done[0]}
            rows[part]["samples_per_s"] = args.samples / rows[part]["set_wall_s"]
            rows[part]["wall_speedup"] = statistics.median(a["set_wall_s"] / b["set_wall_s"]
                                                                     for a, b in zip(one, done))
            rows[part]["cpu_speedup"] = statistics.median(a["cpu_s"] / b["cpu_s"] for a, b in zip(one, done))
        report["choices"][choice] = {"same_set": bool(same), "rows": rows}
    gpus.DOWNLOAD_PART = default
    print("| case | choice | samples a part | samples/s (wall) | speed-up on one part, wall | on one part, CPU | kernel s | "
          "download after it s | same set |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for choice, found in report["choices"].items():
        for part, row in found["rows"].items():
            print(f"| {args.case} | {choice} | {part:,} | {row['samples_per_s']:,.0f} | "
                  f"{row['wall_speedup']:.2f}× | {row['cpu_speedup']:.2f}× | {row['kernel_s']:.3f} | "
                  f"{row['download_s']:.3f} | {found['same_set']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
