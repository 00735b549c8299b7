"""Parts of the host side of a large set, each the old way and the new, on the same arrays.

Builds the packaged quadruped touchdown's set of ``--samples`` samples and
its held-out search (no estimate), then times, medians of ``--repeats``:

- counting the held-out outcomes' cells: ``np.unique(axis=0)`` against
  :func:`reach.kernels.select.equal_rows` (same first indices and counts);
- the set's contact velocities and kd-tree build, and the held-out outcomes' nearest-neighbour
  queries on one thread and on ``--threads``;
- the engine's accumulator filled with the run's chunks: freshly allocated (the
  first write to each page faults it in), and again once its pages are in.

    PYTHONPATH=. python bench/host_parts.py --samples 1048576 --jobs 2 --threads 2
"""

import argparse
import time

import numpy as np

from reach import sample_post_impact_set
from reach.kernels.select import equal_rows
from reach.sampling.engine import Accumulator
from reach.sampling.nearest import kd_tree
from reach.sets.completeness import CELL, closing_speed, held_out_settings
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case


def timed(fn, repeats):
    """(median wall seconds, median CPU seconds, last answer) of ``fn()``."""
    walls, cpus = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return float(np.median(walls)), float(np.median(cpus)), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    problem, h, N = problem_case("quadruped")
    result = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.jobs, completeness=False)
    held = run_sampling(problem, held_out_settings(result.settings), n_jobs=args.jobs, warn=False)
    V, H = result.velocities, held.velocities
    print(f"quadruped touchdown: {len(V):,d} outcomes of {args.samples:,d} samples, {len(H):,d} held-out")
    cell = CELL * closing_speed(problem)
    keys = np.floor(problem.contact_velocities(H).reshape(len(H), -1) / cell + 0.5).astype(np.int64)

    def hashed():
        n = len(keys)
        first, counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        g = equal_rows(keys, np.empty(1 << max(1, 2 * n - 1).bit_length(), dtype=np.int64), first, counts)
        return first[:g], counts[:g]

    def sorted_unique():
        _, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
        order = np.argsort(first)
        return first[order], counts[order]

    hashed()  # compiled
    old, new = timed(sorted_unique, args.repeats), timed(hashed, args.repeats)
    same = all(np.array_equal(a, b) for a, b in zip(old[2], new[2]))
    print(f"cell counts of the held-out outcomes ({len(new[2][0]):,d} cells): np.unique {old[0]:.3f} s, "
          f"equal_rows {new[0]:.3f} s ({old[0] / new[0]:.1f}x), same: {same}")
    one = timed(lambda: problem.contact_velocities(V), args.repeats)
    print(f"contact velocities of the set: {one[0]:.3f} s")
    pts = one[2].reshape(len(V), -1)
    build = timed(lambda: kd_tree(pts), args.repeats)
    print(f"kd-tree of the set: {build[0]:.3f} s")
    q = problem.contact_velocities(H).reshape(len(H), -1)
    serial = timed(lambda: build[2].query(q)[0], 1)
    threaded = timed(lambda: build[2].query(q, workers=args.threads)[0], 1)
    print(f"nearest-neighbour queries of the held-out outcomes: 1 thread {serial[0]:.3f} s "
          f"({serial[0] / len(q) * 1e6:.1f} us each), {args.threads} threads {threaded[0]:.3f} s, "
          f"same: {np.array_equal(serial[2], threaded[2])}")
    size = -(-args.samples // 225)  # the chunks of a 2^20-sample run on two workers
    arrays = result.arrays
    chunks = [dict({name: a[s:s + size] for name, a in arrays.items()}, start=s, paths=[], path_len=[])
              for s in range(0, args.samples, size)]

    def fill(acc):
        for chunk in chunks:
            acc.add(chunk)
        return acc

    fresh = timed(lambda: fill(Accumulator(problem, result.settings)), args.repeats)
    again = timed(lambda: fill(fresh[2]), args.repeats)
    print(f"accumulator, {len(chunks)} chunks: fresh {fresh[0]:.3f} s, pages already in {again[0]:.3f} s")


if __name__ == "__main__":
    main()
