"""A set's nearest-neighbour index: one kd-tree against the forest of reach.sampling.nearest, on a real large set.

Builds the packaged quadruped touchdown's set of ``--samples`` samples and its
held-out search on ``--jobs`` processes, then times, alternating one tree
(:func:`reach.sampling.nearest.kd_tree`) and the forest
(:class:`reach.sampling.nearest.Forest`, its cells cut and its trees built on
``--threads`` threads), medians of ``--repeats``, wall and CPU seconds:

- the build, from the set's contact velocities;
- the held-out outcomes' distances (``workers=--threads``), which must be
  the same bits;
- the upper bounds :meth:`reach.sets.result.PostImpactSet.distance_beyond`
  asks first (scipy's ``eps`` of 1), on the held-out outcomes moved 3 % of
  ``|vn0|`` away, as a climb's children lie, with the floor at the 99th
  percentile of their distances, as a climb's parents leave about 1 % of its
  children beyond it.

    PYTHONPATH=. python bench/forest_index.py --samples 1048576 --jobs 2 --threads 2
"""

import argparse
import json
import time

import numpy as np

from reach import sample_post_impact_set
from reach.sampling import nearest
from reach.sets.completeness import closing_speed, held_out_settings
from reach.sets.result import APPROXIMATE_EPS
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case


def timed(fn):
    """(wall seconds, CPU seconds, answer) of ``fn()``."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the medians here")
    args = parser.parse_args()
    problem, h, N = problem_case("quadruped")
    result = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.jobs, completeness=False)
    held = run_sampling(problem, held_out_settings(result.settings), n_jobs=args.jobs, warn=False)
    points = result._points()
    queries = problem.contact_velocities(held.velocities).reshape(len(held.velocities), -1)
    away = queries + 0.03 * closing_speed(problem) * np.random.default_rng(0).normal(size=queries.shape) / \
        np.sqrt(queries.shape[1])
    print(f"quadruped touchdown: {len(points):,d} outcomes of {args.samples:,d} samples, {len(queries):,d} "
          f"held-out, {args.threads} threads")
    nearest.Forest(points[:70000], threads=args.threads)  # compiled (or loaded) before the clock
    floor = float(np.quantile(nearest.kd_tree(points).query(away, workers=args.threads)[0], 0.99))
    runs = {"tree": [], "forest": []}
    for _ in range(args.repeats):
        for kind in ("tree", "forest"):
            if kind == "tree":
                build = timed(lambda: nearest.kd_tree(points))
                ask = timed(lambda: build[2].query(queries, workers=args.threads)[0])
                bound = timed(lambda: build[2].query(away, eps=APPROXIMATE_EPS, workers=args.threads)[0])
            else:
                build = timed(lambda: nearest.Forest(points, threads=args.threads))
                ask = timed(lambda: build[2].distances(queries, workers=args.threads))
                bound = timed(lambda: build[2].upper_bounds(away, eps=APPROXIMATE_EPS, floor=floor,
                                                           workers=args.threads))
            runs[kind].append({"build_s": build[0], "build_cpu_s": build[1], "queries_s": ask[0],
                               "queries_cpu_s": ask[1], "bounds_s": bound[0], "bounds_cpu_s": bound[1],
                               "distances": ask[2]})
    same = all(np.array_equal(r["distances"], runs["tree"][0]["distances"]) for rs in runs.values() for r in rs)
    medians = {kind: {k: float(np.median([r[k] for r in rs])) for k in rs[0] if k != "distances"}
               for kind, rs in runs.items()}
    for kind, m in medians.items():
        print(f"{kind:>6}: build {m['build_s']:.3f} s (CPU {m['build_cpu_s']:.3f}), held-out distances "
              f"{m['queries_s']:.3f} s (CPU {m['queries_cpu_s']:.3f}), bounds {m['bounds_s']:.3f} s "
              f"(CPU {m['bounds_cpu_s']:.3f})")
    t, f = medians["tree"], medians["forest"]
    print(f"forest / tree, wall: build {f['build_s'] / t['build_s']:.2f}x, distances "
          f"{f['queries_s'] / t['queries_s']:.2f}x, bounds {f['bounds_s'] / t['bounds_s']:.2f}x, "
          f"build + distances {(f['build_s'] + f['queries_s']) / (t['build_s'] + t['queries_s']):.2f}x; "
          f"the same distances, bit for bit: {same}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"samples": args.samples, "threads": args.threads, "repeats": args.repeats,
                       "medians": medians, "same": same}, fh, indent=1)


if __name__ == "__main__":
    main()
