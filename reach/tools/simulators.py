"""Which outcomes of the set can each simulator produce?  MuJoCo, Drake SAP and the Kelvin–Voigt model against the set.

:func:`compare_simulators` builds the same impact three ways — the planar
modeller's scenario, MuJoCo (:func:`reach.models.mujoco_model.block_mjcf`) and
Drake (:func:`reach.models.drake_model.block_sdf`) — for the rocking block
(planar), the 3-D block and the quadruped of ``examples/``; samples the set;
sweeps each simulator over its perturbations (tilts, per-contact stiffness,
and for SAP also dissipation, time step and hydroelastic contact); and names
every outcome by its per-contact modes (lifts, slides, sticks).  Everything is
computed when it runs: ``reach figures`` writes ``figures/simulators.md`` and
``figures/sap-comparison.png`` from it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reach.analysis.landing import MODE_TOL, contact_modes
from reach.tools.provenance import write_page

__all__ = ["Simulated", "Comparison", "modes", "quadruped_touchdown", "compare_simulators", "comparison_markdown",
           "make_simulator_figures", "EXAMPLES", "TIME_STEPS"]

#: The folder of the example models (the quadruped).
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def modes(contact_velocities, scale, labels, *, tol=MODE_TOL):
    """Name an outcome by its contacts' modes, e.g. ``"A sticks, B lifts"``; ``"rest"`` when all stick."""
    words = contact_modes(contact_velocities, scale, labels, tol=tol)
    return "rest" if all(w.endswith("sticks") for w in words) else ", ".join(words)


@dataclass
class Simulated:
    """One simulator's outcomes of one impact, in the set's contact order and frames."""

    simulator: str
    kinds: list
    contact_velocities: np.ndarray  # (runs, m, 1 + d)
    distances: np.ndarray
    fractions: np.ndarray
    names: list
    energy_ratios: np.ndarray


@dataclass
class Comparison:
    """The set of one impact, its named outcomes, and the simulators' outcomes."""

    label: str
    labels: tuple
    scale: float
    set_names: dict  # name -> share of the set's outcomes
    simulated: list = field(default_factory=list)
    set_points: np.ndarray = None
    time_steps: list = field(default_factory=list)  # (h, contact velocities, fraction) of SAP's tilted run


def _in_frames(cv, source, target):
    """Contact velocities (m, 1 + d) in ``source`` contacts' frames re-expressed in ``target``'s (same order)."""
    out = np.zeros((len(target), 1 + len(target[0].tangents)))
    for i, (row, a, b) in enumerate(zip(cv, source, target)):
        world = row[0] * a.normal + row[1:] @ a.tangents
        out[i] = np.r_[world @ b.normal, b.tangents @ world]
    return out


def _align(source, target, key):
    """Indices of ``source`` contacts in ``target``'s order, matched by ``key(name)``."""
    index = {key(c.name): i for i, c in enumerate(source)}
    return [index[key(c.name)] for c in target]


def _measure(simulator, kinds, cvs, energy, points, scale, labels):
    from reach.sampling.nearest import kd_tree

    cvs = np.asarray(cvs)
    distances = np.atleast_1d(kd_tree(points).query(cvs.reshape(len(cvs), -1))[0])
    return Simulated(simulator, list(kinds), cvs, distances, distances / scale,
                     [modes(cv, scale, labels) for cv in cvs], np.asarray(energy))


def _set_names(result, scale, labels):
    names = [modes(cv, scale, labels) for cv in result.contact_velocities()]
    values, counts = np.unique(names, return_counts=True)
    order = np.argsort(-counts)
    return {str(values[i]): float(counts[i] / len(names)) for i in order}


def _foot(name):
    return next(part for part in name.split("|") if part != "floor")


