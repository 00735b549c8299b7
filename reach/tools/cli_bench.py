"""``reach bench``: speed against the paper and a NumPy baseline, scaling, parallel speed-up, the GPU, simulators."""

from __future__ import annotations

import json

from reach.tools.arguments import UsageError, image_suffixes, output_path
from reach.tools.compiling import compile_progress

__all__ = ["add_bench", "cmd_bench"]


def add_bench(sub):
    """Add ``reach bench`` to the subcommands ``sub``."""
    p = sub.add_parser("bench", help="measure speed against the paper and a NumPy baseline")
    p.add_argument("--quick", action="store_true",
                   help="small budgets, seconds to minutes (the plain bench leaves the cold start out)")
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--scaling", action="store_true",
                   help="cost per LCP against its size n, planar and spatial, beside QuantEcon's Lemke")
    p.add_argument("--plot", metavar="FILE.png", help="with --scaling: draw µs per LCP against n")
    p.add_argument("--gpu", action="store_true",
                   help="only the GPU: samples a second against one CPU core, and agreement on the same samples")
    p.add_argument("--parallel", action="store_true",
                   help="only the parallel speed-up (issue 39's cases: compass gait 2^20, disk stack 2^18, "
                        "quadruped 2^16 and 2^18) on one worker and on all, alternating")
    p.add_argument("--simulators", action="store_true",
                   help="a 2^14-sample set against one stiff MuJoCo simulation of the same impact (planar, 3-D)")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args):
    """Run ``reach bench`` with parsed ``args``; returns the exit code."""
    json_out = output_path(args.json, "--json") if args.json else None
    plot_out = output_path(args.plot, "--plot", suffixes=image_suffixes()) if args.scaling and args.plot else None
    if args.simulators:
        import importlib.util

        if importlib.util.find_spec("mujoco") is None:
            raise UsageError("reach: --simulators needs MuJoCo: pip install 'reach[mujoco]'")
    with compile_progress():  # a first run compiles before it measures
        report, text = _measure(args)
    print(text)
    if plot_out is not None:
        from reach.tools.scaling import plot_scaling

        print(f"wrote {plot_scaling(report, plot_out)}")
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=1))
        print(f"wrote {json_out}")
    return 0


def _measure(args):
    """The report ``args`` ask for, and its text."""
    if args.scaling:
        from reach.tools.scaling import format_scaling, run_scaling

        report = run_scaling(quick=args.quick)
        return report, format_scaling(report)
    if args.simulators:
        from reach.tools.bench_simulators import format_set_vs_simulation, set_vs_simulation

        report = set_vs_simulation(repeats=1 if args.quick else 3)
        return report, format_set_vs_simulation(report)
    if args.gpu:
        from reach.tools.bench_gpu import format_gpu, run_gpu

        try:
            report = run_gpu(quick=args.quick)
        except ValueError as exc:
            raise UsageError(f"reach: {exc}") from None
        return report, format_gpu(report)
    if args.parallel:
        from reach.tools.bench_parallel import format_parallel, run_parallel

        report = run_parallel(quick=args.quick)
        return report, format_parallel(report)
    from reach.tools.bench import format_bench, run_bench

    report = run_bench(quick=args.quick)
    return report, format_bench(report)
