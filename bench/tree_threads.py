"""Whether the host's two serial parts after a GPU set, the kd-tree and the contact velocities, spread over threads.

After the quadruped's 2^20-sample set on a GPU, its held-out distances wait for
the set's contact velocities (``np.einsum``) and its kd-tree (scipy's
``cKDTree``), both on one thread while the other cores idle.  This times, on
random points of the quadruped's sizes (2^20 outcomes, 18 velocities, 12
contact coordinates), one tree against ``--threads`` parts built one after the
other and on as many threads, and the einsum whole against its parts on the
threads (same bits, checked).  Where the threads take as long as the serial
parts, the call holds Python's interpreter lock.

    PYTHONPATH=. python bench/tree_threads.py --threads 2
"""

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from reach.sampling.nearest import kd_tree

POINTS, NV, NC = 2**20, 18, 12


def timed(fn, repeats=3):
    """Median wall seconds of ``fn()`` and its last answer."""
    walls = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t)
    return float(np.median(walls)), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    k = parser.parse_args().threads
    rng = np.random.default_rng(0)
    V = rng.standard_normal((POINTS, NV))
    J = rng.standard_normal((NC, NV))
    X = np.einsum("...j,ij->...i", V, J)
    rows = np.array_split(np.arange(POINTS), k)
    parts = [np.ascontiguousarray(X[r[0]:r[-1] + 1]) for r in rows]
    with ThreadPoolExecutor(k) as pool:
        whole, _ = timed(lambda: kd_tree(X))
        serial, _ = timed(lambda: [kd_tree(p) for p in parts])
        threads, _ = timed(lambda: list(pool.map(kd_tree, parts)))
        print(f"kd-tree of {POINTS:,} points: whole {whole:.3f} s, {k} parts one after the other {serial:.3f} s, "
              f"on {k} threads {threads:.3f} s ({serial / threads:.2f}x)")
        product = lambda r: np.einsum("...j,ij->...i", V[r[0]:r[-1] + 1], J)  # noqa: E731
        one, a = timed(lambda: np.einsum("...j,ij->...i", V, J))
        many, b = timed(lambda: np.concatenate(list(pool.map(product, rows))))
        print(f"contact velocities (einsum) of {POINTS:,} outcomes: one thread {one:.3f} s, {k} threads {many:.3f} s "
              f"({one / many:.2f}x), same bits: {np.array_equal(a, b)}")


if __name__ == "__main__":
    main()