def _drake_block(spatial, budget, quick):
    import mujoco  # noqa: F401 (the MuJoCo extra)

    from reach import sample_post_impact_set
    from reach.analysis.compare import drake as sap
    from reach.analysis.compare import mujoco as mj
    from reach.models.drake import block_sdf, impact_from_drake, load_plant
    from reach.models.mujoco import impact_from_mujoco, load_model

    sdf, q, v = block_sdf(spatial=spatial)
    system = load_plant(sdf)
    impact = impact_from_drake(system.plant, system.context(q, v))
    problem = impact.problem
    labels = tuple(_foot(c.name)[-1] for c in impact.contacts)
    result = sample_post_impact_set(problem, budget, 0.3, 10, completeness=False)
    scale = float(np.max(np.abs(problem.Jn @ problem.v)))
    points = result.contact_velocities().reshape(len(result), -1)
    comparison = Comparison("3-D block on four corners" if spatial else "rocking block (planar)", labels, scale,
                            _set_names(result, scale, labels), set_points=result.contact_velocities())
    writer = lambda props: block_sdf(spatial=spatial, proximity=props)[0]  # noqa: E731
    tilts = (-0.01, 0.01) if quick else (-0.01, -0.003, 0.003, 0.01)
    ratios = (1e-2, 1e2) if quick else (1e-2, 1e-1, 10.0, 1e2)
    runs = sap.sweep(writer, impact, result, tilts_deg=tilts, stiffness_ratios=ratios,
                     relaxation_times=(0.0, 1e-3, 1e-1), time_steps=(1e-3, 1e-5))
    hydro = [sap.simulate_sap(writer, problem, q, v, settings=sap.SapSettings(contact_model="hydroelastic"), **o)
             for o in (dict(), dict(tilt=np.deg2rad(0.01)), dict(stiffness=[100.0] + [1.0] * (problem.m - 1)))]
    comparison.time_steps = _time_steps(sap, writer, impact, points, scale)
    comparison.simulated.append(_measure(
        "Drake SAP", list(runs.kind) + ["hydroelastic"] * len(hydro),
        [r.contact_velocities for r in runs.runs + hydro], [r.energy_ratio for r in runs.runs + hydro],
        points, scale, labels))
    xml, qpos, qvel = mj.block_mjcf(spatial=spatial, feet=True)
    model = load_model(xml)
    mimpact = impact_from_mujoco(model, mj.mujoco_data(model, qpos, qvel))
    mresult = sample_post_impact_set(mimpact.problem, 256, 0.3, 10, completeness=False)
    msweep = mj.sweep(mimpact, model, mresult, tilts_deg=tilts, stiffness_ratios=ratios)
    order = _align(mimpact.contacts, impact.contacts, _foot)
    cvs = [_in_frames(r.contact_velocities[order], [mimpact.contacts[i] for i in order], impact.contacts)
           for r in msweep.runs]
    energy = [float(r.qvel @ mimpact.problem.M @ r.qvel / (qvel @ mimpact.problem.M @ qvel)) for r in msweep.runs]
    comparison.simulated.insert(0, _measure("MuJoCo", list(msweep.kind), cvs, energy, points, scale, labels))
    if not spatial:
        comparison.simulated.append(_kelvin_voigt(quick, points, scale, labels))
    return comparison


#: Time steps of SAP's convergence study (tilted touchdown, 0.01 degrees).
TIME_STEPS = (1e-3, 3e-4, 1e-4, 3e-5, 1e-5)


def _time_steps(sap, writer, impact, points, scale):
    from reach.sampling.nearest import kd_tree

    tree, rows = kd_tree(points), []
    for h in TIME_STEPS:
        run = sap.simulate_sap(writer, impact.problem, impact.q, impact.v, tilt=np.deg2rad(0.01),
                               settings=sap.SapSettings(time_step=h))
        rows.append((h, run.contact_velocities, float(tree.query(run.contact_velocities.ravel())[0]) / scale))
    return rows


def _kelvin_voigt(quick, points, scale, labels):
    from reach.analysis.compare.compliant import sweep_initial_tilt, sweep_stiffness_ratio

    n = 7 if quick else 21
    sweeps = (sweep_stiffness_ratio(n), sweep_initial_tilt(n))
    cvs, kinds, energy = [], [], []
    for s in sweeps:
        for run in s.runs:
            cvs.append(np.stack([run.normal_velocity, run.tangential_velocity], axis=1))
            kinds.append("stiffness" if s.kind == "ratio" else "tilt")
            energy.append(run.kinetic_post / run.kinetic_pre)
    return _measure("Kelvin–Voigt", kinds, cvs, energy, points, scale, labels)


