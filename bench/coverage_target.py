"""Issue 41's targets for `reach run`'s default (coverage-driven) set, against a reference of 2^24 samples.

    PYTHONPATH=. python3 bench/coverage_target.py NAME [PIECES] [--reference PATH] [--seeds 7,8,...]

NAME is a scenario or "quadruped" (the packaged touchdown of examples/mujoco_touchdown.py).
The set is reach run's default: sample_to_coverage (seed 7, two workers).  The
reference is PIECES (default 16) references of 2^20 samples of every strategy
(reach.tools.coverage.reference_cells: seeds 1001 + 100 k), each thinned to cells
of 0.4 % of |vn0| and the cells joined: 2^24 samples for 16 pieces.
Prints the set's gap against the reference (share of the reference's cells
farther than 2 % and 5 % of |vn0|, the farthest) beside its estimate.
With --reference PATH the reference is read from PATH if it is there
(reach.tools.coverage.load_reference), else built and written there.
With --seeds, one default set per seed is measured against the same reference.
"""
import json
import os
import sys
import time
import warnings

warnings.simplefilter("ignore")
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import closing_speed
from reach.tools.bench_gpu import problem_case
from reach.tools.coverage import gap, load_reference, reference_cells, save_reference

args = sys.argv[1:]
path = None
if "--reference" in args:
    at = args.index("--reference")
    path = args[at + 1]
    del args[at:at + 2]
seeds = [7]
if "--seeds" in args:
    at = args.index("--seeds")
    seeds = [int(x) for x in args[at + 1].split(",")]
    del args[at:at + 2]
name = args[0]
pieces = int(args[1]) if len(args) > 1 else 16
p, h, N = problem_case(name)
speed = closing_speed(p)
cells = None
t = time.perf_counter()
if path is not None and os.path.exists(path):
    cells, samples = load_reference(p, path)
    assert samples == pieces * 2**20, f"{path} holds a reference of {samples} samples"
    print(f"  reference: {len(cells):,d} cells of {samples:,d} samples, from {path}", flush=True)
to_build = 0 if cells is not None else pieces
if to_build:
    cells = reference_cells(p, h, N, pieces, log=lambda k, c, s: print(
        f"  reference piece {k + 1}/{pieces}: {len(c):,d} cells so far, {s:.0f} s", flush=True))
if path is not None and to_build:
    save_reference(p, cells, 2**20 * pieces, path)
for seed in seeds:
    t = time.perf_counter()
    result = sample_to_coverage(p, h, N, n_jobs=2, seed=seed)
    cov, c = result.metadata["coverage"], result.metadata["completeness"]
    print(f"{name}: default set (seed {seed}), budget {cov['budget']:,d} + {cov['held_out_budget']:,d} held-out"
          f" + {cov['frontier_budget']:,d} frontier, met {cov['met']},"
          f" {time.perf_counter() - t:.1f} s", flush=True)
    measured = gap(result, cells, speed)
    row = {"name": name, "seed": seed, "reference_samples": pieces * 2**20, "reference_cells": int(len(cells)),
           "budget": cov["budget"], "held_out_budget": cov["held_out_budget"],
           "frontier_budget": cov["frontier_budget"], "seconds": cov["seconds"],
           "measured": measured, "estimate": {k: c[k] for k in ("cells_missed", "outside_2pct", "max_fraction",
                                                                 "held_out_max_fraction")}}
    print(json.dumps(row), flush=True)
