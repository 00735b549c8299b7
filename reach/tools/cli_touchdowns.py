"""``reach trajectory MODEL.xml``: a MuJoCo robot through several touchdowns, and ``reach robust`` on the result."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reach.sampling.gpu import NoGpuError
from reach.analysis.propagate import CheckpointError
from reach.tools.arguments import UsageError, as_usage_errors, checkpoint_beside, output_path
from reach.tools.compiling import compile_progress
from reach.tools.user_code import load_callable

__all__ = ["is_model_file", "cmd_touchdowns", "load_run", "format_touchdowns"]

#: Default drop height (m) above the model's keyframe, for a robot standing there to touch down at all.
LIFT = 0.05


def is_model_file(name):
    """Whether ``reach trajectory NAME`` names a MuJoCo model file (MJCF or URDF) rather than an example."""
    path = Path(name)
    return path.suffix.lower() in (".xml", ".urdf", ".mjcf") and path.is_file()


def _model(path):
    try:
        from reach.models.mujoco import load_model
    except ImportError:
        raise UsageError("reach: a model file needs MuJoCo: pip install 'reach[mujoco]'.") from None
    try:
        return load_model(path)
    except ValueError as exc:
        raise UsageError(f"reach: {path}: {str(exc).splitlines()[0]}") from None


def _controller(spec, model):
    if not spec:
        return None
    controller = load_callable(spec, "--controller")
    controller.shape = (model.nu,)  # ctrl: one entry per actuator
    return controller


def initial_state(model, keyframe=None, lift=LIFT):
    """``(qpos, qvel)``: the model's keyframe (the first, or by name; else ``qpos0`` at rest), its free joint lifted."""
    import mujoco

    data = mujoco.MjData(model)
    if model.nkey:
        try:
            key = model.key(keyframe).id if keyframe else 0
        except KeyError:
            raise UsageError(f"reach: --keyframe: the model has no keyframe {keyframe!r}.") from None
        mujoco.mj_resetDataKeyframe(model, data, key)
    elif keyframe:
        raise UsageError("reach: --keyframe: the model has no keyframes.")
    qpos, qvel = data.qpos.copy(), data.qvel.copy()
    free = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    if free:
        qpos[model.jnt_qposadr[free[0]] + 2] += lift
    return qpos, qvel


def cmd_touchdowns(args, options):
    """Follow the model file ``args.name`` through ``options["impacts"]`` touchdowns; save, print, exit code."""
    from reach.analysis.propagate import save_propagation
    from reach.analysis.touchdowns import propagate_touchdowns

    model = _model(args.name)
    controller = _controller(args.controller, model)
    qpos, qvel = initial_state(model, args.keyframe, args.lift)
    out = output_path(args.out or Path("results") / f"{Path(args.name).stem}-touchdowns.npz", "--out",
                      suffixes=(".npz",))
    checkpoint = checkpoint_beside(out, args.resume)
    with as_usage_errors(NoGpuError, CheckpointError), compile_progress(enabled=not args.no_progress):
        run = propagate_touchdowns(model, qpos, qvel, controller=controller, n_jobs=args.n_jobs,
                                   executor="cuda" if args.gpu else None, progress=not args.no_progress, seed=args.seed,
                                   checkpoint=checkpoint, resume=args.resume, **options)
    print(format_touchdowns(args.name, run))
    save_propagation(run, out, meta={"model": str(Path(args.name).resolve()), "controller": args.controller})
    checkpoint.unlink(missing_ok=True)
    print(f"wrote {out}")
    if not args.no_plot and run.impacts:
        print(f"wrote {_draw(args.name, run, out.with_suffix('.png'))}")
    return 0


def _draw(name, run, path):
    """The trunk's pitch rate after every touchdown (the free joint's ``qvel[4]``), and its spread."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from reach.plotting.files import save_figure
    from reach.plotting.through import plot_propagation

    coordinate = 4 if run.impacts[0].v.shape[1] > 4 else 0
    label = "trunk pitch rate after the touchdown (rad/s)" if coordinate == 4 else "qvel[0] after the touchdown"
    fig = plot_propagation(run, coordinate, label, title=f"{Path(name).stem}: the set of states after each touchdown")
    return save_figure(fig, path)


def load_run(path, meta):
    """The :class:`~reach.analysis.touchdowns.TouchdownPropagation` of a saved ``reach trajectory MODEL.xml`` run."""
    from reach.analysis.touchdowns import load_touchdowns

    model = _model(meta["model"])
    return load_touchdowns(path, model, _controller(meta.get("controller"), model))[0]


def format_touchdowns(name, run):
    """Per touchdown: when, branches, outcomes, the trunk's forward speed and pitch rate ranges, cover, completeness."""
    lines = [f"{name}: {len(run.impacts)} touchdowns followed ({run.settings.budget:,d} samples per branch, at most "
             f"{run.settings.max_branches} branches)",
             f"{'impact':>6} {'t (s)':>15} {'branches':>8} {'outcomes':>8} {'vx (m/s)':>17} {'pitch rate':>17} "
             f"{'cover':>6} {'missed':>7}"]
    for r in run.impacts:
        vx, pitch = r.v[:, 0], r.v[:, 4] if r.v.shape[1] > 4 else np.zeros(len(r.v))
        missed = r.missed()
        lines.append(f"{r.index:>6} {r.t.min():>7.4f}-{r.t.max():<7.4f} {len(r.t):>8} {len(r.v):>8} "
                     f"{vx.min():>8.3f}..{vx.max():<7.3f} {pitch.min():>8.3f}..{pitch.max():<7.3f} "
                     f"{r.radius:>6.2f} {'-' if missed is None else format(missed['outside_2pct'], '.1%'):>7}")
    if getattr(run, "ended", None):
        kinds = [kind for _, kind in run.ended]
        lines.append("after the last touchdown: " + ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds))))
    lines.append("(vx, pitch rate: the free joint's qvel[0] and qvel[4] after the touchdown; cover: covering radius "
                 "of the carried states, in resolutions; missed: the sets' held-out estimate)")
    return "\n".join(lines)
