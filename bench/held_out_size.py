"""How large a held-out search must be to see what a small set misses: the compass gait's first round.

    PYTHONPATH=. python3 bench/held_out_size.py [NAME] [--seeds 0,1,...] [--pieces 2] [--mins 2048,8192]

For each seed, `reach run NAME`'s default set (sample_to_coverage, two workers) is built
twice: without its held-out outcomes joined (the set its completeness estimate is of) and as
saved. Both are measured against a reference of PIECES x 2^20 samples of every strategy
(reach.tools.coverage.reference_cells, as bench/coverage_target.py builds it: share of the reference's cells farther than
2 % of |vn0|). The set's estimate of its share of cells missed (cells_missed) is then
computed again from held-out searches of 2^11 (the default), 2^13, 2^15 and 2^17 samples.
With --mins, the default run is repeated with reach.sets.completeness.HELD_OUT_MIN set to
each value (a candidate stop rule, not the library's): its budget, whether the frontier ran,
its estimate, its measured gap and its seconds.
"""
import json
import sys
import time
import warnings

import numpy as np

import reach.sets.completeness as completeness
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import CELL, cell_counts, cells_missed, closing_speed, held_out_settings
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case
from reach.tools.coverage import reference_cells

warnings.simplefilter("ignore")


def option(args, flag, default):
    if flag not in args:
        return default
    at = args.index(flag)
    value = args[at + 1]
    del args[at:at + 2]
    return value


args = sys.argv[1:]
seeds = [int(s) for s in option(args, "--seeds", "0,1,2,3,4,5,6,7,8,9").split(",")]
pieces = int(option(args, "--pieces", "2"))
mins = [int(s) for s in option(args, "--mins", "").split(",") if s]
name = args[0] if args else "compass-gait"
p, h, N = problem_case(name)
speed = closing_speed(p)
t = time.perf_counter()
cells = reference_cells(p, h, N, pieces)
print(f"# {name}: reference of {pieces * 2**20:,d} samples, {len(cells):,d} cells, {time.perf_counter() - t:.0f} s",
      flush=True)


def measured(result):
    return round(float(np.mean(result.distance_to(cells) > 0.02 * speed)), 4)


for seed in seeds:
    pre = sample_to_coverage(p, h, N, n_jobs=2, seed=seed, with_held_out=False)
    row = {"seed": seed, "budget": int(pre.settings.n_samples), "set_measured": measured(pre),
           "estimate": round(pre.metadata["completeness"]["cells_missed"], 4),
           "saved_measured": measured(sample_to_coverage(p, h, N, n_jobs=2, seed=seed))}
    for budget in (2**11, 2**13, 2**15, 2**17):  # the set's estimate from held-out searches of other sizes
        held = run_sampling(p, held_out_settings(pre.settings, budget), warn=False, n_jobs=2)
        first, counts = cell_counts(p, held.velocities, CELL * speed)
        far = np.atleast_1d(pre.distance_to(held.velocities[first])) > 0.02 * speed
        row[f"estimate_held_{budget}"] = round(cells_missed(far, counts)["cells_missed"], 4)
    for low in mins:  # a candidate rule: a larger least held-out search
        default, completeness.HELD_OUT_MIN = completeness.HELD_OUT_MIN, low
        try:
            t = time.perf_counter()
            saved = sample_to_coverage(p, h, N, n_jobs=2, seed=seed)
            cov = saved.metadata["coverage"]
            row[f"min_{low}"] = {"budget": cov["budget"], "held_out": cov["held_out_budget"],
                                 "frontier": cov["frontier_budget"],
                                 "estimate": round(saved.metadata["completeness"]["cells_missed"], 4),
                                 "saved_measured": measured(saved), "seconds": round(time.perf_counter() - t, 2)}
        finally:
            completeness.HELD_OUT_MIN = default
    print(json.dumps(row), flush=True)
