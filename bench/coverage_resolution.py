"""A coverage-driven set at a resolution of the user's, against a reference: the share of its cells the set misses.

    PYTHONPATH=. python3 bench/coverage_target.py NAME 2 --reference REF --seeds 0   # builds REF (2^21 samples)
    PYTHONPATH=. python3 bench/coverage_resolution.py NAME REF RESOLUTION [--seeds 0,1,...] [--frontier-always N]
                                                      [--frontier-max N]

For each seed, ``reach run``'s default set (``sample_to_coverage``, two workers) at ``--resolution RESOLUTION``
(a share of |vn0|), then the share of the reference's cells (one outcome per cell of 0.4 % of |vn0|) farther
than RESOLUTION from the set, beside the run's own estimates of the cells it misses (at the resolution, which
decides the frontier, and at 2 % of |vn0|, the completeness estimate's; "nan" at the resolution before 2026-11-29's
change, which decided on the 2 % estimate).  ``--frontier-always N``
sets ``reach.sets.build.FRONTIER_ALWAYS`` (the frontier of at most N samples runs whatever the estimate says);
``--frontier-max N`` sets ``reach.sets.frontier.MAX`` (0: the frontier is eight held-out budgets whatever the
estimate says, as before 2026-12-06).
"""
import argparse
import warnings

import numpy as np

warnings.simplefilter("ignore")
import reach.sets.build as build  # noqa: E402
import reach.sets.frontier as frontier  # noqa: E402
from reach.sets.completeness import closing_speed  # noqa: E402
from reach.tools.bench_gpu import problem_case  # noqa: E402
from reach.tools.coverage import load_reference  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("name")
parser.add_argument("reference")
parser.add_argument("resolution", type=float)
parser.add_argument("--seeds", default="0,1,2,3,4,5")
parser.add_argument("--frontier-always", type=int, default=None)
parser.add_argument("--frontier-max", type=int, default=None)
args = parser.parse_args()
if args.frontier_max is not None:
    frontier.MAX = args.frontier_max
if args.frontier_always is not None:
    build.FRONTIER_ALWAYS = args.frontier_always
p, h, N = problem_case(args.name)
cells, samples = load_reference(p, args.reference)
speed = closing_speed(p)
print(f"# {args.name}, resolution {args.resolution:g} of |vn0|, FRONTIER_ALWAYS {build.FRONTIER_ALWAYS:,d}, "
      f"frontier.MAX {frontier.MAX:,d}; reference "
      f"{len(cells):,d} cells of {samples:,d} samples", flush=True)
for seed in (int(s) for s in args.seeds.split(",")):
    result = build.sample_to_coverage(p, h, N, n_jobs=2, seed=seed, resolution=args.resolution)
    coverage, estimate = result.metadata["coverage"], result.metadata["completeness"]
    far = result.distance_to(cells) / speed
    print(f"seed {seed}: budget {coverage['budget']:,d}, held-out {coverage['held_out_budget']:,d}, frontier "
          f"{coverage['frontier_budget']:,d}; the reference's cells farther than the resolution: "
          f"{100 * np.mean(far > args.resolution):.2f} %, than 2.5 times it: "
          f"{100 * np.mean(far > 2.5 * args.resolution):.3f} %; "
          f"estimated cells missed: at the resolution {100 * coverage.get('cells_missed', np.nan):.2f} %, at 2 % "
          f"{100 * estimate['cells_missed']:.2f} %; {coverage['seconds']:.1f} s", flush=True)
