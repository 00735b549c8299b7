"""The completeness estimate against a far larger reference: share of cells missed and the farthest outcome.

    PYTHONPATH=. python3 bench/cell_estimate.py NAME REFERENCE_SAMPLES BUDGET [BUDGET ...]

NAME is a scenario or "quadruped" (the packaged touchdown); the reference is
reach.tools.coverage.build_reference (every strategy), thinned to cells of
0.4 % of |vn0|; each budget is a default set (seed 7, two workers).
"""
import sys
import time
import warnings

warnings.simplefilter("ignore")
from reach import sample_post_impact_set
from reach.tools.coverage import build_reference, gap
from reach.sets.completeness import closing_speed, CELL, thin_cells
from reach.tools.bench_gpu import problem_case
name = sys.argv[1]
p, h, N = problem_case(name)
speed = closing_speed(p)
ref = int(sys.argv[2])
t = time.time()
refv = build_reference(p, h, N, ref // 16, factor=16, n_jobs=2, log=lambda *a: None)
refv = refv.velocities
cells = thin_cells(p, refv, CELL * speed)
print(name, "reference", len(refv), "cells", len(cells), f"{time.time()-t:.0f}s", flush=True)
for b in map(int, sys.argv[3:]):
    r = sample_post_impact_set(p, b, h, N, n_jobs=2, seed=7)
    c = r.metadata["completeness"]
    g = gap(r, cells, speed)
    print(b, {k: round(c[k], 4) if isinstance(c[k], float) else c[k] for k in ("outside_2pct", "cells", "cells_far", "cells_unseen", "rare_far", "cells_missed", "max_fraction")}, "measured", g, flush=True)
