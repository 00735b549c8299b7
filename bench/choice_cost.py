"""Random against first choice on one CPU core: whether the GPU's gap between them is the algorithm's.

On an H200 the rocking block's kernel ran random choice at 0.73x first choice's samples a second (23.0 M
against 31.6 M, ``bench/gpu-h200-d8458f0.log``).  This times the same uniform sets on one core, alternating,
CPU seconds (the sets' own ``cpu_seconds``), medians of ``--repeats`` rounds, with each choice's LCP solves a
sample.  If the CPU shows the same ratio, the gap is in the work (the Lemke paths random covering vectors
take), not in the GPU (warps whose threads pivot apart).

    PYTHONPATH=.:tests python bench/choice_cost.py rocking-block --samples 131072 --repeats 5
"""

import argparse
import statistics

from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", nargs="?", default="rocking-block")
    parser.add_argument("--samples", type=int, default=2**17)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    problem, h, N = problem_case(args.case)
    kw = dict(completeness=False, strategy="uniform", keep_paths=0, n_jobs=1)
    choices = ("first", "random")
    for c in choices:  # load the kernels outside the timing
        sample_post_impact_set(problem, 4096, h, N, solution_choice=c, **kw)
    cpu, solves = {c: [] for c in choices}, {}
    for r in range(args.repeats):
        for c in choices:
            result = sample_post_impact_set(problem, args.samples, h, N, solution_choice=c, **kw)
            cpu[c].append(result.metadata["cpu_seconds"])
            solves[c] = float(result.lcp_solves.mean())
        print(f"round {r}: " + ", ".join(f"{c} {cpu[c][-1]:.3f} s" for c in choices), flush=True)
    ratio = statistics.median(a / b for a, b in zip(cpu["random"], cpu["first"]))
    print(f"{args.case}, {args.samples:,} uniform samples, one core, CPU s (median of {args.repeats}): "
          + ", ".join(f"{c} {statistics.median(cpu[c]):.3f} ({solves[c]:.3f} LCPs a sample)" for c in choices)
          + f"; random's speed {1 / ratio:.2f}x first's")


if __name__ == "__main__":
    main()
