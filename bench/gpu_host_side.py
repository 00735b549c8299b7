"""The host's share of a GPU run, measured without a GPU: the engine's wall seconds around a device that
answers at once.

A :class:`reach.sampling.executors.Cuda` executor is given a stand-in for
:class:`reach.sampling.gpu.Gpu` whose ``run`` returns a block's outputs at once,
copied from a stored CPU run into fresh arrays (as ``copy_to_host`` fills fresh
pageable memory), so the engine's wall seconds are what the host adds to the
kernels and the transfers: the chunk's arrays, the gathering into the run's
arrays, the plan.  ``host_s`` is the engine's wall less the stand-in's own seconds.  Uniform sampling, random choice, no paths, no estimate;
medians of ``--repeats`` runs, wall and CPU seconds.

    PYTHONPATH=. python bench/gpu_host_side.py --case rocking-block --samples 4194304
"""

import argparse
import json
import time

import numpy as np

from reach import sample_post_impact_set
from reach.kernels.routh import SAMPLE_FIELDS, SampleOutput
from reach.sampling.executors import Cuda
from reach.sampling.gpu import MAX_BLOCK
from reach.tools.bench_gpu import problem_case

COMMON = dict(completeness=False, solution_choice="random", keep_paths=0, strategy="uniform")


class InstantDevice:
    """A GPU that answers at once: a block's outputs copied from ``stored`` (a CPU set's arrays), cycled."""

    def __init__(self, stored):
        self.stored = stored
        self.seconds = 0.0  # wall seconds in run(): what a GPU's kernels and transfers would take instead

    def describe(self):
        return "an instant stand-in"

    def block_size(self, problem, max_steps, drawn=False):
        return MAX_BLOCK

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        t = time.perf_counter()
        S = count if P is None else P.shape[0]
        nv = plan.problem.nv
        rows = np.arange(first_index, first_index + S) % len(self.stored["lcp_solves"])
        fields = {name: np.empty((S, nv) if per_v else S, dtype) for name, (dtype, per_v) in SAMPLE_FIELDS.items()}
        for name, out in fields.items():
            np.take(self.stored[name], rows, axis=0, out=out)
        self.seconds += time.perf_counter() - t
        return SampleOutput(**fields, paths=np.full((keep, path_rows, nv), np.nan), path_len=np.zeros(keep, np.int64))


def instant_executor(stored):
    """A :class:`Cuda` executor around :class:`InstantDevice` (no GPU needed)."""
    return Cuda(device=InstantDevice(stored))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="rocking-block")
    parser.add_argument("--samples", type=int, default=2**22)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    problem, h, N = problem_case(args.case)
    cpu = sample_post_impact_set(problem, 2**14, h, N, n_jobs=1, **COMMON)
    stored = cpu.arrays
    executor = instant_executor(stored)
    runs = []
    for _ in range(args.repeats):
        c, device = time.process_time(), executor.gpu.seconds
        result = sample_post_impact_set(problem, args.samples, h, N, executor=executor, **COMMON)
        wall, stand_in = result.metadata["wall_seconds"], executor.gpu.seconds - device
        runs.append({"engine_wall_s": wall, "cpu_s": time.process_time() - c, "stand_in_s": stand_in,
                     "host_s": wall - stand_in})
    med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
    print(json.dumps({"case": args.case, "samples": args.samples, "runs": runs, "median": med}, indent=1))


if __name__ == "__main__":
    main()
