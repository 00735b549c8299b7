"""The frontier's settings (reach.sets.frontier) against a reference of 2^24 samples: share of cells missed.

    PYTHONPATH=. python3 bench/frontier.py NAME LOG2_BUDGET SEEDS REFERENCE SPEC [SPEC ...]

NAME is a scenario or "quadruped"; SEEDS is a comma-separated list; REFERENCE a
reference saved by bench/coverage_target.py --reference (2^24 samples of every
strategy).  Each SPEC is FACTOR,PARENTS,ROUNDS,SIGMA.  For each seed the set of
2^LOG2_BUDGET samples (seed, two workers) and its held-out search are run once;
each frontier is run on them, and the union of set, held-out and frontier
outcomes is measured against the reference (share of its cells farther than
2 % and 5 % of |vn0|, the farthest), with the frontier's wall time.
"""
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")
import reach.sets.frontier as frontier
from reach import sample_post_impact_set
from reach.sets.completeness import closing_speed, held_out_settings
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case
from reach.tools.coverage import gap, load_reference

name, k, seeds, path, *specs = sys.argv[1:]
p, h, N = problem_case(name)
speed = closing_speed(p)
cells, samples = load_reference(p, path)
print(f"{name}: reference of {samples:,d} samples, {len(cells):,d} cells", flush=True)
for seed in map(int, seeds.split(",")):
    result = sample_post_impact_set(p, 2 ** int(k), h, N, n_jobs=2, seed=seed, completeness=False)
    held = run_sampling(p, held_out_settings(result.settings), warn=False, n_jobs=2, keep_caps=True)
    union = result.union(held)
    g = gap(union, cells, speed)
    print(f"seed {seed}, set + held-out: > 2 % {g['outside_2pct']:.4f}, > 5 % {g['outside_5pct']:.5f}, "
          f"farthest {g['max_fraction']:.3f}", flush=True)
    for spec in specs:
        factor, parents, rounds, sigma = spec.split(",")
        frontier.PARENTS, frontier.ROUNDS, frontier.SIGMA = int(parents), int(rounds), float(sigma)
        t = time.perf_counter()
        front = frontier.frontier_search(result, held, int(factor) * held.settings.n_samples, n_jobs=2)
        seconds = time.perf_counter() - t
        g = gap(union.union(front), cells, speed)
        print(f"  factor {factor}, {parents} parents, {rounds} rounds, sigma {sigma}: > 2 % {g['outside_2pct']:.4f}, "
              f"> 5 % {g['outside_5pct']:.5f}, farthest {g['max_fraction']:.3f} ({seconds:.1f} s)", flush=True)
