"""``reach trajectory`` and ``reach robust``: sets through many impacts, and checks against them."""

from __future__ import annotations

from pathlib import Path

from reach.analysis.propagate import MAX_BRANCHES, MAX_IMPACTS, CheckpointError
from reach.sampling.gpu import NoGpuError
from reach.tools.arguments import UsageError, as_usage_errors, checkpoint_beside, integer_text, n_jobs, output_path, samples, seed
from reach.tools.compiling import compile_progress
from reach.tools.user_code import load_callable

__all__ = ["add_through", "cmd_trajectory", "cmd_robust"]


def _impacts(text):
    return integer_text(text, "a number of impacts", 1, MAX_IMPACTS)


def _branches(text):
    return integer_text(text, "a number of branches", 1, MAX_BRANCHES)


def add_through(sub):
    """Register ``reach trajectory`` and ``reach robust``."""
    p = sub.add_parser("trajectory", help="follow the set of possible states through several impacts")
    p.add_argument("name", help="rimless-wheel, rocking-block or compass-walker (reach list), or a MuJoCo model "
                                "file (MODEL.xml): its touchdowns from its keyframe, dropped --lift metres")
    p.add_argument("--impacts", type=_impacts, default=None, metavar="K",
                   help=f"impacts to follow, at most {MAX_IMPACTS} (default: the example's)")
    p.add_argument("--budget", type=samples, default=None, help="samples per branch per impact")
    p.add_argument("--branches", type=_branches, default=None,
                   help=f"most states carried between impacts, at most {MAX_BRANCHES}")
    p.add_argument("--law", choices=("set", "classical"), default="set",
                   help="set: the Halm-Posa set (default); classical: the striking contact sticks")
    p.add_argument("--controller", metavar="MODULE:FUNCTION",
                   help="a force f(t, q, v) -> array applied in flight (a model file: ctrl = f(t, qpos, qvel))")
    p.add_argument("--keyframe", metavar="NAME", help="a model file's keyframe to start from (default: its first)")
    p.add_argument("--lift", type=float, default=0.05, metavar="H",
                   help="a model file: raise its free joint H metres above the keyframe (default 0.05)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--n-jobs", type=n_jobs, default=1, metavar="J")
    p.add_argument("--gpu", action="store_true", help="sample every impact's set on this machine's CUDA GPU")
    p.add_argument("--out", metavar="FILE.npz", help="where to save (default results/NAME-impacts.npz)")
    p.add_argument("--no-plot", action="store_true", help="do not draw FILE.png beside the result")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from its checkpoint (FILE.ckpt.npz, written after every impact)")
    p.set_defaults(func=cmd_trajectory)

    p = sub.add_parser("robust", help="check a `reach trajectory` result against a requirement")
    p.add_argument("result", metavar="RESULT.npz")
    p.add_argument("--predicate", metavar="MODULE:FUNCTION", help="predicate(outcome) -> True when satisfied")
    p.add_argument("--cost", metavar="MODULE:FUNCTION", help="cost(outcome) -> float, larger is worse")
    p.add_argument("--no-replay", action="store_true", help="do not replay the worst outcome's witness")
    p.set_defaults(func=cmd_robust)


def _example(name, controller):
    import scenarios

    force = load_callable(controller, "--controller") if controller else None
    try:
        example = scenarios.lookup(name, "trajectory", force=force)
    except ValueError as exc:
        raise UsageError(f"reach: {exc}") from None
    if force is not None:
        force.shape = (example.system.nv,)
    return example


