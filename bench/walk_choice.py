"""Walk choice against exact choice on the disk stack: the share of an exact-choice reference each set misses, and the cost.

    PYTHONPATH=. python3 bench/walk_choice.py [REFERENCE_SAMPLES] [BUDGET] [REPEATS]

The reference is exact choice (every distinct v' of a step, drawn uniformly:
the solutions of index -1 included) at REFERENCE_SAMPLES (default 2^18; seed
1000, directed sampling) joined with a quarter as many of the paper's
uniform sampling (seed 1001), thinned to cells of 0.4 % of |vn0|.  Each set is
BUDGET samples (default 2^16, seed 7, two workers, no held-out search) with
solution_choice random, walk and exact; random and walk are timed REPEATS
times (default 3, alternating; medians of wall and CPU time, this process and
its workers).
"""
import json
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")
import scenarios
from reach import sample_post_impact_set
from reach.sets.completeness import CELL, closing_speed, thin_cells
from reach.tools.coverage import gap


def run(p, s, n, seed, choice, **kw):
    """The set, its wall time and its CPU time (this process's and the workers' sampling, as the sampler counts it)."""
    t, c = time.perf_counter(), time.process_time()
    r = sample_post_impact_set(p, n, s.h, s.N, n_jobs=2, seed=seed, completeness=False, solution_choice=choice, **kw)
    return r, time.perf_counter() - t, time.process_time() - c + r.metadata["cpu_seconds"]


s = scenarios.get("disk-stack")
p = s.problem
ref_n = int(sys.argv[1]) if len(sys.argv) > 1 else 2**18
budget = int(sys.argv[2]) if len(sys.argv) > 2 else 2**16
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
speed = closing_speed(p)
run(p, s, 64, 0, "walk")  # compile (or load) every kernel first
run(p, s, 64, 0, "exact")
a, ta, _ = run(p, s, ref_n, 1000, "exact")
b, tb, _ = run(p, s, ref_n // 4, 1001, "exact", strategy="uniform", caps="uniform")
cells = thin_cells(p, np.concatenate([a.velocities, b.velocities]), CELL * speed)
print(f"reference: exact choice, {ref_n} directed + {ref_n // 4} uniform samples, {len(cells)} cells,"
      f" {ta + tb:.0f} s", flush=True)
out = {"reference_samples": ref_n + ref_n // 4, "reference_cells": int(len(cells)), "budget": budget, "sets": {}}
times = {"random": [], "walk": []}
for k in range(repeats):
    for choice in ("random", "walk"):
        r, wall, c = run(p, s, budget, 7, choice)
        times[choice].append((wall, c))
        if k == 0:
            out["sets"][choice] = {"gap": gap(r, cells, speed), "lcp_solves": float(r.lcp_solves.mean())}
r, wall, c = run(p, s, budget, 7, "exact")
out["sets"]["exact"] = {"gap": gap(r, cells, speed), "lcp_solves": float(r.lcp_solves.mean()), "wall_s": wall,
                        "cpu_s": c}
for choice, tc in times.items():
    w, c = np.median(np.array(tc), axis=0)
    out["sets"][choice].update(wall_s=float(w), cpu_s=float(c))
for choice, row in out["sets"].items():
    print(choice, json.dumps(row), flush=True)
walk, exact, rnd = (out["sets"][c] for c in ("walk", "exact", "random"))
print(f"walk's share missed / exact's: {walk['gap']['outside_2pct'] / max(exact['gap']['outside_2pct'], 1e-12):.2f};"
      f" walk's cost / random's: wall {walk['wall_s'] / rnd['wall_s']:.2f}, CPU {walk['cpu_s'] / rnd['cpu_s']:.2f}")
json.dump(out, open("bench/walk-choice.json", "w"), indent=1)
