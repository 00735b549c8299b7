"""My robot in MJCF at touchdown -> post-impact set -> does my controller's assumed outcome lie inside?

It ends with robustness checks (:mod:`reach.analysis.robust`) on the set: does
any possible outcome break "this foot sticks", over how much of the set, and
which outcome is the worst (its witness replays bit for bit).

A small quadruped (``mujoco_quadruped.xml``: free trunk, hip and knee hinges,
sphere feet) lands on all four feet at once, falling at 0.5 m/s, moving forward
at 0.4 m/s and pitching nose-up at 0.3 rad/s.  A typical controller assumes a
plastic impact in which every stance foot sticks (the post-impact velocity is
the M-orthogonal projection of v onto the velocities with all feet at rest).
Is that outcome one the impact can actually produce, whatever the order and
rates at which the feet take up their impulses?

Run::

    python examples/mujoco_touchdown.py [--samples 16384] [--out results/touchdown] [--mujoco]

``--mujoco`` also simulates the touchdown in MuJoCo (stiff, strongly damped
contacts, tiny tilts and per-foot stiffness) and reports how far its outcomes
lie from the set.  Needs ``pip install 'reach[mujoco]'``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import mujoco
from reach import sample_post_impact_set
from reach.analysis.compare.mujoco import mujoco_data, sweep
from reach.analysis.set_propagation import SetPropagation
from reach.analysis.robust import check, sticks, within
from reach.models.mujoco import body_velocity, impact_from_mujoco, load_model
from reach.plotting.mujoco import plot_comparison, plot_contact_planes

HERE = Path(__file__).resolve().parent
FEET = ("FL_foot", "FR_foot", "HL_foot", "HR_foot")


def touchdown_state(model, hip=0.5, knee=-1.0):
    """qpos with all four feet touching the floor z = 0, and the pre-impact qvel."""
    qpos = np.array(model.qpos0, dtype=float)
    qpos[7::2], qpos[8::2] = hip, knee  # FL_hip, FL_knee, FR_hip, ...
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    lowest = min(data.geom_xpos[model.geom(f).id][2] - model.geom(f).size[0] for f in FEET)
    qpos[2] -= lowest
    # free joint: world linear velocity of the trunk origin, then body-frame angular velocity
    qvel = np.zeros(model.nv)
    qvel[0], qvel[2], qvel[4] = 0.4, -0.5, -0.3  # forward, down, nose up (about -y)
    return qpos, qvel


def plastic_stick(impact, feet=None):
    """A controller's assumption: the given feet (default all) stick, a plastic impact on them.

    The post-impact velocity is the M-orthogonal projection of v onto the
    velocities with those contact points at rest (least-squares impulses).
    """
    p = impact.problem
    chosen = [c for c in impact.contacts if feet is None or any(f in c.name for f in feet)]
    J = np.vstack([c.jacobian for c in chosen])  # (3 m', nv), world frame
    Minv_JT = np.linalg.solve(p.M, J.T)
    impulse = np.linalg.lstsq(J @ Minv_JT, -J @ p.v, rcond=None)[0]
    return p.v + Minv_JT @ impulse


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(HERE / "mujoco_quadruped.xml"), help="MJCF file")
    parser.add_argument("--samples", type=int, default=2**14)
    parser.add_argument("--h", type=float, default=1.0, help="impulse cap per step, N s")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--out", default="results/mujoco_touchdown", help="output directory")
    parser.add_argument("--mujoco", action="store_true", help="also compare with MuJoCo simulations")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model = load_model(args.model)
    qpos, qvel = touchdown_state(model)
    impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel))
    problem = impact.problem
    print(problem)
    for c, vn in zip(impact.contacts, problem.Jn @ problem.v):
        print(f"  {c.name:16s} at {np.round(c.position, 3)}  mu = {c.mu:g}  pre-impact normal velocity {vn:+.3f} m/s")
    problem.save(out / "problem.npz")

    result = sample_post_impact_set(problem, args.samples, args.h, args.steps, keep_paths=500, keep_caps=True)
    summary = result.summary()
    print(f"\n{len(result)} of {summary['samples']} samples in the set, "
          f"{summary['lcps_per_sample']:.2f} LCPs per sample")
    for name, frac in summary["contacts"].items():
        print(f"  {name:16s} lift-off {frac['lift_off']:6.1%}  slide {frac['slide']:6.1%}  stick {frac['stick']:6.1%}")
    result.save(out / "set.npz")

    # the controller's assumed outcomes, and where they sit relative to the set
    scale = float(np.max(np.abs(problem.Jn @ problem.v)))
    tol = 0.02 * scale
    data = mujoco_data(model, qpos, qvel)
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    trunk_set = body_velocity(model, data, "trunk", result.velocities)
    print(f"\nover the set: trunk COM velocity x {trunk_set[:, 0].min():.3f} ... {trunk_set[:, 0].max():.3f}, "
          f"z {trunk_set[:, 2].min():.3f} ... {trunk_set[:, 2].max():.3f} m/s, "
          f"pitch rate {trunk_set[:, 4].min():.3f} ... {trunk_set[:, 4].max():.3f} rad/s")
    assumptions = {"all feet stick": plastic_stick(impact),
                   "hind feet stick, front feet ignored": plastic_stick(impact, ("HL", "HR"))}
    for label, assumed in assumptions.items():
        trunk = body_velocity(model, data, "trunk", assumed)
        distance = float(result.distance_to(assumed))
        verdict = "inside" if result.contains(assumed, tol) else "NOT inside"
        colliding = " (it leaves a foot colliding)" if problem.is_colliding(assumed) else ""
        print(f"assumption '{label}': trunk COM velocity {np.round(trunk[:3], 3)} m/s, pitch rate "
              f"{trunk[4]:.3f} rad/s -> {verdict} the set within {tol:.3g} m/s "
              f"(distance {distance:.4f} m/s){colliding}")
    assumed = assumptions["all feet stick"]

    # Robustness checks (reach.analysis.robust): which requirements can the impact ordering break,
    # over how much of the set, and the worst outcome's witness, replayed bit for bit.
    touchdown = SetPropagation(result, qpos)
    requirements = {f"{foot} sticks": sticks(foot, tol=0.01) for foot in problem.contact_names}
    requirements["|v - v_all_stick| < 0.5 over all coordinates"] = within(assumed, 0.5)
    for label, requirement in requirements.items():
        (report,) = check(touchdown, requirement)
        worst = "-" if report.worst is None else \
            f"sample {report.witness[-1][2]} (replayed bit for bit: {report.replayed})"
        print(f"requirement '{label}': violated by {report.violating:,d} outcomes, {report.extent:.0%} of the set; "
              f"worst {worst}")

    import matplotlib

    matplotlib.use("Agg")
    from reach.plotting import plot_contact_plane

    plot_contact_planes(result, path=out / "feet.png", title="tangential (1) vs normal velocity per foot")
    plane = plot_contact_plane(result, (f"{problem.contact_names[0]}.normal", f"{problem.contact_names[2]}.normal"),
                               baselines=None, highlight=assumed,
                               title="front-left vs hind-left normal velocity (star: assumed)")
    plane.ax.figure.savefig(out / "front_hind.png", dpi=120)
    print(f"\nfigures: {out / 'feet.png'}, {out / 'front_hind.png'}")

    if args.mujoco:
        rng = np.random.default_rng(0)
        comparison = sweep(impact, model, result, tilts_deg=(-0.01, 0.01), stiffness_ratios=(0.1, 10.0),
                           stiffness_patterns=10.0 ** rng.uniform(0, 2, size=(4, problem.m)))
        print("\nMuJoCo:", comparison.summary())
        plane = (f"{problem.contact_names[0]}.normal", f"{problem.contact_names[2]}.normal")
        plot_comparison(result, comparison, plane, path=out / "mujoco.png")
        print(f"figure: {out / 'mujoco.png'}")
    return result, assumptions


if __name__ == "__main__":
    main()
