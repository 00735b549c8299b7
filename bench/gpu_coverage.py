"""The coverage-driven run on a GPU (what ``reach run NAME --gpu`` does): its launches, and where its wall goes.

``reach run`` samples until the held-out estimate meets the coverage target, doubling the budget from
4,096 samples (:func:`reach.sets.build.sample_to_coverage`): each round a directed set and its held-out
search, and after the last round the climb.  On a GPU each of those is a few launches, most of them small,
and a launch lasts as long as its slowest samples (docs/performance.md: on the H200, 1,024 quadruped
samples took 0.09 s and 196,608 took 0.76 s, random choice).  Every bench before this one timed sets of a
fixed budget.  This one records each launch of the coverage-driven run: its size, its seconds, and which
part of the run it served (a round's set, a held-out search, the climb, the frontier).

With ``--real`` (``PARTS=coverage bash bench/device.sh``) the launches are this machine's GPU's, and the
same run is timed with ``--backends`` (``cuda``, ``cuda+cpu``, ``loky``: the GPU alone, beside every core but
one, and every core alone); their sets must be the same, bit for bit.  Without a GPU, a stand-in computes each
launch with the CPU's kernel (:class:`ReplayDevice`, ``bench/gpu_directed_host.py``: a GPU's outcomes, bit
for bit), and each launch is given the seconds an H200 took for a launch of its size, interpolated in the
launches that ``bench/hybrid-device-h200.json`` recorded for the case (random choice, so ``--choice random``
by default here): a prediction, not a measurement.

    PYTHONPATH=.:bench python bench/gpu_coverage.py --case quadruped
    PYTHONPATH=.:bench python bench/gpu_coverage.py --case quadruped --real --backends cuda cuda+cpu loky
"""

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

import reach.sampling.gpu as gpu_module
import reach.sets.build as build
from reach.sampling.gpu import Gpu
from reach.sets.build import sample_to_coverage
from reach.sets.completeness import HELD_OUT_SEED_OFFSET
from reach.tools.bench_gpu import problem_case
from gpu_directed_host import ReplayDevice, TimedDevice  # bench/, beside this script

#: The library's :data:`reach.sets.build.HELD_OUT_BESIDE_GPU`.
BESIDE = build.HELD_OUT_BESIDE_GPU
#: Launches of 2^15 samples or fewer count as small (as ``reach bench --gpu`` counts them).
SMALL = 2**15


class Recording(TimedDevice):
    """A device (a :class:`Gpu` or a stand-in) whose launches are recorded: ``(part, run's budget, samples,
    seconds)``; ``pace(samples)``: the seconds a launch is made to take (it sleeps the rest)."""

    def __init__(self, device, launches, seed, pace=None):
        super().__init__(device)
        self.launches, self.seed, self.pace = launches, seed, pace

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        t = time.perf_counter()
        out = super().run(plan, P, first_index, keep, path_rows, count=count)
        if self.pace is not None:  # --sleep: the launch takes what an H200's took
            time.sleep(max(0.0, self.pace(len(out.lcp_solves)) - (time.perf_counter() - t)))
        s = plan.settings
        if s.seed == self.seed:
            part = "set"
        elif s.seed == (self.seed + HELD_OUT_SEED_OFFSET) % 2**63:  # the climb's children follow its samples
            part = "held-out" if first_index < s.n_samples else "climb"
        else:
            part = "frontier"
        self.launches.append((part, int(s.n_samples), int(len(out.lcp_solves)), time.perf_counter() - t))
        return out


def h200_launch_seconds(case, path=Path(__file__).with_name("hybrid-device-h200.json")):
    """``seconds(samples)``: an H200's launch of that many samples, interpolated in the launches recorded for
    ``case`` (random choice, directed 2^20 sets); below the smallest and above the largest, the nearest two's line."""
    data = json.loads(path.read_text())["cases"]
    pairs = sorted({(S, t) for key, row in data.items() if key.split()[0] == case
                    for runs in row["runs"].values() for run in runs for S, t in run["launches"]})
    sizes = np.unique([S for S, _ in pairs])
    times = np.array([np.median([t for S, t in pairs if S == size]) for size in sizes])

    def seconds(samples):
        if samples <= sizes[0] or samples >= sizes[-1]:
            i = (0, 1) if samples <= sizes[0] else (-2, -1)
            slope = (times[i[1]] - times[i[0]]) / (sizes[i[1]] - sizes[i[0]])
            return float(max(0.0, times[i[0]] + slope * (samples - sizes[i[0]])))
        return float(np.interp(samples, sizes, times))

    return seconds


