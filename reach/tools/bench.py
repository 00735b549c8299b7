"""``reach bench``: speed of the engine against the paper and against a plain NumPy implementation.

For each of the paper's five scenarios, at the paper's h and N:

* **per LCP** — the Routh-step LCP (eq. 75) solved by the jitted kernel
  (:func:`reach.kernels.routh.routh_step_kernel`) on inputs recorded from real
  samples (the ``(v, lambda_max, covering vector)`` of every step Algorithm 1
  took), timed inside a jitted loop in batches with ``time.perf_counter``;
  the figure is the median over batches of the time per solve.  Pivots per
  solve alongside.
* **baseline** — the same steps solved by the plain NumPy Lemke of
  :mod:`reach.tools.lcp_reference` in the same process; the speed-up is the ratio of
  the two medians, and the two solvers' ``v'`` are compared.
* **per sample** — :func:`reach.sample_post_impact_set` (Sobol caps, random
  solution choice: the defaults) on one core and on all cores, samples per
  second and parallel efficiency; LCPs per sample, time per sample and time
  per LCP beside the paper's Table 3 (MATLAB + PATH on a quad-core i5).
* **start-up** — a fresh interpreter importing ``reach`` and sampling once,
  with an empty Numba cache (cold: includes every JIT compile; full mode only,
  where it takes 1.5-2 minutes on two cores) and with the cache filled (warm).
* **memory** — peak RSS of a compass-gait run of 2^20 samples (quick mode:
  2^16) in a fresh process.

Absolute times drift on shared machines; quote the ratios.  Nothing here is
a test: the targets (:data:`TARGETS`) are reported as met or missed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from reach.kernels.replay import solve_steps
from reach.kernels.routh import CHOICE_RANDOM, fill_covering
from reach.kernels.routh_data import make_step_work
from reach.sampling.directed import MIN_DIRECTED
from reach.sampling.caps import draw_caps
from reach.sampling.choice import resolve_choice
from reach.problem.step import kernel_data, step_options
from reach.tools.bench_parallel import TARGETS as PARALLEL_TARGETS, format_parallel, parallel_speedup, run_parallel  # noqa: F401

__all__ = ["run_bench", "format_bench", "compare_solvers", "machine_info", "Recorded", "PAPER_TABLE3", "TARGETS",
           "parallel_speedup", "run_parallel", "format_parallel"]

#: The paper's Table 3: (LCPs per sample, ms per sample, ms per LCP), MATLAB + PATH, quad-core i5.
#: The one copy: ``reach figures`` reads it from here.
PAPER_TABLE3 = {
    "rocking-block": (2.67, 2.1, 0.80),
    "compass-gait": (2.27, 1.9, 0.85),
    "box-wall": (1.97, 1.6, 0.81),
    "ramone": (3.20, 2.2, 0.70),
    "disk-stack": (9.04, 11.0, 1.3),
}

#: Issue 7's targets.
TARGETS = {
    "two_contact_lcp_us": 2.0,          # median per two-contact (n = 10) Routh-step LCP, at most
    "samples_per_s_core": 100_000.0,    # rocking block, box-wall, compass gait, at least
    "disk_samples_per_s_core": 10_000.0,
    "disk_samples_per_s_core_issue_14": 100_000.0,  # issue 14 asks ten times round 1's
    "compass_2_20_wall_s": 20.0,        # 2^20 compass-gait samples on all cores, at most
    "speedup_vs_numpy": 100.0,          # per LCP, at least
    "warm_startup_s": 2.0,              # import + first sample, warm Numba cache, at most
    "parallel_speedup": PARALLEL_TARGETS[2]["disk-stack"],  # issue 39: 2 idle cores over 1, wall clock, at least
}


_MODES = {
    # samples per scenario for the rate runs, recorded steps, NumPy steps, timing passes
    True: dict(samples=2**13, disk_samples=2**10, record=2000, numpy_steps=40, passes=3,
               batch=200, rss_samples=2**16, repeats=1),
    False: dict(samples=2**17, disk_samples=2**14, record=20000, numpy_steps=400, passes=7,
                batch=500, rss_samples=2**20, repeats=3),
}


# ----------------------------------------------------------------------------- measurements
class Recorded:
    """A scenario's kernel data, options, work arrays and recorded steps (V, caps, covering vectors).

    The steps are read off the sampler's stored paths: each row but the last
    of a sample's path is the velocity a step started from; its caps are the
    sample's Sobol caps, its covering vector the one the sampler's first try
    draws.  (The closing step of a sample that did not terminate is left out.)
    """

    def __init__(self, scenario, count, seed=0):
        from reach import sample_post_impact_set

        p = scenario.problem
        self.data = kernel_data(p)
        self.options = step_options(p, h=scenario.h, choice=CHOICE_RANDOM, seed=seed)
        self.work = make_step_work(p.lcp_size, p.m, p.nv)
        self.n = p.lcp_size
        samples = max(64, count)  # every sample takes at least one step
        run = sample_post_impact_set(p, samples, scenario.h, scenario.N, seed=seed, keep_paths=samples,
                                     strategy="uniform", caps="uniform", completeness=False)
        P = draw_caps(p.m, scenario.N, 0, samples, seed=seed)
        V, lam, d = [], [], []
        for s, path in enumerate(run.paths):
            steps = min(len(path) - 1, scenario.N)  # a path's row N + 1, if any, is the closing step
            for j in range(steps):
                cover = np.empty(self.n)
                fill_covering(cover, CHOICE_RANDOM, self.options.covering_ratio, seed, s, j, 0)
                V.append(path[j])
                lam.append(self.options.h * P[s, j])
                d.append(cover)
        self.V, self.lam, self.d = (np.ascontiguousarray(np.array(a)[:count]) for a in (V, lam, d))


def _time_lcp(rec, *, passes, batch):
    """Median over batches of the jitted per-solve time (s), pivots per solve, v' and statuses."""
    K = rec.V.shape[0]
    V_next = np.empty_like(rec.V)
    status = np.empty(K, dtype=np.int64)
    args = (rec.data, rec.options, rec.work, rec.V, rec.lam, rec.d)
    pivots = solve_steps(*args, 0, K, V_next, status)  # warm up, and the answers
    per_solve = [np.nan]
    if passes:
        per_solve = []
    for _ in range(passes):
        for start in range(0, K, batch):
            stop = min(K, start + batch)
            t = time.perf_counter()
            solve_steps(*args, start, stop, V_next, status)
            per_solve.append((time.perf_counter() - t) / (stop - start))
    return float(np.median(per_solve)), pivots / K, V_next, status


