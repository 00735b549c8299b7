"""MuJoCo's outcomes of the rocking-block drop against the post-impact set (planar and 3-D).

The project's rocking block (1 x 2 m, 1 kg, dropped flat from 1 cm) is written
in MJCF with a sphere foot at each bottom corner (one geom per contact, so each
contact's stiffness can be set), read with :mod:`reach.models.mujoco`,
sampled, and simulated in MuJoCo with stiff, strongly damped contacts
(:mod:`reach.analysis.compare.mujoco`) under tiny tilts and per-contact stiffness
ratios.  Prints the containment numbers and writes one figure per model.

Run::

    python examples/mujoco_block_comparison.py [--samples 65536] [--out results/mujoco_block]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from reach import sample_post_impact_set
from reach.models.mujoco import impact_from_mujoco, load_model
from reach.analysis.compare.mujoco import block_mjcf, mujoco_data, sweep
from reach.plotting.mujoco import plot_comparison, plot_contact_planes


def run(spatial, samples, out):
    model = load_model(block_mjcf(spatial=spatial, feet=True)[0])
    _, qpos, qvel = block_mjcf(spatial=spatial, feet=True)
    impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel))
    problem = impact.problem
    result = sample_post_impact_set(problem, samples, 0.3, 10, n_jobs=-1)
    if spatial:
        # one corner stiffer than the rest (each corner in turn), all softer, and a graded pattern
        patterns = [np.where(np.arange(4) == i, 100.0, 1.0) for i in range(4)]
        patterns += [np.where(np.arange(4) == i, 1.0, 100.0) for i in range(4)]
        patterns += [[1.0, 10.0, 100.0, 1000.0], [1.0, 3.0, 10.0, 30.0]]
        tilts = {"about y": ((0, 1, 0), (-0.01, -0.003, 0.003, 0.01)), "about x": ((1, 0, 0), (-0.01, 0.01))}
        comparisons = [sweep(impact, model, result, tilts_deg=angles, tilt_axis=axis, stiffness_ratios=())
                       for axis, angles in tilts.values()]
        comparisons.append(sweep(impact, model, result, tilts_deg=(), stiffness_ratios=(),
                                 stiffness_patterns=patterns))
        labels = [f"tilt {name}" for name in tilts] + ["per-corner stiffness"]
        plot_contact_planes(result, path=out / "block3d_corners.png", title="3-D block: tangential (1) vs normal")
    else:
        result = result.mirror(np.diag([-1.0, 1.0, -1.0]))
        comparisons = [sweep(impact, model, result, tilts_deg=np.linspace(-0.01, 0.01, 11), stiffness_ratios=()),
                       sweep(impact, model, result, tilts_deg=(), stiffness_ratios=np.logspace(-3, 3, 13))]
        labels = ["tilt", "stiffness ratio k_A/k_B"]
    name = "block3d" if spatial else "block2d"
    print(f"\n{name}: {problem}, {len(result)} outcomes in the set")
    for label, comparison in zip(labels, comparisons):
        print(f"  {label:22s} {comparison.summary()}")
        for r, d in zip(comparison.runs, comparison.distances):
            what = f"tilt {np.rad2deg(r.tilt):+.4f} deg" if comparison.kind[0] == "tilt" else f"stiffness {r.stiffness}"
            print(f"      {what:36s} normal velocities {np.round(r.contact_velocities[:, 0], 4)}  distance {d:.2e}")
    for i, comparison in enumerate(comparisons):
        plot_comparison(result, comparison, path=out / f"{name}_mujoco_{i}.png", title=f"{name}: {labels[i]}")
    return comparisons


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2**16)
    parser.add_argument("--out", default="results/mujoco_block")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    return run(False, args.samples, out), run(True, args.samples, out)


if __name__ == "__main__":
    main()
