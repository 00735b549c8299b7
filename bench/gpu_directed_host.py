"""The host's share of a directed GPU run, measured without a GPU: a stand-in device that replays the CPU's outcomes.

The default (directed) sampler on a GPU alternates launches with the host's
choice of each round's parents.  On an H200 its rate was 9-46 % of the uniform
rate (docs/performance.md), and the rocking block's 2^20 directed set took
1.9 s where its kernels needed about 0.1 s.  This measures the host's part of
such a run here, with the outcomes a GPU would give:

A :class:`ReplayDevice` stands in for :class:`reach.sampling.gpu.Gpu`.  Each
launch runs the CPU's kernel on the launch's caps (the GPU's set is the CPU's
bit for bit, so these are the outcomes a GPU returns), and remembers them by
(seed, choice, first index, caps): later repeats of the same run replay them
at once.  The stand-in's own seconds are subtracted from the engine's wall, so
``host_s`` is what the host adds to the kernels and transfers: the selection
of each round's parents, the children's caps, the plan and the arrays.  With
``--estimate`` the held-out estimate runs too (its held-out run on the same
stand-in), and its parts' seconds are reported.  The first repeat computes
(slowly, on one core) and is left out of the medians.  ``--real`` runs on this
machine's GPU instead (:class:`TimedDevice`; ``PARTS=e2e bash
bench/device.sh``, with ``--profile``: where a real end-to-end run's host
seconds go, on a machine of many cores).

    PYTHONPATH=. python bench/gpu_directed_host.py --case rocking-block --samples 1048576
    PYTHONPATH=. python bench/gpu_directed_host.py --case quadruped --samples 1048576 --estimate
"""

import argparse
import hashlib
import json
import time

import numpy as np

from reach import sample_post_impact_set
from reach.kernels.routh import allocate_output, run_samples_kernel
from reach.kernels.routh_data import make_step_work
from reach.sampling.caps import draw_caps
from reach.sampling.executors import Cuda
from reach.sampling.gpu import MAX_BLOCK
from reach.tools.bench_gpu import problem_case


class ReplayDevice:
    """A GPU stand-in: the CPU kernel's outputs for a launch, computed once and replayed after."""

    def __init__(self):
        self.memory = {}
        self.seconds = 0.0  # wall seconds in run(): what a GPU's kernels and transfers take instead

    def describe(self):
        return "a replaying stand-in"

    def block_size(self, problem, max_steps, drawn=False):
        return MAX_BLOCK

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        t = time.perf_counter()
        s, problem = plan.settings, plan.problem
        S = count if P is None else P.shape[0]
        caps = b"drawn" if P is None else hashlib.sha1(np.ascontiguousarray(P).view(np.uint8)).digest()
        key = (s.seed, s.solution_choice, s.sequence, str(s.caps), s.max_steps, first_index, S, keep, caps)
        if key not in self.memory:
            if P is None:
                P = draw_caps(problem.m, s.max_steps, first_index, S, seed=s.seed, sequence=s.sequence, caps=s.caps)
            out = allocate_output(S, problem.nv, keep, path_rows)
            work = make_step_work(problem.lcp_size, problem.m, problem.nv)
            run_samples_kernel(plan.data, plan.options, P, first_index, out, work, *plan.flags)
            self.memory[key] = out
        out = self.memory[key]
        copy = type(out)(*[a.copy() for a in out])  # fresh arrays, as copy_to_host gives
        self.seconds += time.perf_counter() - t
        return copy


class TimedDevice:
    """The real GPU (:class:`reach.sampling.gpu.Gpu`) in the stand-in's place: its launches' wall seconds summed as
    the stand-in's are, so that ``host_s`` is the host's part on a real device too."""

    def __init__(self, gpu):
        self.gpu, self.seconds = gpu, 0.0

    def __getattr__(self, name):
        return getattr(self.gpu, name)

    def run(self, *args, **kwargs):
        t = time.perf_counter()
        out = self.gpu.run(*args, **kwargs)
        self.seconds += time.perf_counter() - t
        return out


def replay_executor(device):
    """A :class:`Cuda` executor around ``device`` (no GPU needed)."""
    return Cuda(device=device)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="rocking-block")
    parser.add_argument("--samples", type=int, default=2**20)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats after the computing one")
    parser.add_argument("--estimate", action="store_true", help="with the held-out estimate (its parts' seconds)")
    parser.add_argument("--profile", action="store_true", help="cProfile the last repeat, top 25 by own time")
    parser.add_argument("--strategy", default="directed", choices=["directed", "uniform"])
    parser.add_argument("--real", action="store_true", help="this machine's GPU instead of the stand-in")
    args = parser.parse_args()
    problem, h, N = problem_case(args.case)
    if args.real:
        from reach.sampling.gpu import Gpu

        device = TimedDevice(Gpu())
    else:
        device = ReplayDevice()
    executor = replay_executor(device)
    runs = []
    for r in range(args.repeats + 1):
        if args.profile and r == args.repeats:
            import cProfile

            profile = cProfile.Profile()
            profile.enable()
        t, c, before = time.perf_counter(), time.process_time(), device.seconds
        result = sample_post_impact_set(problem, args.samples, h, N, executor=executor, completeness=args.estimate,
                                        strategy=args.strategy)
        wall, stand_in = time.perf_counter() - t, device.seconds - before
        meta = result.metadata
        run = {"wall_s": wall, "cpu_s": time.process_time() - c, "stand_in_s": stand_in, "host_s": wall - stand_in,
               "engine_wall_s": meta["wall_seconds"], "selection_s": meta.get("selection_seconds", 0.0)}
        if args.estimate:
            run.update({f"estimate_{k}_s": v for k, v in meta["completeness"].get("seconds", {}).items()})
        if r:
            runs.append(run)
    if args.profile:
        import pstats

        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    median = {k: float(np.median([run[k] for run in runs])) for k in runs[0]}
    import reach

    print(json.dumps({"case": args.case, "samples": args.samples, "strategy": args.strategy, "estimate": args.estimate,
                      "reach": reach.__file__,
                      "median": median,
                      "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