def _time_numpy(rec, count):
    """Per-solve times (s) of the NumPy baseline on the first ``count`` steps, and its v'."""
    from reach.tools.lcp_reference import routh_step_reference

    count = min(count, rec.V.shape[0])
    times, V_next, status = [], np.empty((count, rec.V.shape[1])), np.empty(count, dtype=np.int64)
    for k in range(count):
        t = time.perf_counter()
        V_next[k], _, status[k], _ = routh_step_reference(rec.data, rec.V[k], rec.lam[k], rec.d[k])
        times.append(time.perf_counter() - t)
    return float(np.median(times)), V_next, status


def compare_solvers(scenario, count=200, seed=0):
    """Jitted vs NumPy Routh steps on ``count`` recorded steps of ``scenario``.

    Returns a dict: ``steps``, ``max_rel_diff`` (of v', relative to max ``|v|``),
    ``status_agree`` (bool), ``jit_solved``, ``numpy_solved``.
    """
    rec = Recorded(scenario, count, seed)
    _, _, V_jit, st_jit = _time_lcp(rec, passes=0, batch=1)
    _, V_np, st_np = _time_numpy(rec, rec.V.shape[0])
    return _agreement(rec.V, V_jit, st_jit, V_np, st_np)


def _agreement(V, V_jit, st_jit, V_np, st_np):
    k = V_np.shape[0]
    both = (st_jit[:k] == 0) & (st_np == 0)
    scale = max(np.abs(V).max(), 1e-300)
    diff = float(np.abs(V_jit[:k][both] - V_np[both]).max(initial=0.0) / scale)
    return {"steps": int(k), "max_rel_diff": diff, "status_agree": bool(np.all(st_jit[:k] == st_np)),
            "jit_solved": int(np.sum(st_jit[:k] == 0)), "numpy_solved": int(np.sum(st_np == 0))}


