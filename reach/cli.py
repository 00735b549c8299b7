"""The ``reach`` command line: run, list, show, plot, figures, bench.

A leaf of the package: it imports the core, the core never imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["main"]


def _scenario_or_exit(name):
    import scenarios

    try:
        return scenarios.get(name)
    except ValueError as exc:
        raise SystemExit(f"reach: {exc}") from None


def _positive_int(text):
    try:
        value = int(float(text)) if "e" in text.lower() else int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _samples(text):
    """Accept 4096, 2**14, 2^14 or 1e5."""
    t = text.replace("^", "**")
    if "**" in t:
        base, _, exp = t.partition("**")
        try:
            value = int(base) ** int(exp)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a sample count like 4096 or 2^14, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"expected a positive sample count, got {text!r}")
        return value
    return _positive_int(text)


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def format_summary(summary, title):
    """A readable text table of :meth:`PostImpactSet.summary`."""
    lines = [title, "=" * len(title)]
    t_s = summary["time_per_sample"]
    t_l = summary["time_per_lcp"]
    lines.append(f"samples            {summary['samples']:>12,d}")
    lines.append(f"kept (in the set)  {summary['kept']:>12,d}")
    lines.append(f"terminated in N    {summary['terminated_fraction']:>12.2%}")
    lines.append(f"failed LCP solves  {summary['failed_samples']:>12,d}")
    lines.append(f"LCPs per sample    {summary['lcps_per_sample']:>12.2f}")
    if t_s is not None:
        lines.append(f"time per sample    {t_s * 1e6:>10.2f} us")
    if t_l is not None:
        lines.append(f"time per LCP       {t_l * 1e6:>10.2f} us")
    lines.append(f"worst residual     {summary['worst_residual']:>12.1e}")
    lines.append("")
    lines.append(f"contact   lift-off   slide    stick     (tolerance {summary['tolerance']:.1e} m/s)")
    for name, c in summary["contacts"].items():
        lines.append(f"{name:<9} {c['lift_off']:>8.1%} {c['slide']:>8.1%} {c['stick']:>8.1%}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- commands
def cmd_list(args):
    import scenarios

    width = max(len(n) for n in scenarios.names())
    for name in scenarios.names():
        s = scenarios.get(name)
        print(f"{name:<{width}}  m={s.problem.m}  nv={s.problem.nv}  h={s.h:g}  N={s.N}  "
              f"samples=2^{int(s.n_samples).bit_length() - 1}  {s.description}")
    return 0


def cmd_show(args):
    import matplotlib

    matplotlib.use("Agg")
    from reach.drawing import draw_configuration

    scenario = _scenario_or_exit(args.name)
    out = Path(args.out or f"{scenario.name}.png")
    ax = draw_configuration(scenario)
    ax.figure.savefig(out, dpi=150, bbox_inches="tight")
    print(f"wrote {out}")
    return 0


def cmd_run(args):
    from reach import ImpactProblem, sample_post_impact_set
    from reach.sampler import sample_adaptive

    if (args.name is None) == (args.problem is None):
        raise SystemExit("reach: give a scenario name or --problem FILE (one of them); see `reach list`.")
    if args.problem is not None:
        h, N, n_samples = args.h, args.steps, args.samples
        missing = [flag for flag, value in (("--h", h), ("--steps", N)) if value is None]
        if missing:
            raise SystemExit(f"reach: a --problem run needs {' and '.join(missing)} (no paper defaults).")
        try:
            problem = ImpactProblem.from_file(args.problem)
        except ValueError as exc:
            raise SystemExit(f"reach: {exc}") from None
        label = Path(args.problem).stem
        n_samples = n_samples or 2**14
    else:
        scenario = _scenario_or_exit(args.name)
        problem, label = scenario.problem, scenario.name
        h = args.h or scenario.h
        N = args.steps or scenario.N
        n_samples = args.samples or scenario.n_samples
    if args.quick:
        n_samples = min(n_samples, 4096)
    out = Path(args.out) if args.out else Path("results") / f"{label}.npz"
    if out.suffix.lower() != ".npz":
        raise SystemExit(f"reach: --out must end in .npz; got {str(out)!r}.")
    out.parent.mkdir(parents=True, exist_ok=True)
    common = dict(eps=args.eps, seed=args.seed, sequence=args.sequence, caps=args.caps,
                  solution_choice=args.choice,
                  keep_paths=args.keep_paths, n_jobs=args.n_jobs, backend=args.backend,
                  scheduler=args.scheduler, progress=not args.no_progress)
    try:
        if args.epsilon is not None:
            result = sample_adaptive(problem, h, N, epsilon=args.epsilon, confidence=args.confidence,
                                     max_samples=max(n_samples, 4096), **common)
        else:
            checkpoint = out.with_name(out.stem + ".ckpt")
            result = sample_post_impact_set(problem, n_samples, h, N, checkpoint=checkpoint,
                                            resume=args.resume, **common)
    except ValueError as exc:
        raise SystemExit(f"reach: {exc}") from None
    except KeyboardInterrupt:
        raise SystemExit(f"\nreach: interrupted; finished chunks are kept in {out.stem}.ckpt — "
                         "run the same command with --resume to continue.") from None
    result.metadata["label"] = label
    summary = result.summary()
    print(format_summary(summary, f"{label}: post-impact set (h={h:g}, N={N}, seed={args.seed})"))
    adaptive = summary.get("adaptive")
    if adaptive:
        last = adaptive["rounds"][-1] if adaptive["rounds"] else None
        verdict = "met" if adaptive["met"] else "NOT met (hit the sample cap)"
        print(f"\nadaptive stopping at epsilon={adaptive['epsilon']:g}, confidence={adaptive['confidence']:g}: {verdict}")
        if last:
            print(f"last round: {last['far']} of {last['new']} new outcomes farther than epsilon; "
                  f"P(new outcome outside) <= {last['upper_bound']:.2e}")
    result.save(out)
    print(f"\nsaved {len(result):,d} outcomes to {out}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0


def cmd_plot(args):
    from reach import PostImpactSet
    from reach.plotting import plot_result_planes

    try:
        result = PostImpactSet.load(args.result)
    except ValueError as exc:
        raise SystemExit(f"reach: {exc}") from None
    paths = plot_result_planes(result, Path(args.out))
    for p in paths:
        print(f"wrote {p}")
    return 0


def cmd_figures(args):
    from reach.figures import make_figures

    written = make_figures(Path(args.out), quick=args.quick)
    for p in written:
        print(f"wrote {p}")
    return 0


def cmd_bench(args):
    from reach.bench import format_bench, run_bench

    report = run_bench(quick=args.quick)
    print(format_bench(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="reach",
        description="The set of possible outcomes of simultaneous frictional impacts "
                    "(Halm & Posa's set-valued Routh impact model).")
    from reach import __version__

    parser.add_argument("--version", action="version", version=f"reach {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="sample the post-impact set of a scenario or a problem file")
    p.add_argument("name", nargs="?", help="scenario name (see `reach list`)")
    p.add_argument("--problem", metavar="FILE", help="an ImpactProblem saved as .npz or .json")
    p.add_argument("--samples", type=_samples, help="number of samples M (default: the paper's)")
    p.add_argument("--h", type=_positive_float, help="step size h (default: the paper's)")
    p.add_argument("--steps", type=_positive_int, help="trajectory length N (default: the paper's)")
    p.add_argument("--eps", type=_positive_float, help="closing-step radius epsilon (default h/10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sequence", choices=("sobol", "uniform"), default="sobol")
    p.add_argument("--caps", choices=("uniform", "extremes", "mixed"), default="uniform",
                   help="cap distribution: uniform (the paper's), extremes (reaches the set's "
                        "extremes faster with 3+ contacts) or mixed (half of each)")
    p.add_argument("--choice", choices=("random", "first", "enumerate"), default="random",
                   help="solution pick at non-unique steps: random covering vector (default), "
                        "first (deterministic), enumerate (all solutions, uniform; slow, n <= 14)")
    p.add_argument("--keep-paths", type=int, default=4096, metavar="K",
                   help="store the velocity paths of the first K samples (default 4096)")
    p.add_argument("--out", metavar="FILE.npz", help="where to save (default results/NAME.npz)")
    p.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    p.add_argument("--quick", action="store_true", help="at most 4096 samples")
    p.add_argument("--n-jobs", type=int, default=-1, metavar="J",
                   help="parallel workers (-1: all cores; the result does not depend on it)")
    p.add_argument("--backend", choices=("loky", "threading", "dask", "serial"), default="loky")
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address, e.g. tcp://host:8786")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from its checkpoint (OUT.ckpt)")
    p.add_argument("--epsilon", type=_positive_float, metavar="E",
                   help="adaptive stopping: sample until new outcomes land within E (m/s) of the set")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="adaptive stopping confidence (default 0.95); --samples caps the count")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("list", help="list the paper's scenarios")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="draw a scenario's configuration")
    p.add_argument("name")
    p.add_argument("--out", metavar="FILE", help="image file (default NAME.png)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("plot", help="draw the contact-frame planes of a saved result")
    p.add_argument("result", metavar="RESULT.npz")
    p.add_argument("--out", metavar="DIR", default="plots")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("figures", help="regenerate the paper's figures and Table 3")
    p.add_argument("--quick", action="store_true", help="small sample counts (CI)")
    p.add_argument("--out", metavar="DIR", default="figures")
    p.set_defaults(func=cmd_figures)

    p = sub.add_parser("bench", help="measure speed against the paper and a NumPy baseline")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", metavar="FILE")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