def cmd_trajectory(args):
    """``reach trajectory``: follow a system through several impacts and save the sets."""
    from reach.analysis.propagate import propagate, save_propagation
    from reach.tools.cli_touchdowns import cmd_touchdowns, is_model_file

    if is_model_file(args.name):
        options = {key: value for key, value in (("impacts", args.impacts or 3), ("budget", args.budget),
                                                 ("max_branches", args.branches)) if value is not None}
        return cmd_touchdowns(args, options)
    example = _example(args.name, args.controller)
    options = dict(example.defaults)
    for key, value in (("impacts", args.impacts), ("budget", args.budget), ("max_branches", args.branches)):
        if value is not None:
            options[key] = value
    out = output_path(args.out or Path("results") / f"{example.name}-impacts.npz", "--out", suffixes=(".npz",))
    law = example.classical if args.law == "classical" else None
    checkpoint = checkpoint_beside(out, args.resume)
    with as_usage_errors(NoGpuError, CheckpointError), compile_progress(enabled=not args.no_progress):
        result = propagate(example.system, example.q0, example.v0, law=law, seed=args.seed, n_jobs=args.n_jobs,
                           executor="cuda" if args.gpu else None, guard=example.guard, progress=not args.no_progress,
                           checkpoint=checkpoint, resume=args.resume, **options)
    print(format_propagation(example, result))
    save_propagation(result, out, meta={"example": example.name, "controller": args.controller, "law": args.law})
    checkpoint.unlink(missing_ok=True)
    print(f"wrote {out}")
    if not args.no_plot:
        print(f"wrote {_draw(example, result, out.with_suffix('.png'))}")
    return 0


def format_propagation(example, result):
    k, label = example.coordinate
    lines = [f"{example.name}: {example.title}", f"{len(result.impacts)} impacts followed "
             f"({result.settings.budget:,d} samples per branch, at most {result.settings.max_branches} branches)",
             f"{'impact':>6} {'t (s)':>14} {'branches':>8} {'outcomes':>8} {'min':>10} {'max':>10} "
             f"{'cover':>6}  ended", ]
    for r in result.impacts:
        values = r.v[:, k]
        lines.append(f"{r.index:>6} {r.t.min():>6.3f}-{r.t.max():<7.3f} {len(r.t):>8} {len(r.v):>8} "
                     f"{values.min():>10.4g} {values.max():>10.4g} {r.radius:>6.2f}  "
                     + (", ".join(f"{n} {kind}" for kind, n in _count(r.ended)) or "-"))
    ended = getattr(result, "ended", [])
    if ended:
        lines.append(f"after the last impact: {', '.join(f'{n} {kind}' for kind, n in _count(ended))}")
    lines.append(f"(min, max: {label}; cover: covering radius of the carried states, in resolutions)")
    return "\n".join(lines)


def _count(ended):
    kinds = [kind for _, kind in ended]
    return [(kind, kinds.count(kind)) for kind in sorted(set(kinds))]


def _draw(example, result, path):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from reach.plotting.files import save_figure
    from reach.plotting.through import plot_propagation

    return save_figure(plot_propagation(result, example.coordinate[0], example.coordinate[1], title=example.title),
                       path)


def cmd_robust(args):
    """``reach robust``: check a requirement against every impact's set of a saved run."""
    from reach.analysis.propagate import load_propagation
    from reach.analysis.robust import check

    if args.predicate is None and args.cost is None:
        raise UsageError("reach robust: give --predicate MODULE:FUNCTION, --cost MODULE:FUNCTION, or both.")
    predicate = load_callable(args.predicate, "--predicate") if args.predicate else None
    cost = load_callable(args.cost, "--cost") if args.cost else None
    path = Path(args.result)
    if not path.is_file():
        raise UsageError(f"reach robust: {str(path)!r} is not a file.")
    import json

    from reach.files import read_npz
    try:
        meta = json.loads(str(read_npz(path).get("meta", "{}")))
    except ValueError as exc:
        raise UsageError(f"reach robust: {exc}") from None
    if "model" in meta:
        from reach.tools.cli_touchdowns import load_run

        propagation = load_run(path, meta)
    elif "example" not in meta:
        raise UsageError(f"reach robust: {str(path)!r} is not a `reach trajectory` result.")
    else:
        example = _example(meta["example"], meta.get("controller"))
        law = example.classical if meta.get("law") == "classical" else None
        propagation, _ = load_propagation(path, example.system, law=law, guard=example.guard)
    with compile_progress(enabled=not args.no_replay):  # a replay runs the sampling kernel
        reports = check(propagation, predicate, cost, replay=not args.no_replay)
    print(format_reports(reports, predicate, cost, propagation.settings))
    return 0


