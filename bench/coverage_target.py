"""Issue 41's targets for `reach run`'s default (coverage-driven) set, against a reference of 2^24 samples.

    PYTHONPATH=. python3 bench/coverage_target.py NAME [PIECES]

NAME is a scenario or "quadruped" (the packaged touchdown of examples/mujoco_touchdown.py).
The set is reach run's default: sample_to_coverage (seed 7, two workers).  The
reference is PIECES (default 16) references of 2^20 samples of every strategy
(reach.tools.coverage.build_reference, seeds 1001 + 100 k), each thinned to cells
of 0.4 % of |vn0| and the cells joined: 2^24 samples for 16 pieces.
Prints the set's gap against the reference (share of the reference's cells
farther than 2 % and 5 % of |vn0|, the farthest) beside its estimate.
"""
import json
import sys
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import CELL, closing_speed, thin_cells
from reach.tools.bench_gpu import _problem as problem_case
from reach.tools.coverage import build_reference, gap

name = sys.argv[1]
pieces = int(sys.argv[2]) if len(sys.argv) > 2 else 16
p, h, N = problem_case(name)
speed = closing_speed(p)
t = time.perf_counter()
result = sample_to_coverage(p, h, N, n_jobs=2, seed=7)
cov, c = result.metadata["coverage"], result.metadata["completeness"]
print(f"{name}: default set, budget {cov['budget']:,d} + {cov['held_out_budget']:,d} held-out, met {cov['met']},"
      f" {time.perf_counter() - t:.1f} s", flush=True)
cells = None
t = time.perf_counter()
for k in range(pieces):
    ref = build_reference(p, h, N, 2**20 // 16, factor=16, n_jobs=2, log=lambda *a: None, seed=1001 + 100 * k)
    part = thin_cells(p, ref.velocities, CELL * speed)
    cells = part if cells is None else thin_cells(p, np.concatenate([cells, part]), CELL * speed)
    print(f"  reference piece {k + 1}/{pieces}: {len(cells):,d} cells so far, {time.perf_counter() - t:.0f} s",
          flush=True)
measured = gap(result, cells, speed)
row = {"name": name, "reference_samples": pieces * 2**20, "reference_cells": int(len(cells)),
       "budget": cov["budget"], "held_out_budget": cov["held_out_budget"], "seconds": cov["seconds"],
       "measured": measured, "estimate": {k: c[k] for k in ("cells_missed", "outside_2pct", "max_fraction",
                                                             "held_out_max_fraction")}}
print(json.dumps(row), flush=True)
