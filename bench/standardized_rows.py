"""Time ``reach.kernels.select.standardized_rows`` (a directed round's first step) on a 2^20-sample round's outcomes.

    PYTHONPATH=. python bench/standardized_rows.py [--threads 2]

850,000 kept rows of 18 velocities projected on 12 contact coordinates (the quadruped touchdown's sizes,
random values), then standardized; the median of 7 calls after one that compiles, and a hash of the
answer (the same bits before and after a change of the kernel's loop order).  Then its two parts,
``projected_rows`` and ``standardize_columns``, and the projection in parts on ``--threads`` threads (as
the directed sampler's selection runs it), with the hash of the answer.
"""

import hashlib
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from reach.kernels.select import projected_rows, standardize_columns, standardized_rows

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


def median_seconds(fn):
    walls = []
    for _ in range(7):
        t = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
    return float(np.median(walls))


threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 2
pts = np.empty((len(index), 12))
bounds = np.linspace(0, len(index), threads + 1).astype(int)


def project(k):
    projected_rows(J, V, index[bounds[k]:bounds[k + 1]], pts[bounds[k]:bounds[k + 1]])


def on_threads():
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(project, range(threads)))


one = median_seconds(lambda: projected_rows(J, V, index, pts))
many = median_seconds(on_threads)
copy = pts.copy()
columns = median_seconds(lambda: standardize_columns(pts.copy(), 1e-3))
standardize_columns(copy, 1e-3)
print(f"projected_rows: {one:.3f} s, on {threads} threads {many:.3f} s; standardize_columns {columns:.3f} s "
      f"(with its copy); answer {hashlib.sha256(copy.tobytes()).hexdigest()[:16]}")
