"""How well ``backend="cuda+cpu"`` splits a run between a GPU and local processes, measured with an emulated GPU.

No GPU is needed: an :class:`EmulatedGpu` returns each launch's outcomes from
a reference run of the same set (a sample's outcome depends on its index and
caps only, so these are the outcomes any executor gives) after sleeping as
long as a GPU of ``--gpu-rate`` samples a second would take.  The same default
set then runs three ways, alternating, ``--repeats`` times: on the emulated
GPU alone (:class:`~reach.sampling.executors.Cuda`'s plan), on ``--workers``
local processes alone, and on both (:class:`~reach.sampling.executors.Hybrid`).
``efficiency`` is the hybrid's samples a second over the sum of the two alone:
1 where neither side ever waits on the other.  Wall seconds include the
directed rounds' choice on the host, which no executor shortens.  With
``--gpu-rate 0`` the emulated GPU runs at the processes' measured rate.

``--gpu-latency S`` adds S seconds to each launch of the GPU: its setup,
and its last samples with most of the device idle (the H200's launches
took 3-7 ms of setup alone, ``reach bench --gpu``'s ``setup_s``).

``--process-delay S`` adds S seconds of sleep to each run of a process (alone
and beside the GPU), outside its kernels' seconds: processes that deliver
less than their kernels promise, as the H200's 15 did (123 k samples/s
delivered on the rocking block against 3.1 M by their kernels' seconds,
docs/performance.md).

    PYTHONPATH=. python bench/hybrid_split.py --case quadruped --samples 262144 --workers 1
    PYTHONPATH=. python bench/hybrid_split.py --case rocking-block --samples 1048576 --workers 2 \
        --gpu-rate 2600000 --process-delay 0.05
"""

import argparse
import json
import time
from functools import partial

import numpy as np

from reach import sample_post_impact_set
from reach.kernels.routh import SAMPLE_FIELDS, SampleOutput
from reach.sampling.executors import Cuda, Hybrid, make_executor
from reach.sampling.gpu import MAX_BLOCK
from reach.tools.bench_gpu import problem_case

COMMON = dict(completeness=False, keep_paths=0)


class EmulatedGpu:
    """A GPU of ``rate`` samples a second, and ``latency`` seconds more a launch, whose outcomes are the reference
    run's ``arrays`` (by sample index)."""

    def __init__(self, arrays, rate, latency=0.0):
        self.arrays, self.rate, self.latency = arrays, rate, latency
        self.samples = self.launches = 0

    def describe(self):
        return f"an emulated GPU of {self.rate:,.0f} samples/s"

    def block_size(self, problem, max_steps, drawn=False):
        return MAX_BLOCK

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        t = time.perf_counter()
        S = count if P is None else P.shape[0]
        fields = {name: self.arrays[name][first_index:first_index + S].copy() for name in SAMPLE_FIELDS}
        self.samples += S
        self.launches += 1
        time.sleep(max(0.0, self.latency + S / self.rate - (time.perf_counter() - t)))
        nv = plan.problem.nv
        return SampleOutput(**fields, paths=np.full((keep, path_rows, nv), np.nan), path_len=np.zeros(keep, np.int64))


def delayed_chunk(fn, delay, payload, *item, device=None):
    """``fn``'s chunk; in a process (no ``device``), ``delay`` seconds late."""
    if device is None:
        time.sleep(delay)
        return fn(payload, *item)
    return fn(payload, *item, device=device)


class Delayed:
    """``executor``, each of whose processes' runs comes back ``delay`` seconds late."""

    def __init__(self, executor, delay):
        self.executor, self.delay = executor, delay

    def __getattr__(self, name):
        return getattr(self.executor, name)

    def map_unordered(self, fn, payload, items):
        return self.executor.map_unordered(partial(delayed_chunk, fn, self.delay), payload, items)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="quadruped")
    parser.add_argument("--samples", type=int, default=2**18)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--gpu-rate", type=float, default=0.0, help="samples/s (0: the processes' own rate)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--process-delay", type=float, default=0.0, help="seconds added to each process's run")
    parser.add_argument("--gpu-latency", type=float, default=0.0, help="seconds added to each launch of the GPU")
    args = parser.parse_args()
    problem, h, N = problem_case(args.case)
    reference = sample_post_impact_set(problem, args.samples, h, N, n_jobs=args.workers, **COMMON)
    cpu = make_executor(args.workers, "loky")
    warm = Hybrid(args.workers, device=EmulatedGpu(reference.arrays, 1e9))
    warm.min_launch = 256  # small launches: the processes get chunks too, and start
    for executor in (cpu, warm):  # the pools started and their kernels loaded before anything is timed
        sample_post_impact_set(problem, min(args.samples, 2**14), h, N, executor=executor, **COMMON)
    runs = {"gpu": [], "cpu": [], "both": []}
    rate = args.gpu_rate
    for _ in range(args.repeats):
        for side in ("cpu", "gpu", "both"):
            if side != "cpu" and rate <= 0:
                rate = args.samples / float(np.median([r["wall_s"] for r in runs["cpu"]]))
            device = EmulatedGpu(reference.arrays, rate, args.gpu_latency)
            executor = {"cpu": cpu, "gpu": Cuda(device=device), "both": Hybrid(args.workers, device=device)}[side]
            if side != "gpu" and args.process_delay > 0:
                executor = Delayed(executor, args.process_delay)
            t, c = time.perf_counter(), time.process_time()
            result = sample_post_impact_set(problem, args.samples, h, N, executor=executor, **COMMON)
            run = {"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c,
                   "selection_s": result.metadata.get("selection_seconds", 0.0),
                   "same": bool(np.array_equal(result.all_velocities, reference.all_velocities))}
            if side == "both":
                run["gpu_share"] = executor.samples["gpu"] / args.samples
                run["backup_share"] = getattr(executor, "backups", 0) / args.samples
            if side != "cpu":
                run["gpu_launches"] = device.launches
            runs[side].append(run)
    median = {side: {k: float(np.median([r[k] for r in rs])) for k in rs[0]} for side, rs in runs.items()}
    rates = {side: args.samples / m["wall_s"] for side, m in median.items()}
    print(json.dumps({"case": args.case, "samples": args.samples, "workers": args.workers, "gpu_rate": rate,
                      "process_delay": args.process_delay, "gpu_latency": args.gpu_latency,
                      "samples_per_s": rates, "efficiency": rates["both"] / (rates["gpu"] + rates["cpu"]),
                      "median": median, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
