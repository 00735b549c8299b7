"""The directed rounds' shell edge (the outcomes' 0.9 quantile of squared grid norms): a heap against np.partition.

Runs each case's default directed set of ``--samples`` samples (on the CPU,
one core, no estimate), keeps the ``grid_squares`` row of each round, and
times the edge both ways on it: the bounded heap that ``reach`` used
(``_kth_largest``, through ``top_along``'s module) and ``np.partition``; both give the
same value (an exact selection).

    PYTHONPATH=. python bench/shell_edge.py --samples 262144
"""

import argparse
import time

import numpy as np
from numba import njit

from reach import sample_post_impact_set
from reach.kernels import select
from reach.sampling import directed
from reach.tools.bench_gpu import problem_case


@njit(cache=False)
def heap_edge(values, k):
    """The k-th largest of ``values`` by the heap of :mod:`reach.kernels.select`."""
    return select._kth_largest(values, k, np.empty(k))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**18)
    args = parser.parse_args()
    rows = []
    original = directed.grid_squares

    def keep(pts, per_unit):
        out = original(pts, per_unit)
        rows.append(out.copy())
        return out

    directed.grid_squares = keep
    for case in ("rocking-block", "box-wall", "compass-gait", "disk-stack", "quadruped"):
        rows.clear()
        problem, h, N = problem_case(case)
        sample_post_impact_set(problem, args.samples, h, N, n_jobs=1, completeness=False)
        for radius in rows:
            n = len(radius)
            k = n - int(0.9 * n)
            heap_edge(radius[:16], 4)  # compiled
            t0 = time.perf_counter()
            a = heap_edge(radius, k)
            t1 = time.perf_counter()
            b = np.partition(radius, int(0.9 * n))[int(0.9 * n)]
            t2 = time.perf_counter()
            print(f"{case} outcomes {n} distinct {len(np.unique(radius))} same {a == b} heap {t1 - t0:.4f} s "
                  f"partition {t2 - t1:.4f} s", flush=True)


if __name__ == "__main__":
    main()
