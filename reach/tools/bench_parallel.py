"""``reach bench --parallel``: the default sampler's speed-up on all cores over one.

:func:`parallel_speedup` runs a case's samples on one worker and on all of
them, in turns, and reports the medians of wall time, the parent's CPU time,
the wall time of the directed rounds' selection (the serial part: the workers
wait) and the workers' kernel CPU time, with each alternating pair's own
speed-up beside the median's: on a shared host the pairs show the noise.
:func:`run_parallel` measures the cases of :data:`CASES` (issue 39's sizes: a
cheap planar problem, a costly one, and a spatial one at two budgets) and
:func:`format_parallel` sets each against its target for the worker count
(:data:`TARGETS`).
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

import numpy as np

__all__ = ["CASES", "TARGETS", "Case", "parallel_speedup", "run_parallel", "format_parallel", "target"]


class Case(NamedTuple):
    """One parallel benchmark: a problem, its step size and trajectory length, and the samples a run."""

    problem: object
    h: float
    N: int
    samples: int


#: (label, samples) of the parallel runs: issue 39's sizes.
CASES = (("compass-gait", 2**20), ("disk-stack", 2**18), ("quadruped", 2**16), ("quadruped", 2**18))
#: Issue 39's targets, wall-clock speed-up over one worker: on 2 idle cores, every case; on 16, by case.
TARGETS = {2: {label: 1.85 for label, _ in CASES},
           16: {("compass-gait", 2**20): 10.0, ("disk-stack", 2**18): 12.0, ("quadruped", 2**16): 8.0,
                ("quadruped", 2**18): 12.0}}


def target(label, samples, workers):
    """Issue 39's target speed-up for a case on ``workers`` workers, or None where it sets none."""
    goals = TARGETS.get(workers, {})
    return goals.get((label, samples), goals.get(label))


def parallel_speedup(case, n, *, repeats, workers=None):
    """Wall-clock speed-up of the default sampler on all cores over one, alternating runs, medians.

    One-worker and all-worker runs of ``n`` samples (the default directed
    sampling, no held-out search) take turns (1 W, W 1, ...) so that a shared
    machine's drift falls on both.  Reported beside the wall times: the
    parent's CPU seconds (directed rounds' parent selection, dispatch), the
    wall seconds of the selection between phases (the serial part: the
    workers wait) and the workers' kernel CPU seconds summed over chunks,
    which show whether the cores slowed each other down (shared caches, a
    busy host).
    """
    from reach import sample_post_impact_set

    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    p = case.problem
    options = dict(completeness=False)
    sample_post_impact_set(p, 4096, case.h, case.N, n_jobs=workers, **options)  # compile, start the pool
    runs = {1: [], workers: []}
    for r in range(repeats):
        for jobs in ((1, workers) if r % 2 == 0 else (workers, 1)):
            t, c = time.perf_counter(), time.process_time()
            result = sample_post_impact_set(p, n, case.h, case.N, n_jobs=jobs, **options)
            runs[jobs].append((time.perf_counter() - t, time.process_time() - c, result.metadata["cpu_seconds"],
                               result.metadata["selection_seconds"]))
    median = {jobs: np.median(np.array(rows), axis=0) for jobs, rows in runs.items()}
    (w1, _, k1, _), (wn, parent_n, kn, select_n) = median[1], median[workers]
    pairs = [a[0] / b[0] for a, b in zip(runs[1], runs[workers])]  # each alternating pair's own speed-up
    return {"samples": int(n), "workers": workers, "wall_1_s": float(w1), "wall_all_s": float(wn),
            "speedup": float(w1 / wn), "speedup_pairs": [float(x) for x in pairs],
            "efficiency": float(w1 / wn / workers),
            "kernel_cpu_1_s": float(k1), "kernel_cpu_all_s": float(kn), "parent_cpu_all_s": float(parent_n),
            "selection_wall_all_s": float(select_n),
            "load_average_1min": os.getloadavg()[0]}


def run_parallel(quick=False):
    """Parallel speed-up of every case of :data:`CASES` (:func:`parallel_speedup`); ``quick``: 2^14 samples, once."""
    import scenarios
    from reach.examples import quadruped_touchdown

    problems = {name: scenarios.get(name) for name in ("compass-gait", "disk-stack")}
    problems["quadruped"] = Case(quadruped_touchdown(), 1.0, 10, 2**16)
    report = {}
    for label, n in CASES:
        n = 2**14 if quick else n
        key = f"{label} 2^{n.bit_length() - 1}"
        if key not in report:
            report[key] = dict(parallel_speedup(problems[label], n, repeats=1 if quick else 3), case=label)
            print(f"{key}: {report[key]['speedup']:.2f}× on {report[key]['workers']} workers "
                  f"({report[key]['wall_1_s']:.2f} s / {report[key]['wall_all_s']:.2f} s)", flush=True)
    return report


def _spread(pairs):
    """`` (1.58–1.71)``: the range of the alternating pairs' own speed-ups, when recorded."""
    return f" ({min(pairs):.2f}–{max(pairs):.2f})" if pairs and len(pairs) > 1 else ""


def format_parallel(report, *, verdicts=True):
    """The parallel section as a Markdown table (and, with ``verdicts``, each scenario against the target)."""
    lines = ["| scenario | samples | workers | wall, 1 worker | wall, all | speed-up | kernel CPU 1 / all | "
             "parent CPU (all) | selection wall (all) | load |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in report.items():
        lines.append(f"| {name} | {r['samples']:,d} | {r['workers']} | {r['wall_1_s']:.2f} s | "
                     f"{r['wall_all_s']:.2f} s | {r['speedup']:.2f}×{_spread(r.get('speedup_pairs'))} | "
                     f"{r['kernel_cpu_1_s']:.2f} / {r['kernel_cpu_all_s']:.2f} s | {r['parent_cpu_all_s']:.2f} s | "
                     f"{r.get('selection_wall_all_s', float('nan')):.2f} s | {r['load_average_1min']:.1f} |")
    for name, r in report.items() if verdicts else ():
        goal = target(r.get("case", name), r["samples"], r["workers"])
        if goal is None:
            lines.append(f"- [no target] {name}: {r['speedup']:.2f}× on {r['workers']} workers "
                         "(issue 39 sets targets on 2 and 16 cores)")
        else:
            lines.append(f"- [{'met' if r['speedup'] >= goal else 'MISSED'}] {name}: {r['speedup']:.2f}× on "
                         f"{r['workers']} workers (≥ {goal}×, issue 39)")
    return "\n".join(lines)
