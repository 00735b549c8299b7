"""A set's kd-tree built in parts on threads (a forest): what it would save after a GPU set, measured as parts.

After the quadruped's 2^20-sample set on a GPU, the held-out distances wait for
the set's kd-tree, built on one thread (0.57 s on the H200 machine's cores)
while 15 cores idle.  scipy builds a tree without Python's lock, so trees of
parts build at once (``bench/tree_threads.py``: 16 parts of 2^20 points on 16
threads in 0.033 s).  A forest cuts the points into ``K`` parts: slabs of
equal counts along their widest coordinate (one ``np.argpartition``), or cells
as the top of a kd-tree cuts them (each in halves at the median of its own
widest coordinate).  It builds each part's tree
(:func:`reach.sampling.nearest.kd_tree`), and answers a query from the part
whose box is nearest, then from every other part whose box lies nearer than
the distance found: the same distances as one tree, bit for bit (a pair's
distance is computed alike in any tree; checked here).

This prototype stays here, outside the library: as measured (``bench/forest.log``),
neither cut leaves the critical path shorter than one tree's build.  It builds the packaged quadruped touchdown's set of
``--samples`` samples and its held-out search on ``--jobs`` processes, then
times (medians of ``--repeats``) one tree's build and its queries of the
held-out outcomes on one thread, and for each cut and ``K``: the cut (serial),
the parts' copies and trees one after the other and on ``K`` threads, the
queries on one thread, and how many parts a query asks.

    PYTHONPATH=. python bench/forest.py --samples 1048576 --jobs 2
"""

import argparse
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from reach import sample_post_impact_set
from reach.sampling.nearest import kd_tree
from reach.sets.completeness import held_out_settings
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case
from tree_threads import timed  # bench/, beside this script

#: A slab is asked where its box's distance is below this factor times the distance found: the box's distance is
#: rounded apart from the points' own, and the margin keeps every slab that could hold a nearer point.
BOX_MARGIN = 1.0 + 1e-9


def slabs_cut(points, k):
    """Rows of ``k`` slabs of equal counts along the points' widest coordinate."""
    axis = int(np.argmax(points.max(axis=0) - points.min(axis=0)))
    cuts = [len(points) * i // k for i in range(1, k)]
    return np.split(np.argpartition(points[:, axis], cuts), cuts)


def cells_cut(points, k):
    """Rows of ``k`` cells (a power of two), as the top of a kd-tree cuts them: each cell in halves at the median of
    its own widest coordinate.  Each level reorders the points once, so that a cell's points are a slice."""
    order, bounds = np.arange(len(points)), [0, len(points)]
    while len(bounds) - 1 < k:
        level, new_bounds = points[order], [0]
        for a, b in zip(bounds[:-1], bounds[1:]):
            cell = level[a:b]
            axis = int(np.argmax(cell.max(axis=0) - cell.min(axis=0)))
            half = (b - a) // 2
            order[a:b] = order[a:b][np.argpartition(cell[:, axis], half)]
            new_bounds += [a + half, b]
        bounds = new_bounds
    return [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def slab(points, rows):
    """A part's box (lo, hi) and tree."""
    p = points[rows]
    return p.min(axis=0), p.max(axis=0), kd_tree(p)


def query(points, parts, rows, q):
    """Distances of ``q`` to ``points`` from the parts' trees, one thread; and the parts asked a query, on average."""
    boxes = np.array([np.sqrt((np.maximum(np.maximum(lo - q, q - hi), 0.0) ** 2).sum(axis=1)) for lo, hi, _ in parts])
    home = boxes.argmin(axis=0)
    dist = np.full(len(q), np.inf)
    asked = 0
    for step in ("home", "others"):
        for j, (_, _, tree) in enumerate(parts):
            which = np.flatnonzero(home == j if step == "home" else (boxes[j] < dist * BOX_MARGIN) & (home != j))
            asked += len(which)
            if len(which):
                dist[which] = np.minimum(dist[which], tree.query(q[which])[0])
    return dist, asked / len(q)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--cut", choices=("slabs", "cells"), nargs="+", default=["slabs", "cells"])
    args = parser.parse_args()
    problem, h, N = problem_case("quadruped")
    result = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.jobs, completeness=False)
    held = run_sampling(problem, held_out_settings(result.settings), n_jobs=args.jobs, warn=False)
    points = problem.contact_velocities(result.velocities).reshape(len(result.velocities), -1)
    q = problem.contact_velocities(held.velocities).reshape(len(held.velocities), -1)
    build, tree = timed(lambda: kd_tree(points), args.repeats)
    ask, d = timed(lambda: tree.query(q)[0], args.repeats)
    print(f"quadruped touchdown, {len(points):,d} outcomes, {len(q):,d} held-out: one tree built in {build:.3f} s, "
          f"its queries {ask:.3f} s (one thread)")
    for how in args.cut:
        for k in args.parts:
            split, rows = timed(lambda: (slabs_cut if how == "slabs" else cells_cut)(points, k), args.repeats)
            serial, _ = timed(lambda: [slab(points, r) for r in rows], args.repeats)
            with ThreadPoolExecutor(k) as pool:
                threads, parts = timed(lambda: list(pool.map(lambda r: slab(points, r), rows)), args.repeats)
            asked, (dist, per_query) = timed(lambda: query(points, parts, rows, q), args.repeats)
            print(f"{k:2d} {how}: cut {split:.3f} s, copies and trees {serial:.3f} s one after the other, "
                  f"{threads:.3f} s on {k} threads; queries {asked:.3f} s (one thread, {asked / ask:.2f}x one tree's), "
                  f"{per_query:.2f} {how} a query, one tree's bits: {np.array_equal(dist, d)}")


if __name__ == "__main__":
    main()
