"""The reference cells the default disk-stack set leaves beyond 5 % of |vn0|: how rare are they?

    PYTHONPATH=. python3 bench/far_cells.py REFERENCE

REFERENCE is the 2^24-sample reference saved by bench/coverage_target.py disk-stack --reference.
The set is reach run's default (sample_to_coverage, seed 7, two workers).  For the
reference cells farther than 5 % of |vn0| from it, prints their contact velocities
(first ten, as fractions of |vn0|), then how many of them independent runs of 2^20
samples of each of the reference's strategies (seeds 5000 + k) come within 2 % and
5 % of |vn0| of, alone and joined.
"""
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
from reach import sample_post_impact_set
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import closing_speed
from reach.tools.bench_gpu import problem_case
from reach.tools.coverage import REFERENCE_PARTS, load_reference

p, h, N = problem_case("disk-stack")
speed = closing_speed(p)
cells, samples = load_reference(p, sys.argv[1])
result = sample_to_coverage(p, h, N, n_jobs=2, seed=7)
d = np.atleast_1d(result.distance_to(cells)) / speed
far = cells[d > 0.05]
print(f"{len(far)} of {len(cells):,d} reference cells ({samples:,d} samples) lie beyond 5 % of |vn0| from the "
      f"default set of {len(result.all_velocities):,d} samples")
np.set_printoptions(precision=3, suppress=True, linewidth=200)
print("their contact velocities (normal, tangent per contact) / |vn0|, first ten:")
print((p.contact_velocities(far[:10]) / speed).reshape(min(10, len(far)), -1))
best = None
for k, (_, options) in enumerate(REFERENCE_PARTS):
    part = sample_post_impact_set(p, 2**20, h, N, seed=5000 + k, n_jobs=2, completeness=False, **options)
    dd = np.atleast_1d(part.distance_to(far)) / speed
    best = dd if best is None else np.minimum(best, dd)
    print(f"2^20 samples of {options}: within 2 % {int(np.sum(dd <= 0.02))}, within 5 % {int(np.sum(dd <= 0.05))} "
          f"of {len(far)}; the parts so far together: within 5 % {int(np.sum(best <= 0.05))}", flush=True)
