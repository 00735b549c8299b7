"""``reach sweep``: indeterminacy measures of an impact over a grid of design parameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reach.tools.arguments import UsageError, n_jobs, output_path, samples, seed
from reach.tools.compiling import compile_progress

__all__ = ["add_sweep", "cmd_sweep", "parse_param"]

#: Most grid points a sweep accepts.
MAX_POINTS = 100_000


def parse_param(text):
    """``NAME=LO:HI:COUNT`` -> (name, values); ``NAME=VALUE`` -> (name, [value])."""
    name, sep, spec = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"reach sweep: --param must be NAME=LO:HI:COUNT or NAME=VALUE; got {text!r}.")
    parts = spec.split(":")
    try:
        if len(parts) == 1:
            values = [float(parts[0])]
        elif len(parts) == 3:
            lo, hi, count = float(parts[0]), float(parts[1]), int(parts[2])
            if count < 1 or count > MAX_POINTS:
                raise ValueError
            values = list(np.linspace(lo, hi, count))
        else:
            raise ValueError
    except ValueError:
        raise UsageError(f"reach sweep: --param {text!r}: expected NAME=LO:HI:COUNT (COUNT a positive integer) "
                         "or NAME=VALUE.") from None
    if not all(np.isfinite(values)):
        raise UsageError(f"reach sweep: --param {text!r}: values must be finite.")
    return name.strip(), values


def add_sweep(sub):
    """Register ``reach sweep``."""
    from reach.analysis.measures import MEASURES

    p = sub.add_parser("sweep", help="measure how predictable an impact is over design parameters")
    p.add_argument("name", help="billiards, compass-gait, rocking-block or ramone")
    p.add_argument("--param", action="append", default=[], metavar="NAME=LO:HI:COUNT",
                   help="a parameter to sweep (repeat for a grid), or NAME=VALUE to fix one")
    p.add_argument("--measure", action="append", choices=MEASURES, help="measures (default: diameter)")
    p.add_argument("--budget", type=samples, default=2 ** 10, help="samples per point (default 1024)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--n-jobs", type=n_jobs, default=-1, metavar="J")
    p.add_argument("--out", metavar="FILE.csv", help="table (default results/NAME-sweep.csv; the plot beside it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args):
    """``reach sweep``: evaluate a design's measures over a grid, print, save the table and its plot."""
    import scenarios
    from reach.design import sweep

    try:
        design = scenarios.lookup(args.name, "design")
    except ValueError as exc:
        raise UsageError(f"reach: {exc}") from None
    params = [parse_param(text) for text in args.param]
    names = [name for name, _ in params]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"reach sweep: --param {', '.join(repeated)} given more than once; give each parameter once "
                         "(NAME=LO:HI:COUNT for several values).")
    grid = dict(params)
    defaults = design.defaults
    unknown = sorted(set(grid) - set(defaults))
    if unknown:
        raise UsageError(f"reach sweep: {args.name} has no parameters {unknown}; it has {sorted(defaults)}.")
    if not grid:
        raise UsageError(f"reach sweep: give at least one --param; {args.name} has {sorted(defaults)}.")
    if int(np.prod([len(v) for v in grid.values()])) > MAX_POINTS:
        raise UsageError(f"reach sweep: more than {MAX_POINTS:,} grid points.")
    out = output_path(args.out or Path("results") / f"{args.name}-sweep.csv", "--out", suffixes=(".csv",))
    measures = tuple(args.measure or ["diameter"])
    with compile_progress(enabled=not args.no_progress):
        result = sweep(design.build, grid, measures, budget=args.budget, seed=args.seed, n_jobs=args.n_jobs,
                       progress=not args.no_progress)
    header = ",".join(result.names + tuple(result.values))
    np.savetxt(out, result.table(), delimiter=",", header=header, comments="", fmt="%.10g")
    print(format_sweep(args.name, result))
    print(f"wrote {out}")
    print(f"wrote {_draw(args.name, result, out.with_suffix('.png'), design.describe(result.names[0]))}")
    return 0


def format_sweep(name, result):
    from reach.plotting.design import MEASURE_LABELS  # here, not at import: the plotting package is 0.2 s of start-up

    lines = [f"{name}: {len(result.params)} points"]
    lines.append("  ".join(f"{n:>12}" for n in result.names + tuple(result.values)))
    for row in result.table():
        lines.append("  ".join(f"{v:>12.5g}" for v in row))
    lines.extend(f"  ({m}: {MEASURE_LABELS[m]})" for m in result.values if m in MEASURE_LABELS)
    for m, values in result.values.items():
        if np.all(np.isnan(values)):
            lines.append(f"smallest {m}: none (no point is feasible)")
            continue
        k = int(np.nanargmin(values))
        where = ", ".join(f"{n} = {result.params[k][n]:.5g}" for n in result.names)
        lines.append(f"smallest {m}: {values[k]:.4g} at {where}")
    if any(np.isnan(values).any() for values in result.values.values()):
        lines.append("nan: the design rejects these parameters (an infeasible configuration) or its set is empty")
    return "\n".join(lines)


def _draw(name, result, path, xlabel):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from reach.plotting.design import plot_sweep
    from reach.plotting.files import save_figure

    return save_figure(plot_sweep(result, title=f"{name}: how predictable is the impact?", xlabel=xlabel).figure, path)