def _sample_rate(scenario, n, *, n_jobs, repeats):
    """Samples per second of :func:`reach.sample_post_impact_set`, wall and CPU (medians of ``repeats``), LCPs/sample.

    CPU time is this process's, plus the workers' time in the chunks when
    they run elsewhere (``n_jobs != 1``): per core, it is what a shared
    machine's other work does not inflate.
    """
    from reach import sample_post_impact_set

    p = scenario.problem
    chunk = max(1024, min(16384, n // (4 * max(1, n_jobs))))
    options = dict(chunk_size=chunk, n_jobs=n_jobs, completeness=False)  # the sampler alone
    sample_post_impact_set(p, min(n, 4 * chunk), scenario.h, scenario.N, **options)
    rates, cpu_rates = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        result = sample_post_impact_set(p, n, scenario.h, scenario.N, **options)
        cpu = time.process_time() - c + (result.metadata["cpu_seconds"] if n_jobs != 1 else 0.0)
        rates.append(n / (time.perf_counter() - t))
        cpu_rates.append(n / cpu)
    return float(np.median(rates)), float(np.median(cpu_rates)), float(np.mean(result.lcp_solves))


def choice_cost(scenario, n, *, repeats, strategies=("directed", "uniform")):
    """CPU µs per sample of ``"exact"`` (the default) and ``"random"`` choice, serial, alternating runs.

    For each strategy (the default directed sampling, and the paper's uniform
    caps) the two choices run in turns (A B, B A, ...) so that a shared
    machine's drift falls on both; medians of ``repeats`` runs each.
    """
    from reach import sample_post_impact_set

    p = scenario.problem
    rows = {}
    for strategy in strategies:
        options = dict(completeness=False, backend="serial", strategy=strategy,
                       caps="uniform" if strategy == "uniform" else "mixed")
        times = {"random": [], "exact": []}
        for choice in times:
            sample_post_impact_set(p, 256, scenario.h, scenario.N, solution_choice=choice, **options)  # compiled
        for r in range(repeats):
            for choice in (("random", "exact") if r % 2 == 0 else ("exact", "random")):
                t = time.process_time()
                sample_post_impact_set(p, n, scenario.h, scenario.N, solution_choice=choice, **options)
                times[choice].append((time.process_time() - t) / n * 1e6)
        random_us, exact_us = float(np.median(times["random"])), float(np.median(times["exact"]))
        rows[strategy] = {"random_us": random_us, "exact_us": exact_us, "ratio": exact_us / random_us}
    return rows


_STARTUP = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import reach, scenarios
t1 = time.perf_counter()
sc = scenarios.get("compass-gait")
n = int(sys.argv[1])
t2 = time.perf_counter()
r = reach.sample_post_impact_set(sc.problem, n, sc.h, sc.N, completeness=False)
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_sample_s": t3 - t2, "total_s": t3 - t0,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
"""


def _subprocess(n, cache_dir=None):
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    cmd = [sys.executable, "-c", _STARTUP, str(n)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return _collect(proc)


def _collect(proc):
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed:\n{err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def machine_info():
    """CPU model, core count, load average and library versions of this machine (for a report)."""
    model = platform.processor() or platform.machine()
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in text.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return {"cpu": model, "cores": os.cpu_count(), "load_average_1min": os.getloadavg()[0],
            "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "platform": platform.platform()}


def _auto_exact(scenario):
    """Whether the default solution choice is exact on a scenario (at its own h and N)."""
    return resolve_choice(scenario.problem, "auto", scenario.h, scenario.N) == "exact"


def run_bench(quick=False):
    """Run the benchmark; returns a JSON-able report (see :func:`format_bench`).

    ``quick`` uses small sample counts and leaves the cold start out (its
    compile alone takes longer than the rest of a quick run); full mode (a few
    minutes) is what the README quotes.
    """
    import scenarios

    cfg = _MODES[bool(quick)]
    cores = os.cpu_count() or 1
    t_start = time.perf_counter()
    report = {"mode": "quick" if quick else "full", "machine": machine_info(), "settings": dict(cfg),
              "targets": dict(TARGETS), "scenarios": {}}
    # the cold compile runs alone, first: never beside a measurement
    cold = None if quick else _subprocess(1, tempfile.mkdtemp(prefix="reach-bench-numba-"))
    for name in scenarios.names():
        sc = scenarios.get(name)
        rec = Recorded(sc, cfg["record"])
        V = rec.V
        lcp_s, pivots, V_jit, st_jit = _time_lcp(rec, passes=cfg["passes"], batch=cfg["batch"])
        numpy_s, V_np, st_np = _time_numpy(rec, cfg["numpy_steps"])
        n = cfg["disk_samples"] if name == "disk-stack" else cfg["samples"]
        rate1, cpu_rate1, lcps = _sample_rate(sc, n, n_jobs=1, repeats=cfg["repeats"])
        paper = PAPER_TABLE3[name]
        report["scenarios"][name] = {
            "m": sc.problem.m, "lcp_size": rec.n, "h": sc.h, "N": sc.N,
            "lcp_us": lcp_s * 1e6, "pivots_per_lcp": pivots, "lcp_steps_timed": int(V.shape[0]),
            "numpy_lcp_us": numpy_s * 1e6, "speedup_vs_numpy": numpy_s / lcp_s,
            "agreement": _agreement(V, V_jit, st_jit, V_np, st_np),
            "samples_timed": n, "samples_per_s_1core": rate1, "samples_per_s_1core_cpu": cpu_rate1,
            "lcps_per_sample": lcps, "us_per_sample": 1e6 / rate1, "us_per_lcp_in_sampling": 1e6 / rate1 / lcps,
            "paper_lcps_per_sample": paper[0], "paper_ms_per_sample": paper[1], "paper_ms_per_lcp": paper[2],
            "speedup_vs_paper_per_sample": paper[1] * 1e3 * rate1 / 1e6,
            "sampler": "sample_post_impact_set",
        }
    for name in scenarios.names():  # all cores
        sc = scenarios.get(name)
        row = report["scenarios"][name]
        rate_all, _, _ = _sample_rate(sc, row["samples_timed"] * cores, n_jobs=-1, repeats=cfg["repeats"])
        row["samples_per_s_all"] = rate_all
        row["parallel_efficiency"] = rate_all / (cores * row["samples_per_s_1core"])
    report["parallel"] = run_parallel(quick)
    if importlib.util.find_spec("mujoco") is not None:  # the [mujoco] extra
        from reach.tools.bench_simulators import set_vs_simulation

        report["simulators"] = set_vs_simulation(repeats=1 if quick else 3, samples=2**12 if quick else 2**14)
    report["choice"] = {name: choice_cost(scenarios.get(name), cfg["samples"] // 4, repeats=cfg["passes"])
                        for name in scenarios.names() if _auto_exact(scenarios.get(name))}
    # make sure the normal cache is filled, directed rounds' kernels included (a run of one sample has none):
    # the peak-memory run below must not compile, or LLVM's memory is counted
    _subprocess(2 * MIN_DIRECTED)
    warm = _subprocess(1)
    report["startup"] = {"cold_compile_s": cold and cold["total_s"], "cold_first_sample_s": cold and cold["first_sample_s"],
                         "warm_total_s": warm["total_s"], "warm_import_s": warm["import_s"],
                         "warm_first_sample_s": warm["first_sample_s"],
                         "cold_concurrent_with_measurements": False}
    # memory and the compass-gait 2^20 wall time
    rss = _subprocess(cfg["rss_samples"])
    compass = scenarios.get("compass-gait")
    if quick:
        wall = 2**20 / report["scenarios"]["compass-gait"]["samples_per_s_all"]
    else:
        from reach import sample_post_impact_set

        t = time.perf_counter()
        sample_post_impact_set(compass.problem, 2**20, compass.h, compass.N, n_jobs=-1, completeness=False)
        wall = time.perf_counter() - t
    report["memory"] = {"samples": cfg["rss_samples"], "peak_rss_mb": rss["peak_rss_mb"],
                        "serial_run_s": rss["first_sample_s"]}
    report["compass_2_20"] = {"wall_s": wall, "cores": cores, "estimated": bool(quick)}
    report["targets_met"] = _targets_met(report)
    report["bench_seconds"] = time.perf_counter() - t_start
    report["machine"]["load_average_1min_end"] = os.getloadavg()[0]
    return report


def _targets_met(report):
    rows = report["scenarios"]
    two = [r for r in rows.values() if r["lcp_size"] == 10]
    return {
        "two_contact_lcp_us": max(r["lcp_us"] for r in two) <= TARGETS["two_contact_lcp_us"],
        "samples_per_s_core": min(rows[k]["samples_per_s_1core"] for k in ("rocking-block", "box-wall",
                                                                           "compass-gait"))
        >= TARGETS["samples_per_s_core"],
        "disk_samples_per_s_core": rows["disk-stack"]["samples_per_s_1core"] >= TARGETS["disk_samples_per_s_core"],
        "disk_samples_per_s_core_issue_14": rows["disk-stack"]["samples_per_s_1core_cpu"]
        >= TARGETS["disk_samples_per_s_core_issue_14"],
        "compass_2_20_wall_s": report["compass_2_20"]["wall_s"] <= TARGETS["compass_2_20_wall_s"],
        "speedup_vs_numpy": min(r["speedup_vs_numpy"] for r in two) >= TARGETS["speedup_vs_numpy"],
        "warm_startup_s": report["startup"]["warm_total_s"] <= TARGETS["warm_startup_s"],
        "parallel_speedup": min(r["speedup"] for r in report["parallel"].values()) >= TARGETS["parallel_speedup"],
    }


def format_bench(report):
    """The report as readable tables (Markdown)."""
    m = report["machine"]
    lines = [f"reach bench ({report['mode']}) — {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
             f"NumPy {m['numpy']}, Numba {m['numba']}; 1-min load average {m['load_average_1min']:.1f} at the "
             f"start, {m.get('load_average_1min_end', float('nan')):.1f} at the end (above 0 = other work "
             "shares the cores: quote the ratios)", ""]
    lines += ["Per Routh-step LCP (median over batches, jitted loop) vs the plain NumPy Lemke, same inputs:", "",
              "| scenario | m | n | pivots/LCP | jit µs/LCP | NumPy µs/LCP | speed-up | max rel. Δv' |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in report["scenarios"].items():
        lines.append(f"| {name} | {r['m']} | {r['lcp_size']} | {r['pivots_per_lcp']:.2f} | {r['lcp_us']:.2f} | "
                     f"{r['numpy_lcp_us']:.0f} | {r['speedup_vs_numpy']:.0f}× | "
                     f"{r['agreement']['max_rel_diff']:.1e} |")
    lines += ["", "Sampling (sample_post_impact_set, Sobol, defaults) beside the paper's Table 3 "
              "(MATLAB + PATH, quad-core i5):", "",
              "| scenario | LCPs/sample (paper) | µs/sample (paper) | µs/LCP (paper) | samples/s 1 core, wall (CPU) | "
              f"samples/s {m['cores']} cores | par. eff. | × paper/sample |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in report["scenarios"].items():
        lines.append(f"| {name} | {r['lcps_per_sample']:.2f} ({r['paper_lcps_per_sample']:.2f}) | "
                     f"{r['us_per_sample']:.1f} ({r['paper_ms_per_sample'] * 1e3:.0f}) | "
                     f"{r['us_per_lcp_in_sampling']:.2f} ({r['paper_ms_per_lcp'] * 1e3:.0f}) | "
                     f"{r['samples_per_s_1core']:,.0f} ({r.get('samples_per_s_1core_cpu', float('nan')):,.0f}) | "
                     f"{r['samples_per_s_all']:,.0f} | "
                     f"{r['parallel_efficiency']:.2f} | {r['speedup_vs_paper_per_sample']:.0f}× |")
    s, mem, cg = report["startup"], report["memory"], report["compass_2_20"]
    note = " (ran beside other measurements)" if s["cold_concurrent_with_measurements"] else ""
    cold = "not measured (full mode only)" if s["cold_compile_s"] is None else f"{s['cold_compile_s']:.1f} s{note}"
    lines += ["", f"Start-up (fresh process: import reach + 1 compass-gait sample): cold Numba cache "
              f"{cold}; warm {s['warm_total_s']:.2f} s "
              f"(import {s['warm_import_s']:.2f} s, first sample {s['warm_first_sample_s']:.2f} s).",
              f"Peak RSS of a {mem['samples']:,}-sample compass-gait run (serial, fresh process): "
              f"{mem['peak_rss_mb']:.0f} MB ({mem['serial_run_s']:.1f} s).",
              f"Compass gait 2^20 samples on {cg['cores']} cores: {cg['wall_s']:.1f} s wall"
              + (" (estimated from the all-core rate)" if cg["estimated"] else "") + ".", "",
              "Exact solution choice (the default on planar problems with up to 3 contacts, and with 4 or 5 "
              "where cheap) against random covering vectors: CPU µs per sample, one core, alternating runs, "
              "medians:", "",
              "| scenario | sampling | random | exact | exact × random |", "|---|---|---:|---:|---:|"]
    for name, per in report.get("choice", {}).items():
        for strategy, r in per.items():
            label = "directed (default)" if strategy == "directed" else "paper (uniform caps)"
            lines.append(f"| {name} | {label} | {r['random_us']:.1f} | {r['exact_us']:.1f} | {r['ratio']:.2f} |")
    if "parallel" in report:
        lines += ["", "Parallel speed-up (default sampler, alternating runs, medians):", "",
                  format_parallel(report["parallel"], verdicts=False)]
    if "simulators" in report:
        from reach.tools.bench_simulators import format_set_vs_simulation

        lines += ["", "A set against one stiff MuJoCo simulation of the same impact (CPU, alternating, medians):",
                  "", format_set_vs_simulation(report["simulators"])]
    lines += ["", "Targets (issue 7):"]
    t, met = report["targets"], report["targets_met"]
    rows = report["scenarios"]
    two = max(r["lcp_us"] for r in rows.values() if r["lcp_size"] == 10)
    slow3 = min(rows[k]["samples_per_s_1core"] for k in ("rocking-block", "box-wall", "compass-gait"))
    figures = {
        "two_contact_lcp_us": f"worst two-contact median {two:.2f} µs (≤ {t['two_contact_lcp_us']} µs)",
        "samples_per_s_core": f"slowest of block/box-wall/compass {slow3:,.0f}/s/core (≥ {t['samples_per_s_core']:,.0f})",
        "disk_samples_per_s_core": f"disk stack {rows['disk-stack']['samples_per_s_1core']:,.0f}/s/core "
                                   f"(≥ {t['disk_samples_per_s_core']:,.0f})",
        "disk_samples_per_s_core_issue_14":
            f"disk stack {rows['disk-stack'].get('samples_per_s_1core_cpu', 0):,.0f}/s/core, CPU "
            f"(≥ {t.get('disk_samples_per_s_core_issue_14', 0):,.0f}, issue 14)",
        "compass_2_20_wall_s": f"compass gait 2^20 in {cg['wall_s']:.1f} s (≤ {t['compass_2_20_wall_s']:.0f} s)",
        "speedup_vs_numpy": f"smallest two-contact speed-up {min(r['speedup_vs_numpy'] for r in rows.values() if r['lcp_size'] == 10):.0f}× "
                            f"(≥ {t['speedup_vs_numpy']:.0f}×)",
        "warm_startup_s": f"warm start-up {s['warm_total_s']:.2f} s (≤ {t['warm_startup_s']:.0f} s)",
        "parallel_speedup": "slowest parallel speed-up " + ", ".join(
            f"{name} {r['speedup']:.2f}×" for name, r in report["parallel"].items())
        + f" on {m['cores']} cores (≥ {t['parallel_speedup']}× on 2, issue 39)",
    }
    for key, text in figures.items():
        if key in met:  # (a report from before a target was set does not judge it)
            lines.append(f"- [{'met' if met[key] else 'MISSED'}] {text}")
    lines.append(f"\n(bench took {report['bench_seconds']:.0f} s)")
    return "\n".join(lines)
