"""``reach figures``: regenerate the paper's figures, Table 3 and the numbers pages."""

from __future__ import annotations

from pathlib import Path

from reach.tools.arguments import UsageError, output_folder
from reach.tools.compiling import compile_progress

__all__ = ["add_figures", "cmd_figures"]


def add_figures(sub):
    """Add ``reach figures`` to the subcommands ``sub``."""
    p = sub.add_parser("figures", help="regenerate the paper's figures and Table 3 (tens of minutes; --quick: a few)")
    p.add_argument("--quick", action="store_true", help="small sample counts (CI)")
    p.add_argument("--out", metavar="DIR", help="where to write (default results/figures)")
    p.add_argument("--refresh", action="store_true",
                   help="rewrite the repository's tracked figures/ and its numbers pages (instead of --out)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--paper-only", action="store_true",
                   help="only the set-valued impact paper's Figs. 8-14 and Table 3 (not the simulators, "
                        "time-stepping, through-impacts and design figures)")
    p.add_argument("--only", metavar="STAGES",
                   help="only these, comma-separated: a scenario (rocking-block, ...), table3, zeno, compliant, "
                        "stepping, through, design, simulators, guide")
    p.set_defaults(func=cmd_figures)


def cmd_figures(args):
    """Run ``reach figures`` with parsed ``args``; returns the exit code."""
    from reach.tools.figures import STAGES, TRACKED, estimate, make_figures

    if args.refresh and args.out is not None:
        raise UsageError("reach figures: give --refresh (rewrite the tracked figures/) or --out DIR, not both.")
    if args.refresh and not TRACKED.is_dir():
        raise UsageError(f"reach figures: --refresh rewrites the repository's figures/ ({TRACKED}), which this "
                         "install does not have; use --out DIR.")
    command = "reach figures" + (" --quick" if args.quick else "") + (" --paper-only" if args.paper_only else "") \
        + (" --refresh" if args.refresh else "")
    only = None if args.only is None else [name.strip() for name in args.only.split(",") if name.strip()]
    if only is not None and set(only) - set(STAGES):
        raise UsageError(f"reach figures: --only {args.only!r}: the stages are {', '.join(STAGES)}.")
    out = TRACKED if args.refresh else output_folder(args.out or Path("results") / "figures", "--out")
    if only is not None:
        command += f" --only {','.join(only)}"
    guess = None if only else estimate()
    print(f"reach figures: writing into {out}/" + ("" if args.quick or guess is None else f"; {guess}"))
    with compile_progress(enabled=not args.no_progress):
        written = make_figures(out, quick=args.quick, paper_only=args.paper_only, command=command,
                               progress=not args.no_progress, only=only)
    for p in written:
        print(f"wrote {p}")
    return 0