def _replay_text(report):
    """How the worst outcome's replay went, for :func:`format_reports`."""
    verdict, gap = report.replay_verdict(), report.replay_gap
    if verdict is None:
        return ""
    if verdict == "bit for bit":
        return "  (replayed bit for bit)"
    if verdict == "rounding":
        return (f"  (replayed to {gap:.0e} of the state, not bit for bit: rounding, as on another CPU than the one "
                "that saved the run)")
    return "  (REPLAY DIFFERS" + ("" if gap is None else f" by {gap:.1e} of the state") + ")"


def format_reports(reports, predicate, cost, settings=None):
    """The table ``reach robust`` prints; ``settings`` (the run's PropagationSettings) gives the cell size."""
    name = getattr(predicate, "__name__", None) or getattr(cost, "__name__", "cost")
    measured = cost is not None or hasattr(predicate, "violation")
    column = "cost" if cost is not None else ("violation" if measured else "distance")
    lines = [f"requirement: {name}",
             f"{'impact':>6} {'outcomes':>9} {'violating':>9} {'extent':>7} {'missed':>7} {'worst':>7} {column:>10}"
             + (f" {'distance':>9}" if measured else "") + "  witness"]
    for r in reports:
        witness = " -> ".join(f"impact {k}: branch {b}, sample {s}" for k, b, s, _ in r.witness) or "-"
        replay = _replay_text(r)
        value = "-" if r.worst_value is None else f"{r.worst_value:.4g}"
        distance = "-" if r.distance is None else f"{r.distance:.3g}"
        missed = "-" if r.missed is None else f"{r.missed['outside_2pct']:.1%}"
        lines.append(f"{r.impact:>6} {r.outcomes:>9,d} {r.violating:>9,d} {r.extent:>7.1%} {missed:>7} "
                     f"{'-' if r.worst is None else r.worst:>7} {value:>10}" + (f" {distance:>9}" if measured else "")
                     + f"  {witness}{replay}")
    lines.append("extent: share of the set's occupied cells holding a violating outcome (not of the samples)")
    lines.append("missed: the set's held-out estimate, the share of outcomes it misses by more than 2 % of |vn0| "
                 "(the largest over the impact's branches; '-': not estimated)")
    cell = "" if settings is None else f" ({settings.resolution:g} m/s or rad/s, {settings.resolution_q:g} m or rad)"
    cells = f"in cells of the propagation's resolution{cell}, largest coordinate"
    if cost is not None:
        lines.append("worst: the violator of largest cost (cost: in the unit of your cost function)")
    elif measured:
        lines.append(f"worst: the violator that violates most, by the requirement's own measure "
                     f"(violation: in {predicate.unit})")
    else:
        lines.append(f"worst: the violator farthest from every satisfying outcome; distance: {cells}")
    if measured:
        lines.append(f"distance: the worst violator's distance from every satisfying outcome, {cells}")
    lines += _warnings(reports)
    return "\n".join(lines)


def _warnings(reports):
    """Warnings under ``reach robust``'s table: sets that are not complete, and carried states too sparse."""
    lines = []
    for r in reports:
        if r.missed is not None and r.missed["outside_2pct"] > 0.01:
            lines.append(f"warning: impact {r.impact}: the set misses {r.missed['outside_2pct']:.1%} of its outcomes "
                         f"by more than 2 % of |vn0| (farthest {r.missed['max_fraction']:.1%}): a violation there "
                         "would go unseen; raise --budget")
        if r.cover_radius > 1.0:
            lines.append(f"warning: impact {r.impact}: the states carried on leave outcomes {r.cover_radius:.2f} "
                         "cells away (over 1): the next impacts start from fewer states than the set holds; "
                         "raise --branches")
    return lines
