"""The held-out search beside a GPU run (``reach.sets.build.HELD_OUT_BESIDE_GPU``), measured with an emulated GPU.

A set with its estimate on a GPU alone ran its held-out search after the set,
on the GPU; the search depends on the settings only, so it can run on the
CPU's idle cores while the GPU runs the set.  No GPU is needed here: an
:class:`EmulatedGpu` runs the CPU's kernel on each launch the first time and
remembers the outcomes (they are the GPU's, bit for bit); on later repeats it
replays them after sleeping as long as a GPU of ``--gpu-rate`` samples a
second would take.  The same default set with its estimate then runs with the
search beside the GPU and after it, alternating (a first, computing repeat of
each is left out), and the estimates are compared.

    PYTHONPATH=. python bench/held_out_beside_gpu.py --case quadruped --samples 262144 --gpu-rate 60000
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from reach import sample_post_impact_set
from reach.sampling.executors import Cuda
from reach.sets import build
from reach.tools.bench_gpu import problem_case

sys.path.insert(0, str(Path(__file__).parent))
from gpu_directed_host import ReplayDevice  # noqa: E402 (a script beside this one)


class EmulatedGpu(ReplayDevice):
    """:class:`ReplayDevice` that takes as long as a GPU of ``rate`` samples a second once it replays."""

    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        t = time.perf_counter()
        computed = len(self.memory)
        out = super().run(plan, P, first_index, keep, path_rows, count)
        if len(self.memory) == computed:  # replayed: as long as the GPU would take
            time.sleep(max(0.0, len(out.kept) / self.rate - (time.perf_counter() - t)))
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="quadruped")
    parser.add_argument("--samples", type=int, default=2**18)
    parser.add_argument("--gpu-rate", type=float, default=60_000.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    problem, h, N = problem_case(args.case)
    executor = Cuda(device=EmulatedGpu(args.gpu_rate))
    runs = {"beside": [], "after": []}
    estimates = {}
    for r in range(args.repeats + 1):
        for mode, threshold in (("beside", 2**16), ("after", None)):
            build.HELD_OUT_BESIDE_GPU = threshold
            t = time.perf_counter()
            result = sample_post_impact_set(problem, args.samples, h, N, executor=executor)
            wall = time.perf_counter() - t
            estimate = dict(result.metadata["completeness"])
            seconds = estimate.pop("seconds")
            estimates[mode] = estimate
            if r:
                runs[mode].append({"wall_s": wall, "set_s": result.metadata["wall_seconds"],
                                   **{f"estimate_{k}_s": v for k, v in seconds.items()}})
    median = {mode: {k: float(np.median([run[k] for run in rs])) for k in rs[0]} for mode, rs in runs.items()}
    print(json.dumps({"case": args.case, "samples": args.samples, "gpu_rate": args.gpu_rate,
                      "same_estimate": estimates["beside"] == estimates["after"], "median": median, "runs": runs},
                     indent=1))


if __name__ == "__main__":
    main()