def quadruped_touchdown():
    """The quadruped of ``examples/`` at the touchdown of ``examples/mujoco_touchdown.py``.

    Returns ``(model, qpos, qvel, feet)``: the MuJoCo model, its touchdown state and the foot geom names.
    """
    from reach.models.mujoco import load_model

    sys.path.insert(0, str(EXAMPLES))
    try:
        from mujoco_touchdown import FEET, touchdown_state
    finally:
        sys.path.remove(str(EXAMPLES))
    model = load_model(str(EXAMPLES / "mujoco_quadruped.xml"))
    qpos, qvel = touchdown_state(model)
    return model, qpos, qvel, FEET


def _quadruped(budget, quick):
    from reach import sample_post_impact_set
    from reach.analysis.compare import drake as sap
    from reach.analysis.compare import mujoco as mj
    from reach.models.drake import impact_from_drake, load_plant, sdf_from_mujoco, state_from_mujoco
    from reach.models.mujoco import impact_from_mujoco

    model, qpos, qvel, FEET = quadruped_touchdown()
    system = load_plant(sdf_from_mujoco(model))
    impact = impact_from_drake(system.plant, state_from_mujoco(system, model, qpos, qvel))
    problem = impact.problem
    labels = tuple(_foot(c.name).split("_")[0] for c in impact.contacts)
    result = sample_post_impact_set(problem, budget, 1.0, 10, completeness=False)
    scale = float(np.max(np.abs(problem.Jn @ problem.v)))
    points = result.contact_velocities().reshape(len(result), -1)
    comparison = Comparison("quadruped touchdown", labels, scale, _set_names(result, scale, labels),
                            set_points=result.contact_velocities())
    writer = lambda props: sdf_from_mujoco(model, dict(zip(FEET, props)))  # noqa: E731
    runs = sap.sweep(writer, impact, result, tilts_deg=(-0.01, 0.01), stiffness_ratios=(1e-2, 1e2),
                     relaxation_times=(0.0, 1e-3, 1e-1), time_steps=(1e-3, 1e-5))
    hydro = [sap.simulate_sap(writer, problem, impact.q, impact.v, **o,
                              settings=sap.SapSettings(contact_model="hydroelastic"))
             for o in (dict(), dict(tilt=np.deg2rad(0.01)), dict(stiffness=[100.0, 1.0, 1.0, 1.0]))]
    comparison.time_steps = _time_steps(sap, writer, impact, points, scale)
    comparison.simulated.append(_measure("Drake SAP", list(runs.kind) + ["hydroelastic"] * len(hydro),
                                         [r.contact_velocities for r in runs.runs + hydro],
                                         [r.energy_ratio for r in runs.runs + hydro], points, scale, labels))
    mimpact = impact_from_mujoco(model, mj.mujoco_data(model, qpos, qvel))
    mresult = sample_post_impact_set(mimpact.problem, 256, 1.0, 10, completeness=False)
    msweep = mj.sweep(mimpact, model, mresult, tilts_deg=(-0.01, 0.01), stiffness_ratios=(1e-1, 10.0) if quick
                      else (1e-2, 1e-1, 10.0, 1e2))
    order = _align(mimpact.contacts, impact.contacts, _foot)
    cvs = [_in_frames(r.contact_velocities[order], [mimpact.contacts[i] for i in order], impact.contacts)
           for r in msweep.runs]
    energy = [float(r.qvel @ mimpact.problem.M @ r.qvel / (qvel @ mimpact.problem.M @ qvel)) for r in msweep.runs]
    comparison.simulated.insert(0, _measure("MuJoCo", list(msweep.kind), cvs, energy, points, scale, labels))
    return comparison


def compare_simulators(*, quick=False, log=print):
    """The comparisons of the rocking block (planar and 3-D) and the quadruped; see the module docstring."""
    budget = 2**11 if quick else 2**14
    out = []
    for label, make in (("rocking block", lambda: _drake_block(False, budget, quick)),
                        ("3-D block", lambda: _drake_block(True, budget, quick)),
                        ("quadruped", lambda: _quadruped(budget, quick))):
        out.append(make())
        log(f"simulators: {label} compared")
    return out


