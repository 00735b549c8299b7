"""The host side of a large set: where a quadruped set's wall and main-process CPU seconds go, beside its kernels.

Builds the packaged quadruped touchdown's default set (directed, with its
held-out estimate and climb) of ``--samples`` samples on ``--jobs`` workers,
twice after a small warm-up run, and prints the median wall seconds, the
main process's CPU seconds (the kernels run in worker processes: this is the
host side, selection, queries and bookkeeping), the main run's wall and its
directed selection, and the estimate's parts (held-out search, its distances
to the set, the climb).

    PYTHONPATH=. python bench/host_side.py --samples 1048576 --jobs 2
"""

import argparse
import json
import time

import numpy as np

from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    problem, h, N = problem_case("quadruped")
    sample_post_impact_set(problem, 4096, h, N, n_jobs=args.jobs)
    runs = []
    for _ in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        r = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.jobs)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        estimate = r.metadata["completeness"]
        runs.append({"wall_s": wall, "main_process_cpu_s": cpu, "main_run_wall_s": r.metadata["wall_seconds"],
                     "selection_s": r.metadata.get("selection_seconds", 0.0),
                     **{f"estimate_{k}_s": v for k, v in estimate.get("seconds", {}).items()},
                     "max_fraction": estimate["max_fraction"], "cells_missed": estimate["cells_missed"]})
    median = {k: float(np.median([run[k] for run in runs])) for k in runs[0]}
    print(json.dumps({"samples": args.samples, "jobs": args.jobs, "median": median, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
