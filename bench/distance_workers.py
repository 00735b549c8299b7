"""Time ``PostImpactSet.distance_to`` with its queries on 1 thread and on every core, on the quadruped touchdown.

    PYTHONPATH=. python bench/distance_workers.py

A 2^18-sample default set (the tree built once, before timing), and the 2^15 outcomes of a second,
independent run as queries (as the held-out search and the farthest climb query); medians of 5, and
whether the distances are the same bits.
"""

import os
import time

import numpy as np

from reach import sample_post_impact_set
from reach.examples import quadruped_touchdown

p = quadruped_touchdown()
result = sample_post_impact_set(p, 2**18, 1.0, 10, completeness=False, seed=1)
queries = sample_post_impact_set(p, 2**15, 1.0, 10, completeness=False, seed=2, strategy="uniform").velocities
result.distance_to(queries[:10])  # builds the tree
answers = {1: [], -1: []}
for workers in (1, -1) * 5:
    t = time.perf_counter()
    d = result.distance_to(queries, workers=workers)
    answers[workers].append((time.perf_counter() - t, d))
one, every = (np.median([s for s, _ in answers[w]]) for w in (1, -1))
same = all(np.array_equal(d, answers[1][0][1]) for w in answers for _, d in answers[w])
print(f"{len(result):,} outcomes, {len(queries):,} queries, {os.cpu_count()} cores: 1 thread {one:.3f} s, "
      f"every core {every:.3f} s ({one / every:.2f}x); same distances: {same}")