def digest(result):
    """A short hash of the set's per-sample arrays: the same set, bit for bit, the same digest."""
    h = hashlib.sha256()
    for a in (result.all_velocities, result.kept, result.sample_status, result.lcp_solves):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def run_once(problem, h, N, backend, args, launches, make_device, pace=None):
    """One coverage-driven run on ``backend``; its summary."""
    gpu_module.Gpu = lambda: Recording(make_device(), launches, args.seed, pace)  # what Cuda() and Hybrid() make
    try:
        t, c = time.perf_counter(), time.process_time()
        result = sample_to_coverage(problem, h, N, max_samples=args.max_samples, seed=args.seed,
                                    solution_choice=args.choice, backend=backend,
                                    n_jobs=-1 if backend != "cuda" else 1)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        gpu_module.Gpu = Gpu
    cov = result.metadata["coverage"]
    return {"backend": backend, "wall_s": wall, "cpu_s": cpu, "digest": digest(result), "met": cov["met"],
            "stopped": cov["stopped"], "budget": cov["budget"], "samples_drawn": cov["samples_drawn"],
            "rounds": [{"samples": r["samples"], "seconds": r["seconds"]} for r in cov["rounds"]]}


def launch_summary(launches, seconds=None):
    """Launches by part and size: how many, their samples and seconds (``seconds(S)`` in place of the recorded)."""
    rows = {}
    for part, _, S, t in launches:
        key = (part, "small" if S <= SMALL else "large")
        n, samples, total = rows.get(key, (0, 0, 0.0))
        rows[key] = (n + 1, samples + S, total + (seconds(S) if seconds else t))
    return {f"{part}, {size}": {"launches": n, "samples": s, "seconds": round(t, 3)}
            for (part, size), (n, s, t) in sorted(rows.items())}


def timed_run(problem, h, N, backend, beside, args, make_device, pace):
    """One timed run (``beside``: the rounds' held-out searches on the cores while the GPU runs the set, as the
    library does; else on the GPU after it, as before); its summary, launches included."""
    launches, saved = [], build.HELD_OUT_BESIDE_GPU
    build.HELD_OUT_BESIDE_GPU = saved if beside else None
    try:
        if args.profile:
            import cProfile
            import pstats

            profile = cProfile.Profile()
            row = profile.runcall(run_once, problem, h, N, backend, args, launches, make_device, pace)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        else:
            row = run_once(problem, h, N, backend, args, launches, make_device, pace)
    finally:
        build.HELD_OUT_BESIDE_GPU = saved
    row["held_out"] = "beside the GPU" if beside else "on the GPU"
    row["launches"] = launch_summary(launches)
    if not args.real:
        seconds = h200_launch_seconds(args.case)
        row["launches_h200"] = launch_summary(launches, seconds)
        if not args.sleep:
            stand_in = sum(t for *_, t in launches)
            row["host_s"] = row["wall_s"] - stand_in
            row["predicted_h200_s"] = row["host_s"] + sum(seconds(S) for _, _, S, _ in launches)
    row["launch_sizes"] = [(part, n, S, round(t, 4)) for part, n, S, t in launches]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="quadruped")
    parser.add_argument("--choice", default=None, help="solution choice (default: random without a GPU, auto on one)")
    parser.add_argument("--max-samples", type=int, default=2**20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--real", action="store_true", help="this machine's GPU instead of the stand-in")
    parser.add_argument("--backends", nargs="+", default=["cuda"], choices=["cuda", "cuda+cpu", "loky"])
    parser.add_argument("--sleep", action="store_true",
                        help="without a GPU: each launch takes what an H200's took (an emulated GPU, timed)")
    parser.add_argument("--compare-beside", action="store_true",
                        help="the GPU alone also with the held-out searches on the GPU, as before, alternating")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs of each")
    parser.add_argument("--profile", action="store_true", help="cProfile each timed run, top 30 by cumulative time")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    args.choice = args.choice or ("auto" if args.real else "random")
    problem, h, N = problem_case(args.case)
    replay = ReplayDevice()
    make_device = Gpu if args.real else (lambda: replay)
    pace = h200_launch_seconds(args.case) if args.sleep and not args.real else None
    report = {"case": args.case, "choice": args.choice, "max_samples": args.max_samples, "runs": []}
    if not args.real:  # the stand-in computes every launch on this core first, the held-out searches' too
        build.HELD_OUT_BESIDE_GPU = None
        try:
            run_once(problem, h, N, "cuda", args, [], make_device)
        finally:
            build.HELD_OUT_BESIDE_GPU = BESIDE
    variants = [(b, True) for b in (args.backends if args.real else ["cuda"])]
    if args.compare_beside:
        variants.insert(0, ("cuda", False))
    for _ in range(args.repeats):
        for backend, beside in variants:
            row = timed_run(problem, h, N, backend, beside, args, make_device, pace)
            report["runs"].append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "launch_sizes"}, indent=1), flush=True)
    digests = {row["digest"] for row in report["runs"]}
    print(f"sets the same, bit for bit: {len(digests) == 1}")
    for backend, beside in variants:
        walls = [row["wall_s"] for row in report["runs"]
                 if row["backend"] == backend and row["held_out"] == ("beside the GPU" if beside else "on the GPU")]
        print(f"{backend}, held-out searches {'beside the GPU' if beside else 'on the GPU'}: wall "
              + ", ".join(f"{w:.2f}" for w in walls) + " s")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
