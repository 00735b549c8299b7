"""``reach simulate``: run Stewart & Trinkle's time-stepper on a scenario and save the trajectory."""

from __future__ import annotations

import sys
import time
from pathlib import Path


from reach.tools.arguments import UsageError, output_path, positive_float

__all__ = ["add_simulate", "cmd_simulate", "MAX_RUN_STEPS"]

#: Longest run the command accepts (steps).
MAX_RUN_STEPS = 2_000_000


def add_simulate(sub):
    """Register ``reach simulate`` on the command line's subparsers."""
    p = sub.add_parser("simulate", help="run the Stewart-Trinkle time-stepper on a scenario")
    p.add_argument("name", help="spinning-rod, four-balls, or a paper scenario (dropped onto its impact)")
    p.add_argument("--dt", type=positive_float, metavar="H", help="step size h in s (default: the scenario's)")
    p.add_argument("--t-end", type=positive_float, metavar="T", help="end time in s (default: the scenario's)")
    p.add_argument("--out", metavar="FILE.npz", help="where to save (default results/NAME-trajectory.npz)")
    p.add_argument("--no-plot", action="store_true", help="do not draw FILE.png beside the trajectory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)


def _simulation(name):
    import scenarios

    try:
        return scenarios.lookup(name, "simulation")
    except ValueError as exc:
        raise UsageError(f"reach: {exc}") from None


def cmd_simulate(args):
    """``reach simulate``: run a time-stepping simulation, print its events, save it and its plot."""
    from reach.laws.trajectory import simulate

    sim = _simulation(args.name)
    h = args.dt or sim.h
    t_end = args.t_end or sim.t_end
    if t_end / h > MAX_RUN_STEPS:
        raise UsageError(f"reach: --t-end / --dt is {t_end / h:,.0f} steps; at most {MAX_RUN_STEPS:,} "
                         "(raise --dt or shorten --t-end).")
    if t_end / h < 1:
        raise UsageError(f"reach: --t-end {t_end:g} is shorter than one step of --dt {h:g}.")
    out = output_path(args.out or Path("results") / f"{sim.name}-trajectory.npz", "--out", suffixes=(".npz",))
    start = time.perf_counter()
    from reach.laws.stewart_trinkle import TimeSteppingError

    try:
        trajectory = simulate(sim.system, sim.q0, sim.v0, h, t_end, progress=not args.no_progress)
    except TimeSteppingError as exc:
        print(f"reach: the time-stepper stopped: {exc}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    print(format_trajectory(sim, trajectory, seconds))
    if trajectory.t[-1] > t_end * (1 + 1e-12):
        print(f"note: steps are whole, so the run ends at t = {trajectory.t[-1]:g} s, past --t-end {t_end:g} s "
              f"(the last step of {h:g} s passes it)")
    trajectory.save(out)
    print(f"wrote {out}")
    if not args.no_plot:
        print(f"wrote {_draw(sim, trajectory, out.with_suffix('.png'))}")
    return 0


def format_trajectory(sim, trajectory, seconds):
    """A plain-text report of a run: steps, contact events, residuals, penetration and energy."""
    lines = [f"{sim.name}: Stewart-Trinkle time-stepping (h = {trajectory.h:g} s, t = 0 .. {trajectory.t[-1]:g} s)",
             f"steps                {len(trajectory):,d} in {seconds:.2f} s",
             f"worst LCP residual   {trajectory.residual.max(initial=0.0):.1e} (relative)",
             f"deepest penetration  {max(0.0, -float(trajectory.phi.min())):.1e} m",
             f"energy               {trajectory.energy[0]:.6g} J -> {trajectory.energy[-1]:.6g} J "
             f"(largest rise in a step beyond applied work: {max(0.0, float(trajectory.energy_excess().max(initial=0.0))):.1e} J)",
             "contacts (times at which each starts pushing, s):"]
    for name in trajectory.contact_names:
        onsets = trajectory.onsets(name)
        if len(onsets):
            shown = ", ".join(f"{t:.4f}" for t in onsets[:6]) + (" ..." if len(onsets) > 6 else "")
            lines.append(f"  {name:<28} {shown}")
    if sim.events:
        lines.append("the source paper reports: " + ", ".join(f"{k} at {v:g} s" for k, v in sim.events.items()))
    return "\n".join(lines)


def _draw(sim, trajectory, path):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from reach.plotting.files import save_figure
    from reach.plotting.stepping import plot_trajectory

    names = list(sim.model.coordinate_names) if sim.model is not None else getattr(sim.system, "velocity_names", None)
    kinds = sim.model.coordinate_kinds if sim.model is not None else getattr(sim.system, "velocity_kinds", None)
    return save_figure(plot_trajectory(trajectory, title=sim.title, names=names, kinds=kinds), path)
