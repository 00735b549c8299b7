"""``reach bench --simulators``: a whole set against one stiff MuJoCo simulation of the same impact.

A simulator answers an impact with one outcome; ``reach`` answers with the
set of them.  :func:`set_vs_simulation` times both for the rocking block on
two feet (planar) and the 3-D block on four, built from the same MJCF model
(:func:`reach.models.mujoco_model.block_mjcf`):

* **one MuJoCo simulation** of the impact as :func:`reach.analysis.compare.mujoco.simulate_impact`
  runs it (stiff contacts, time step 1/20 of the contact time constant, until
  the contact forces are gone) — Python steps ``mj_step``, so the time includes
  the loop's overhead, which is reported per step beside it;
* **one set** of :data:`SET_SAMPLES` samples of the same impact with the
  default sampler (h = 0.3, N = 10) on one worker, no held-out search (it adds
  1/8).

Both are single-threaded; they run in turns (A B, B A, ...), after a warm-up,
and the medians of CPU and wall time are reported with their ratio.  Issue 14's
targets: the planar set in less time than the simulation, the 3-D set within
5× of it.
"""

from __future__ import annotations

import os
import time

import numpy as np

__all__ = ["set_vs_simulation", "format_set_vs_simulation", "SET_SAMPLES", "SET_TARGETS"]

#: Samples of the timed set.
SET_SAMPLES = 2**14
#: Issue 14's targets: set time / one simulation's time, at most.
SET_TARGETS = {"planar": 1.0, "spatial": 5.0}


def _timed(run):
    t, c = time.perf_counter(), time.process_time()
    out = run()
    return time.perf_counter() - t, time.process_time() - c, out


def set_vs_simulation(*, repeats=3, samples=SET_SAMPLES):
    """Time one stiff MuJoCo simulation and one ``samples``-sample set of the same impact, planar and 3-D.

    Returns a dict per block (``"planar"``, ``"spatial"``): medians of wall and
    CPU seconds of each, their CPU ratio (``set_over_simulation``), the
    simulation's steps and µs per step, and the set's size.
    """
    from reach import sample_post_impact_set
    from reach.analysis.compare.mujoco import block_mjcf, mujoco_data, simulate_impact
    from reach.models.mujoco import impact_from_mujoco, load_model

    report = {}
    for kind in ("planar", "spatial"):
        xml, qpos, qvel = block_mjcf(spatial=kind == "spatial", feet=True)
        model = load_model(xml)
        impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel))
        simulate = lambda: simulate_impact(impact, model)  # noqa: E731
        sample = lambda: sample_post_impact_set(impact.problem, samples, 0.3, 10, n_jobs=1,  # noqa: E731
                                                completeness=False)
        simulate()
        sample_post_impact_set(impact.problem, 256, 0.3, 10, n_jobs=1, completeness=False)  # compiled, loaded
        runs = {"simulation": [], "set": []}
        for r in range(repeats):
            for name in (("simulation", "set") if r % 2 == 0 else ("set", "simulation")):
                wall, cpu, out = _timed(simulate if name == "simulation" else sample)
                runs[name].append((wall, cpu))
                if name == "simulation":
                    steps, ended = out.steps, out.ended
                else:
                    kept = len(out)
        med = {name: np.median(np.array(rows), axis=0) for name, rows in runs.items()}
        report[kind] = {
            "m": impact.problem.m, "lcp_size": impact.problem.lcp_size,
            "simulation_wall_s": float(med["simulation"][0]), "simulation_cpu_s": float(med["simulation"][1]),
            "simulation_steps": int(steps), "simulation_ended": bool(ended),
            "simulation_us_per_step": float(med["simulation"][1] / steps * 1e6),
            "set_wall_s": float(med["set"][0]), "set_cpu_s": float(med["set"][1]),
            "set_samples": int(samples), "set_kept": int(kept),
            "set_over_simulation": float(med["set"][1] / med["simulation"][1]),
            "load_average_1min": os.getloadavg()[0],
        }
    return report


def format_set_vs_simulation(report):
    """The comparison as a Markdown table, with each block against issue 14's target."""
    lines = ["| block | contacts (n) | one MuJoCo simulation, CPU | its steps (µs each) | "
             "set, CPU (samples) | set / simulation | load |", "|---|---:|---:|---:|---:|---:|---:|"]
    for kind, r in report.items():
        lines.append(f"| {kind} | {r['m']} ({r['lcp_size']}) | {r['simulation_cpu_s'] * 1e3:.1f} ms | "
                     f"{r['simulation_steps']:,d} ({r['simulation_us_per_step']:.1f}) | "
                     f"{r['set_cpu_s'] * 1e3:.1f} ms ({r['set_samples']:,d}) | {r['set_over_simulation']:.2f}× | "
                     f"{r['load_average_1min']:.1f} |")
    for kind, r in report.items():
        target = SET_TARGETS[kind]
        verdict = "met" if r["set_over_simulation"] <= target else "MISSED"
        lines.append(f"- [{verdict}] {kind}: the set takes {r['set_over_simulation']:.2f}× one simulation's CPU "
                     f"time (at most {target:g}×, issue 14)")
    return "\n".join(lines)