def comparison_markdown(comparisons):
    """``figures/simulators.md``: distances per simulator and perturbation, and the named outcomes each reaches."""
    lines = ["# Which outcomes of the set can each simulator produce?", "",
             "Written by `reach figures` (`reach.tools.simulators`). Distances are to the nearest sampled outcome "
             "of the set, in contact-velocity coordinates, as a fraction of the pre-impact contact speed |vn0|; "
             f"an outcome is named by its contacts' modes (lift or slide beyond {MODE_TOL:g} |vn0|).", ""]
    for c in comparisons:
        lines += [f"## {c.label}", "", f"|vn0| = {c.scale:.4g} m/s.", "",
                  "| simulator | perturbation | runs | distance: median | max | max (m/s) | "
                  "kinetic energy after/before | named outcomes reached |", "|---|---|---:|---:|---:|---:|---:|---|"]
        for s in c.simulated:
            for kind in dict.fromkeys(s.kinds):
                pick = [i for i, k in enumerate(s.kinds) if k == kind]
                reached = "; ".join(sorted({s.names[i] for i in pick}))
                lines.append(f"| {s.simulator} | {kind} | {len(pick)} | {100 * np.median(s.fractions[pick]):.2f} % | "
                             f"{100 * np.max(s.fractions[pick]):.2f} % | {np.max(s.distances[pick]):.2e} | "
                             f"{np.median(s.energy_ratios[pick]):.3f} | "
                             f"{reached} |")
        lines += ["", "| named outcome of the set | share of the set's samples | "
                  + " | ".join(s.simulator for s in c.simulated) + " |",
                  "|---|---:|" + "---|" * len(c.simulated)]
        reached_any = {n for s in c.simulated for n in s.names}
        rest = [share for name, share in c.set_names.items() if share < 0.01 and name not in reached_any]
        for name, share in c.set_names.items():
            if share < 0.01 and name not in reached_any:
                continue
            marks = " | ".join("reached" if name in s.names else "never" for s in c.simulated)
            lines.append(f"| {name} | {100 * share:.1f} % | {marks} |")
        if rest:
            lines.append(f"| {len(rest)} more, each under 1 % | {100 * sum(rest):.1f} % in all | "
                         + " | ".join("never" for _ in c.simulated) + " |")
        outside = sorted(reached_any - set(c.set_names))
        if outside:
            lines.append(f"\nReached by a simulator but by no sampled outcome of the set: {'; '.join(outside)}.")
        lines += ["", "SAP as the time step shrinks (touchdown tilted by 0.01°):", "",
                  "| time step (s) | normal velocities after (m/s) | distance to the set |", "|---:|---|---:|"]
        for h, cv, fraction in c.time_steps:
            lines.append(f"| {h:g} | {', '.join(f'{x:+.4f}' for x in cv[:, 0])} | {100 * fraction:.2f} % |")
        lines.append("")
    return "\n".join(lines)


def make_simulator_figures(out_dir, quick=False, *, log=print, command="reach figures"):
    """``simulators.md`` and ``sap-comparison.png`` (rocking block) and ``sap-comparison-3d.png`` in ``out_dir``.

    Needs the ``[drake]`` and ``[mujoco]`` extras; without them nothing is
    written and the log says why.
    """
    import importlib.util

    missing = [m for m in ("pydrake", "mujoco") if importlib.util.find_spec(m) is None]
    if missing:
        log(f"simulators: skipped ({', '.join(missing)} not installed: pip install 'reach[drake,mujoco]')")
        return []
    from reach.plotting.simulators import plot_simulators

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    comparisons = compare_simulators(quick=quick, log=log)
    table = write_page(out / "simulators.md", comparison_markdown(comparisons), command)
    figures = [plot_simulators(comparisons[0], path=out / "sap-comparison.png"),
               plot_simulators(comparisons[1], path=out / "sap-comparison-3d.png")]
    del figures
    return [table, out / "sap-comparison.png", out / "sap-comparison-3d.png"]
