"""Time ``reach.kernels.select.standardized_rows`` (a directed round's first step) on a 2^20-sample round's outcomes.

    PYTHONPATH=. python bench/standardized_rows.py

850,000 kept rows of 18 velocities projected on 12 contact coordinates (the quadruped touchdown's sizes,
random values), then standardized; the median of 7 calls after one that compiles, and a hash of the
answer (the same bits before and after a change of the kernel's loop order).
"""

import hashlib
import time

import numpy as np

from reach.kernels.select import standardized_rows

rng = np.random.default_rng(0)
V, J = rng.normal(size=(2**20, 18)), rng.normal(size=(12, 18))
index = np.sort(rng.choice(2**20, 850_000, replace=False))
standardized_rows(J, V, index[:10], 1e-3)
seconds = []
for _ in range(7):
    t = time.perf_counter()
    out = standardized_rows(J, V, index, 1e-3)
    seconds.append(time.perf_counter() - t)
print(f"standardized_rows: {np.median(seconds):.3f} s (median of 7), answer {hashlib.sha256(out.tobytes()).hexdigest()[:16]}")
