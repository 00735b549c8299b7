"""``backend="cuda+cpu"`` against the GPU alone, on a machine with a GPU: the default directed set of each case.

For each case the same set runs on the GPU alone (:class:`~reach.sampling.executors.Cuda`) and beside
local processes (:class:`~reach.sampling.executors.Hybrid`, with each ``--workers`` count), alternating,
``--repeats`` times, after warm-up runs that start every process and load the kernels (``--workers``
processes, every core but one unless given).  ``--old FILE``
adds the :class:`Hybrid` of another version of ``reach/sampling/executors.py`` (a copy of that file),
run in the same process on the same pool: a before-and-after on one machine.  Each run's set is checked
against the GPU's, bit for bit.  Prints one line a run and each case's ratios; ``--json``: the report.

    PYTHONPATH=. python bench/hybrid_device.py --samples 1048576 --repeats 2 --old .old/executors.py --json hybrid.json
"""

import argparse
import importlib.util
import json
import os
import time

import numpy as np

from reach import sample_post_impact_set
from reach.sampling.executors import Hybrid, make_executor
from reach.sampling.gpu import DEVICE_SECONDS, LAUNCHES
from reach.tools.bench_gpu import problem_case

COMMON = dict(completeness=False, solution_choice="random", keep_paths=0)


def old_hybrid(path):
    """The :class:`Hybrid` class of the executors module at ``path``."""
    spec = importlib.util.spec_from_file_location("old_executors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Hybrid


def timed(problem, n, h, N, executor):
    """One directed set of ``n`` samples on ``executor``: its result and a dict of what was measured, the GPU's
    launches (samples, kernel seconds) and its seconds by part (:data:`reach.sampling.gpu.DEVICE_SECONDS`)
    included."""
    before = dict(getattr(executor, "samples", {}))
    backups = getattr(executor, "backups", 0)
    LAUNCHES.clear()
    device = dict(DEVICE_SECONDS)
    t, c = time.perf_counter(), time.process_time()
    result = sample_post_impact_set(problem, n, h, N, executor=executor, **COMMON)
    run = {"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c,
           "selection_s": result.metadata["selection_seconds"],
           "device_s": {part: DEVICE_SECONDS[part] - device[part] for part in device},
           "launches": [list(launch) for launch in LAUNCHES]}
    if before:
        run.update(gpu_share=(executor.samples["gpu"] - before["gpu"]) / n,
                   backup_share=(executor.backups - backups) / n, delivered_per_s=executor.rates())
    return result, run


def compare(problem, h, N, sides, args, title):
    """Each of ``sides`` (name -> a maker of its executor) on the same directed set, alternating: the report."""
    executors = {name: make() for name, make in sides.items()}
    for name, executor in executors.items():  # every process started, the kernels loaded, on this case
        for strategy in ("uniform", "directed"):
            if name != "gpu" or strategy == "directed":
                sample_post_impact_set(problem, args.warm, h, N, executor=executor, strategy=strategy, **COMMON)
    runs = {name: [] for name in executors}
    reference = None
    for _ in range(args.repeats):
        for name, executor in executors.items():
            result, run = timed(problem, args.samples, h, N, executor)
            if reference is None:
                reference = result.all_velocities
            run["same"] = bool(np.array_equal(result.all_velocities, reference))
            runs[name].append(run)
            share = f" gpu share {run['gpu_share']:.2f} backups {run['backup_share']:.3f}" if "gpu_share" in run else ""
            sizes = [size for size, _ in run["launches"]]
            print(f"{title} {name}: {args.samples / run['wall_s']:,.0f} samples/s ({run['wall_s']:.2f} s, selection "
                  f"{run['selection_s']:.2f} s, GPU kernel {run['device_s']['kernel']:.2f} s in {len(sizes)} launches "
                  f"of median {np.median(sizes or [0]):,.0f}, setup {run['device_s']['setup']:.2f} s, transfers "
                  f"{run['device_s']['transfer']:.2f} s){share} same {run['same']}", flush=True)
    median = {name: {k: float(np.median([r[k] for r in rs])) for k in ("wall_s", "cpu_s", "selection_s")}
              for name, rs in runs.items()}
    found = {"samples": args.samples, "median": median, "runs": runs,
             "samples_per_s": {name: args.samples / m["wall_s"] for name, m in median.items()},
             "over_gpu_alone": {name: median["gpu"]["wall_s"] / m["wall_s"] for name, m in median.items()}}
    print(title, "÷ the GPU alone (wall, medians):",
          ", ".join(f"{name} {x:.2f}×" for name, x in found["over_gpu_alone"].items()), flush=True)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["rocking-block", "disk-stack", "quadruped"])
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[(os.cpu_count() or 2) - 1],
                        help="process counts beside the GPU, each in turn (the GPU alone again beside each)")
    parser.add_argument("--json", help="where to write the report (JSON)")
    parser.add_argument("--warm", type=int, default=2**16, help="samples of each warm-up run")
    parser.add_argument("--old", help="a copy of another version's reach/sampling/executors.py")
    args = parser.parse_args()
    report = {}
    for label in args.cases:
        problem, h, N = problem_case(label)
        for workers in args.workers:  # one pool at a time: another count would start a new one
            sides = {"gpu": lambda: make_executor(1, backend="cuda"), "new": lambda: Hybrid(workers)}
            if args.old:
                OldHybrid = old_hybrid(args.old)
                sides["old"] = lambda: OldHybrid(workers)
            report[f"{label} {workers}"] = compare(problem, h, N, sides, args, f"{label} ({workers} processes)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"workers": args.workers, "cases": report}, f, indent=1, default=float)


if __name__ == "__main__":
    main()
