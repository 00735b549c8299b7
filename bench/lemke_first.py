"""Lemke's method alone on the quadruped's recorded LCPs with first choice's covering vector (ones), beside random's.

``reach bench --gpu`` times Lemke alone on recorded LCPs (:func:`reach.tools.bench_gpu.lemke_layouts`) with
the covering vectors random choice draws: its best layout bounds random choice's sampler.  First choice
covers every LCP with ones, so its paths differ.  This runs the same recorded LCPs (the same states, recorded
along random-choice samples) with ones in place of each covering vector, in every layout, beside the random
ones, in one process: the bound for first choice.

    PYTHONPATH=. python bench/lemke_first.py --case quadruped --json lemke-first.json
"""

import argparse
import json

import numpy as np

import reach.tools.bench_gpu as bench_gpu

RECORDED = bench_gpu.recorded_lcps


def ones(label, count):
    """:func:`reach.tools.bench_gpu.recorded_lcps` with each covering vector replaced by ones."""
    lcp, Q, D, options = RECORDED(label, count)
    return lcp, Q, np.ones_like(D), options


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs="+", default=["quadruped"])
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = {}
    for label in args.case:
        bench_gpu.recorded_lcps = RECORDED
        rows[f"{label} random"] = bench_gpu.lemke_layouts(label)
        bench_gpu.recorded_lcps = ones
        rows[f"{label} first"] = bench_gpu.lemke_layouts(label)
    bench_gpu.recorded_lcps = RECORDED
    print(bench_gpu.format_layouts(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
