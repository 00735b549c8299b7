"""The ``reach`` command line: run, list, show, plot, figures, bench, coverage, simulate, trajectory, robust, sweep.

A leaf of the package: it imports the core, the core never imports it.

Exit codes: 0 done; 2 bad input (one line naming the argument or file);
1 a user's function (controller, predicate, cost) that raised or answered wrongly (one line naming it), or
an internal failure (one line; ``REACH_DEBUG=1`` shows the traceback) or an
empty set (saved, with its message); 130 interrupted (finished work is kept
in the checkpoint).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from reach.tools.arguments import UsageError, UserCodeError, image_suffixes, output_folder, output_path, \
    positive_float, remove_empty_outputs, run_inputs, scenario_named
from reach.tools.arguments import n_jobs as _n_jobs, samples as _samples, steps as _steps
from reach.tools.cli_bench import add_bench
from reach.tools.cli_simulate import add_simulate
from reach.tools.cli_design import add_sweep
from reach.tools.cli_figures import add_figures
from reach.tools.cli_run import add_run
from reach.tools.cli_through import add_through
from reach.tools.summary import format_summary

__all__ = ["main", "build_parser", "format_summary", "UsageError"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


# ----------------------------------------------------------------------------- commands
def cmd_list(args):
    import scenarios

    width = max(len(n) for n in scenarios.names())
    for name in scenarios.names():
        s = scenarios.get(name)
        print(f"{name:<{width}}  m={s.problem.m}  nv={s.problem.nv}  h={s.h:g}  N={s.N}  "
              f"paper: 2^{int(s.n_samples).bit_length() - 1} samples  {s.description}")
    simulations = scenarios.names("simulation")[:2]
    designs = [scenarios.lookup(n, "design") for n in scenarios.names("design")]
    print(f"\nreach simulate:    {', '.join(simulations)}, or any scenario above (dropped)")
    print(f"reach trajectory:  {', '.join(scenarios.names('trajectory'))}")
    print("reach sweep:       " + ", ".join(f"{d.name} ({', '.join(d.defaults)})" for d in designs))
    return 0


def cmd_show(args):
    scenario = scenario_named(args.name)
    out = output_path(args.out or f"{scenario.name}.png", "--out", suffixes=image_suffixes())
    from reach.plotting.drawing import draw_configuration

    ax = draw_configuration(scenario)
    ax.figure.savefig(out, dpi=150, bbox_inches="tight")
    print(f"wrote {out}")
    return 0


def _other_result(path):
    """If the file ``path`` holds what ``reach trajectory`` or ``reach simulate`` saves, a message saying so."""
    from reach.analysis import propagate
    from reach.files import read_npz
    from reach.laws import trajectory

    try:
        kind = str(read_npz(path).get("format", ""))
    except ValueError:
        return None
    holds = {propagate.FORMAT: "a run through several impacts (`reach trajectory`), drawn beside it as a .png; "
                               "`reach robust` checks it",
             trajectory.FORMAT: "a time-stepping simulation (`reach simulate`), drawn beside it as a .png"}
    return f"{str(path)!r} is not a set to plot: it holds {holds[kind]}." if kind in holds else None


def cmd_plot(args):
    import scenarios
    from reach import PostImpactSet
    from reach.plotting import plot_result_planes

    try:
        result = PostImpactSet.load(args.result)
    except ValueError as exc:
        raise UsageError(f"reach: {_other_result(args.result) or exc}") from None
    if len(result) == 0:
        raise UsageError(f"reach: {args.result!r} holds an empty set: nothing to draw ({result.message})")
    out = output_folder(args.out, "--out")
    scenario = None
    label = str(result.metadata.get("label") or "")
    if label in scenarios.names():
        candidate = scenarios.get(label)
        scenario = candidate if candidate.problem.fingerprint() == result.problem.fingerprint() else None
    try:
        paths = plot_result_planes(result, out, scenario=scenario)
    except OSError as exc:
        raise UsageError(f"reach: --out {str(out)!r}: {exc.strerror or exc}") from None
    for p in paths:
        print(f"wrote {p}")
    return 0


def cmd_coverage(args):
    from reach.tools.compiling import compile_progress
    from reach.tools.coverage import format_coverage, plot_coverage, run_coverage, save_report

    problem, scenario, label, h, N, budget = run_inputs(args, args.budget)
    if scenario is not None and args.budget is None:
        budget = min(budget, 2**16)
    out = output_path(args.out or Path("results") / f"{label}-coverage.json", "--out", suffixes=(".json",))
    reference = None
    if args.reference is not None:
        from reach.tools.coverage import load_reference

        try:
            reference = load_reference(problem, args.reference)  # read here: a wrong file is a usage error
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError(f"reach: --reference {args.reference!r}: {exc}") from None
    save_to = output_path(args.save_reference, "--save-reference", suffixes=(".npz",)) if args.save_reference else None
    with compile_progress():
        report = run_coverage(problem, h, N, budget, label=label, factor=args.factor, n_jobs=args.n_jobs,
                              reference=reference, save_reference_to=save_to)
    if args.reference is not None:
        report["reference"]["source"] = str(args.reference)
    print()
    print(format_coverage(report))
    save_report([report], out)
    print(f"\nwrote {out}")
    print(f"wrote {plot_coverage([report], out.with_suffix('.png'))}")
    return 0


def build_parser():
    """The ``reach`` command's argument parser, with every subcommand."""
    from reach.version import __version__

    parser = _Parser(
        prog="reach",
        description="The set of possible outcomes of simultaneous frictional impacts "
                    "(Halm & Posa's set-valued Routh impact model).")
    parser.add_argument("--version", action="version", version=f"reach {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    add_run(sub)

    p = sub.add_parser("coverage", help="measure how much of the set each sampling strategy covers")
    p.add_argument("name", nargs="?", help="scenario name (see `reach list`)")
    p.add_argument("--problem", metavar="FILE", help="an ImpactProblem saved as .npz or .json")
    p.add_argument("--budget", type=_samples, help="samples of the sets measured (default: the paper's, at most 2^16)")
    p.add_argument("--factor", type=_samples, default=16, help="reference size, in budgets (default 16)")
    p.add_argument("--h", type=positive_float, help="step size h (default: the paper's)")
    p.add_argument("--steps", type=_steps, help="trajectory length N (default: the paper's)")
    p.add_argument("--n-jobs", type=_n_jobs, default=-1, metavar="J")
    p.add_argument("--out", metavar="FILE.json", help="report (default results/NAME-coverage.json; the plot beside it)")
    p.add_argument("--reference", metavar="FILE.npz", help="measure against this saved reference instead of building one")
    p.add_argument("--save-reference", metavar="FILE.npz", help="save the reference built, to measure later versions against")
    p.set_defaults(func=cmd_coverage)

    p = sub.add_parser("list", help="list the scenarios, simulations, multi-impact examples and designs")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="draw a scenario's configuration")
    p.add_argument("name")
    p.add_argument("--out", metavar="FILE", help="image file (default NAME.png)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("plot", help="draw the contact-frame planes of a saved result")
    p.add_argument("result", metavar="RESULT.npz")
    p.add_argument("--out", metavar="DIR", default="plots")
    p.set_defaults(func=cmd_plot)

    add_figures(sub)
    add_bench(sub)
    add_simulate(sub)
    add_through(sub)
    add_sweep(sub)
    return parser


def main(argv=None):
    """Run the command line; returns the exit code (see the module docstring).  A command that fails leaves none of
    the output folders it created empty behind (:func:`reach.tools.arguments.remove_empty_outputs`)."""
    remove_empty_outputs(keep=True)
    code = _main(argv)
    remove_empty_outputs(keep=code == 0)
    return code


def _main(argv):
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return args.func(args)
    except UsageError as exc:
        print(str(exc).splitlines()[0] if str(exc) else "reach: bad input", file=sys.stderr)
        return 2
    except UserCodeError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nreach: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was piped into a reader that stopped (`reach list | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the command line's last line of defence
        if os.environ.get("REACH_DEBUG"):
            traceback.print_exc()
        print(f"reach: internal error: {type(exc).__name__}: {exc}".splitlines()[0]
              + " (set REACH_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
