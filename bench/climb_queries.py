"""The climb's distance queries (reach.sets.farthest): every child measured exactly, against only those that could
be parents (``PostImpactSet.distance_beyond``), on the quadruped touchdown's set.

The climb's children crowd at the set's far side, and a point far from every outcome costs a kd-tree the
most: it must rule out every cell its ball meets.  This runs the packaged quadruped touchdown's set of
``--samples`` samples (``--choice``, on ``--jobs`` processes) and its held-out search, then the climb twice,
alternating ``--repeats`` times: with every kept child's exact distance (``distance_to``, as before), and as
the library climbs now.  It prints each round's queries (seconds, points, how many were measured exactly)
and the climb's wall seconds, and checks that both climbs give the same answer, bit for bit.

    PYTHONPATH=. python bench/climb_queries.py --samples 1048576 --choice random --jobs 2
"""

import argparse
import time

import numpy as np

from reach import PostImpactSet, sample_post_impact_set
from reach.sets.completeness import held_out_settings
from reach.sets.farthest import farthest_search
from reach.sets.run import run_sampling
from reach.tools.bench_gpu import problem_case

BEYOND = PostImpactSet.distance_beyond


def every_child(self, v, floor, *, workers=1):
    """The climb before: every kept child's distance, measured exactly."""
    return np.atleast_1d(self.distance_to(v, workers=workers))


def climb(result, held, how, jobs):
    """The climb with ``how`` as the distance query: its answer, wall seconds, and each round's queries."""
    queries = []

    def timed(self, v, floor, *, workers=1):
        t = time.perf_counter()
        d = how(self, v, floor, workers=workers)
        queries.append((time.perf_counter() - t, len(d), int(np.count_nonzero(np.isfinite(d)))))
        return d

    PostImpactSet.distance_beyond = timed
    try:
        t = time.perf_counter()
        answer = farthest_search(result, held, held.settings.n_samples, n_jobs=jobs)
        return answer, time.perf_counter() - t, queries
    finally:
        PostImpactSet.distance_beyond = BEYOND


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--choice", default="random")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    problem, h, N = problem_case("quadruped")
    result = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.jobs, completeness=False,
                                    solution_choice=args.choice)
    held = run_sampling(problem, held_out_settings(result.settings), n_jobs=args.jobs, keep_caps=True, warn=False)
    result.distance_to(held.velocities[:1])  # the set's tree, built before either climb
    print(f"quadruped touchdown, {args.choice} choice: a set of {len(result):,} outcomes, a climb of "
          f"{held.settings.n_samples:,} children on {args.jobs} processes, its queries on {args.jobs} threads")
    answers = {}
    for r in range(args.repeats):
        for label, how in (("every child", every_child), ("beyond the parents", BEYOND)):
            answer, wall, queries = climb(result, held, how, args.jobs)
            answers.setdefault(label, []).append(answer)
            rounds = ", ".join(f"{t:.3f} s ({n} of {k})" for t, k, n in queries)
            print(f"{label:>18}: climb {wall:.2f} s, queries {sum(q[0] for q in queries):.2f} s; by round: {rounds}")
    same = all(a == answers["every child"][0] for runs in answers.values() for a in runs)
    print(f"the same climb, bit for bit: {same}; farthest {answers['every child'][0]['max']:.6g} m/s")


if __name__ == "__main__":
    main()
