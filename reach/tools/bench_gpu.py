"""``reach bench --gpu``: samples a second on the GPU against one CPU core, and how closely the two agree.

For each case (a two-contact planar problem, the five-contact disk stack and the
spatial quadruped touchdown, LCP sizes 10 to 44) :func:`gpu_case` measures, in
one process:

* the kernel's compile time (the first launch), its registers and local
  bytes a thread;
* GPU samples a second over batches of 2^20 and 2^22 uniform samples
  (``strategy="uniform"``, random choice, wall time of the engine's run), and
  the kernel's own seconds in it (each thread draws its caps);
* first choice (the covering vector of ones, the direct port's path) at the
  last batch size (issue 40's direct port was timed at 2^22), and where the
  LCP is large the kernel's rate compiled with each of :data:`TUNING_SWEEP`'s
  options;
* one CPU core's samples a second on a smaller batch, in CPU time;
* their ratio, and the rate of the default directed sampling on the GPU
  (selection between rounds included: it runs on the CPU), alone and with
  every core but one beside it (``backend="cuda+cpu"``);
* agreement on the same samples: the kept flags, statuses and LCP counts
  must be identical, and the largest velocity difference is reported
  relative to ``max |v|`` (issue 40 asks at most 1e-12; CUDA's ``exp`` and
  ``log`` are not the C library's).

:func:`end_to_end` times issue 40's end-to-end case (a 2^20-sample quadruped
set with its held-out estimate).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["GPU_CASES", "AGREEMENT_TOL", "LAYOUT_LCPS", "gpu_case", "problem_case", "kernel_resources", "recorded_lcps", "lemke_layouts",
           "run_gpu", "format_gpu", "format_layouts", "launch_summary", "SMALL_LAUNCH"]

#: (label, GPU batches, CPU batch) of the GPU runs; the quadruped's LCP has size 44.
GPU_CASES = (("rocking-block", (2**20, 2**22), 2**16), ("disk-stack", (2**20, 2**22), 2**14),
             ("quadruped", (2**20, 2**22), 2**13))
#: Issue 40's bound on a kept sample's velocity difference, relative to ``max |v|``.
AGREEMENT_TOL = 1e-12
#: Compile options tried by :func:`_tuning_sweep` where the LCP has at least :data:`TUNED_MIN_N` rows, beside
#: the default (:func:`reach.kernels.device.jit_options`: 80 registers there).  None now: no cap and caps of 64-128
#: were swept on an H200 (``bench/register-caps-h200.log``; ``PARTS=caps bash bench/device.sh`` sweeps them
#: again), and a device's minutes go to the kernel's schedules and stages instead.  (Measured before, on an H200:
#: 32-256 threads a block within 10 %, the dense tableau 2-2.3x slower than the revised method, the unified cache
#: given to L1 no faster; docs/performance.md.)
TUNING_SWEEP = ()
#: Smallest LCP size :func:`gpu_case` runs :data:`TUNING_SWEEP` at.
TUNED_MIN_N = 20
#: LCPs a batch of :func:`lemke_layouts` (recorded ones, repeated).
LAYOUT_LCPS = 2**18
#: The end-to-end case of issue 40: a quadruped set of this many samples with its held-out estimate.
END_TO_END_SAMPLES = 2**20
#: A launch of fewer samples counts as small in :func:`launch_summary`: under a third of the about 10^5 threads
#: an H200 holds at once at 80 registers a thread.
SMALL_LAUNCH = 2**15


def problem_case(label):
    """``(problem, h, N)`` of a scenario by name, or of ``"quadruped"`` (the packaged touchdown of
    ``examples/mujoco_touchdown.py``, h = 1, N = 10): the problems the benches and references use."""
    if label == "quadruped":
        from reach.examples import quadruped_touchdown

        return quadruped_touchdown(), 1.0, 10
    import scenarios

    s = scenarios.get(label)
    return s.problem, s.h, s.N


def _timed(problem, n, h, N, **options):
    """A set of ``n`` samples and the device's kernel/transfer seconds inside it (``DEVICE_SECONDS``' growth)."""
    from reach import sample_post_impact_set
    from reach.sampling.gpu import DEVICE_SECONDS

    before = dict(DEVICE_SECONDS)
    result = sample_post_impact_set(problem, n, h, N, **options)
    return result, {k: DEVICE_SECONDS[k] - before[k] for k in before}


def _rates(problem, n, h, N, options):
    """Samples a second of a uniform GPU run of ``n`` samples: wall, and the kernel's own."""
    result, device = _timed(problem, n, h, N, backend="cuda", strategy="uniform", **options)
    wall = result.metadata["wall_seconds"]
    return {"samples": n, "samples_per_s": n / wall, "kernel_samples_per_s": n / max(device["kernel"], 1e-12)}


def _tuning_sweep(problem, n, h, N, options, variants):
    """The kernel's samples a second compiled with each of ``variants`` (:data:`TUNING_SWEEP`'s), the default
    (:data:`reach.kernels.device.JIT_OPTIONS`) restored after."""
    from reach.kernels import device as kernels_device

    default = kernels_device.JIT_OPTIONS
    found = {}
    try:
        for variant in variants:
            kernels_device.JIT_OPTIONS = variant
            found[", ".join(f"{k}={v}" for k, v in variant) or "no register cap"] = _rates(problem, n, h, N, options)["kernel_samples_per_s"]
    finally:
        kernels_device.JIT_OPTIONS = default
    return found


def kernel_resources(n):
    """Registers and local (stack) bytes a thread of the compiled kernels for LCP size ``n`` (where Numba says)."""
    from reach.kernels import device as kernels_device

    found = {}
    for key, kernel in kernels_device.compiled_kernels():
        if key.n != n:
            continue
        name = (f"{(key.modes, key.certify)} caps {'host' if key.N is None else 'drawn'}"
                f"{', tableau' if key.tableau else ''}{f', {key.options}' if key.options else ''}"
                f"{f', {key.schedule}' if key.schedule != 'thread' else ''}")
        try:
            regs, local = kernel.get_regs_per_thread(), kernel.get_local_mem_per_thread()
            one = (lambda v: max(v.values()) if isinstance(v, dict) else v)  # keyed by signature: one here
            found[name] = {"registers": int(one(regs)), "local_bytes": int(one(local))}
        except Exception as exc:  # the simulator has neither
            found[name] = {"unknown": type(exc).__name__}
    return found


def _agreement(problem, h, N, agree, common):
    """Issue 40's item 2 on ``agree`` samples: identical flags and counts, the largest relative velocity gap."""
    from reach import sample_post_impact_set

    a = sample_post_impact_set(problem, agree, h, N, n_jobs=1, strategy="uniform", **common)
    b = sample_post_impact_set(problem, agree, h, N, backend="cuda", strategy="uniform", **common)
    same = {f: bool(np.array_equal(getattr(a, f), getattr(b, f))) for f in ("kept", "sample_status", "lcp_solves")}
    both = a.kept & b.kept
    scale = max(float(np.abs(a.all_velocities[both]).max(initial=0.0)), 1e-300)
    gap = float(np.abs(a.all_velocities[both] - b.all_velocities[both]).max(initial=0.0)) / scale
    return {"agreement_samples": agree, "identical": same, "max_relative_gap": gap,
            "agrees": all(same.values()) and gap <= AGREEMENT_TOL}


def gpu_case(label, gpu_samples, cpu_samples, *, agree=2**14):
    """GPU against one CPU core for one case (see the module docstring); a dict of measurements.

    ``gpu_samples``: one batch size or several; each is run uniformly (its
    samples a second, and the kernel's share of the wall time), the first also
    with the default directed sampling.
    """
    from reach import sample_post_impact_set

    sizes = (gpu_samples,) if np.isscalar(gpu_samples) else tuple(gpu_samples)
    problem, h, N = problem_case(label)
    common = dict(completeness=False, solution_choice="random", keep_paths=0)
    t = time.perf_counter()
    sample_post_impact_set(problem, 256, h, N, backend="cuda", strategy="uniform", **common)
    compile_s = time.perf_counter() - t
    resources = kernel_resources(problem.lcp_size)
    runs = []
    for n in sizes:
        gpu, device = _timed(problem, n, h, N, backend="cuda", strategy="uniform", **common)
        wall = gpu.metadata["wall_seconds"]
        runs.append({"samples": n, "wall_s": wall, "samples_per_s": n / wall, "kernel_s": device["kernel"],
                     "transfer_s": device["transfer"], "upload_s": device["upload"], "download_s": device["download"],
                     "setup_s": device["setup"],
                     "host_s": wall - device["kernel"] - device["transfer"] - device["setup"],
                     "kernel_samples_per_s": n / max(device["kernel"], 1e-12)})
        print(f"  {label} 2^{n.bit_length() - 1}: {n / wall:,.0f} samples/s ({wall:.2f} s wall, kernel "
              f"{device['kernel']:.2f} s, transfers {device['upload']:.2f} + {device['download']:.2f} s, setup "
              f"{device['setup']:.2f} s, the rest {runs[-1]['host_s']:.2f} s)", flush=True)
    first = _rates(problem, sizes[-1], h, N, dict(common, solution_choice="first"))  # the direct port's batch
    queue = _schedules(problem, sizes[0], h, N, common)
    tuned = _tuning_sweep(problem, sizes[0], h, N, common, TUNING_SWEEP if problem.lcp_size >= TUNED_MIN_N else ())
    directed = sample_post_impact_set(problem, sizes[0], h, N, backend="cuda", **common)
    both = _beside_processes(problem, sizes[0], h, N, common)
    cpu = sample_post_impact_set(problem, cpu_samples, h, N, n_jobs=1, strategy="uniform", **common)
    gpu_rate = runs[0]["samples_per_s"]
    cpu_rate = cpu_samples / cpu.metadata["cpu_seconds"]
    from reach.kernels.device import FUSED

    return {"case": label, "lcp_size": problem.lcp_size, "device": gpu.metadata["executor"],
            "build": "fused (LTO, fused multiply-adds)" if FUSED else "strict (no LTO, no fused multiply-adds)",
            "compile_s": compile_s, "kernel_resources": resources, "gpu_samples": sizes[0], "gpu_samples_per_s": gpu_rate, "runs": runs,
            "first_choice": first, "tuned": tuned, "schedules": queue,
            "directed_samples_per_s": sizes[0] / directed.metadata["wall_seconds"],
            "directed_selection_s": directed.metadata["selection_seconds"], "directed_beside_processes": both,
            "cpu_samples": cpu_samples, "cpu_samples_per_s_core": cpu_rate,
            "speedup_vs_core": max(r["samples_per_s"] for r in runs) / cpu_rate,
            **_agreement(problem, h, N, agree, common)}


def _schedules(problem, n, h, N, common):
    """Uniform sets of ``n`` samples from each schedule of the kernel (:data:`reach.kernels.device.SCHEDULES`: a
    thread a sample, or a queue of samples run a step at a time), random and first choice: samples a second,
    wall and kernel, and whether the queue's set is the thread kernel's bit for bit.  The default restored after."""
    from reach.kernels import device as kernels_device

    default, found = kernels_device.SCHEDULE, {}
    try:
        for choice in ("random", "first"):
            sets = {}
            for schedule in kernels_device.SCHEDULES:
                kernels_device.SCHEDULE = schedule
                sets[schedule], device = _timed(problem, n, h, N, backend="cuda", strategy="uniform",
                                                **dict(common, solution_choice=choice))
                found[f"{schedule} {choice}"] = {"samples_per_s": n / sets[schedule].metadata["wall_seconds"],
                                                 "kernel_samples_per_s": n / max(device["kernel"], 1e-12)}
            found[f"identical {choice}"] = all(np.array_equal(getattr(sets["thread"], f), getattr(sets["queue"], f))
                                               for f in ("all_velocities", "kept", "sample_status", "lcp_solves"))
    finally:
        kernels_device.SCHEDULE = default
    return found


def _beside_processes(problem, n, h, N, common, warm=2**16):
    """The default directed set of ``n`` samples on the GPU and every core but one (``backend="cuda+cpu"``): its
    samples a second and the GPU's share, after a uniform and a directed run of ``warm`` samples that start the
    processes, each with a run or two (a failure is recorded, not raised: the case's other numbers stand)."""
    from reach import sample_post_impact_set
    from reach.sampling.executors import make_executor
    from reach.sampling.gpu import LAUNCHES

    try:
        executor = make_executor(-1, backend="cuda+cpu")
        for strategy in ("uniform", "directed"):
            sample_post_impact_set(problem, warm, h, N, executor=executor, **dict(common, strategy=strategy))
        before, backups = dict(executor.samples), executor.backups
        LAUNCHES.clear()
        result = sample_post_impact_set(problem, n, h, N, executor=executor, **common)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    gpu = executor.samples["gpu"] - before["gpu"]
    return {"processes": executor.workers, "samples_per_s": n / result.metadata["wall_seconds"],
            "gpu_share": gpu / n, "backup_share": (executor.backups - backups) / n,
            "delivered_per_s": executor.rates(), "selection_s": result.metadata["selection_seconds"],
            "launches": launch_summary(list(LAUNCHES)), "launch_model": executor.launch_model()}


def recorded_lcps(label, count):
    """``count`` LCPs of a case's recorded Routh steps, as its verified step scales them: ``(lcp, Q, D, options)``
    (the :class:`~reach.kernels.lcp.ScaledLCP`, the scaled ``q`` and covering vector of each, Lemke's options)."""
    from types import SimpleNamespace

    from reach.kernels.routh_data import fill_q
    from reach.tools.bench import Recorded

    problem, h, N = problem_case(label)
    rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), count)
    lcp = rec.data.lcp
    Q = np.empty((rec.V.shape[0], rec.n))
    for k, (v, lam) in enumerate(zip(rec.V, rec.lam)):
        fill_q(rec.data.Jbar, problem.m, v, lam, Q[k])
        Q[k] *= lcp.row_scale  # as reach.kernels.lcp.solve_scaled scales it
    return lcp, Q, np.ascontiguousarray(rec.d), rec.options.lemke


def lemke_layouts(label, lcps=LAYOUT_LCPS, distinct=2**12, repeats=3):
    """Lemke's method alone on a case's recorded LCPs: one thread an LCP against a warp an LCP, each layout
    of :data:`reach.kernels.warp.LAYOUTS`.

    ``distinct`` recorded LCPs, repeated to ``lcps``; kernel seconds a batch
    (medians of ``repeats``, the first launch compiles or loads), against one
    CPU core's CPU seconds on the distinct ones; and on those, whether each
    layout ends as the CPU does (status, pivots, basis, basic values' bits).
    """
    from reach.kernels.lcp import make_work
    from reach.kernels.warp import LAYOUTS, cpu_lemke_batch, run_lemke

    lcp, Q, D, opts = recorded_lcps(label, distinct)
    K, n = Q.shape
    ref = (np.empty(K, np.int64), np.empty(K, np.int64), np.empty((K, n)), np.empty((K, n), np.int64))
    cpu_lemke_batch(lcp.MsT, Q[:2], D[:2], opts, make_work(n), np.empty(n), *[a[:2] for a in ref])  # compiles
    t = time.process_time()
    cpu_lemke_batch(lcp.MsT, Q, D, opts, make_work(n), np.empty(n), *ref)
    cpu_s = time.process_time() - t
    reps = max(1, lcps // K)
    big_Q, big_D = np.tile(Q, (reps, 1)), np.tile(D, (reps, 1))
    row = {"case": label, "lcp_size": n, "lcps": reps * K, "distinct": K, "pivots_mean": float(ref[1].mean()),
           "cpu_lcps_per_s_core": K / cpu_s}
    for layout in LAYOUTS:
        t = time.perf_counter()
        got = run_lemke(layout, lcp.MsT, Q, D, opts)
        compile_s = time.perf_counter() - t
        same = ((got[0] == ref[0]) & (got[1] == ref[1]) & (got[3] == ref[3]).all(axis=1)
                & (got[2].view(np.int64) == ref[2].view(np.int64)).all(axis=1))
        walls = []
        for _ in range(repeats):
            seconds = {}
            run_lemke(layout, lcp.MsT, big_Q, big_D, opts, seconds=seconds)
            walls.append(seconds["kernel"])
        row[layout] = {"first_launch_s": compile_s, "kernel_s": float(np.median(walls)),
                       "lcps_per_s": reps * K / float(np.median(walls)), "identical": int(same.sum())}
    row["warp_over_thread"] = (max(row[k]["lcps_per_s"] for k in LAYOUTS if k.startswith("warp")) /
                               max(row[k]["lcps_per_s"] for k in LAYOUTS if k.startswith("thread")))
    print(f"  {label}: Lemke alone, LCPs/s " + ", ".join(f"{k} {row[k]['lcps_per_s']:,.0f}" for k in LAYOUTS) +
          f" (best warp ÷ best thread {row['warp_over_thread']:.2f})", flush=True)
    return row


def end_to_end(samples=END_TO_END_SAMPLES, repeats=2):
    """Issue 40's end-to-end case: the quadruped's default set of ``samples`` with its held-out estimate, on the GPU.

    Wall seconds of each run after a first small one (which compiles); the
    target is at most 1 s.  Then the same with every core but one beside the
    GPU (``backend="cuda+cpu"``).
    """
    from reach import sample_post_impact_set
    from reach.sampling.executors import make_executor
    from reach.sampling.gpu import DEVICE_SECONDS, LAUNCHES

    problem, h, N = problem_case("quadruped")
    sample_post_impact_set(problem, min(4096, samples), h, N, backend="cuda")
    walls, held, parts = [], {}, []
    for _ in range(repeats):
        device = dict(DEVICE_SECONDS)
        LAUNCHES.clear()
        t = time.perf_counter()
        result = sample_post_impact_set(problem, samples, h, N, backend="cuda")
        walls.append(time.perf_counter() - t)
        launches = launch_summary(list(LAUNCHES))
        held = result.metadata.get("completeness") or {}
        parts.append(_end_to_end_parts(walls[-1], result.metadata, {k: DEVICE_SECONDS[k] - device[k] for k in device}))
    beside = {}
    try:  # the same, with every core but one beside the GPU
        both = make_executor(-1, backend="cuda+cpu")
        for strategy in ("uniform", "directed"):  # starts the processes, each with a run or two
            sample_post_impact_set(problem, min(2**16, samples), h, N, executor=both, strategy=strategy)
        walls_both = []
        for _ in range(repeats):
            t = time.perf_counter()
            sample_post_impact_set(problem, samples, h, N, executor=both)
            walls_both.append(time.perf_counter() - t)
        beside = {"processes": both.workers, "wall_s": walls_both, "median_wall_s": float(np.median(walls_both))}
    except Exception as exc:  # recorded: the GPU's own numbers stand
        beside = {"error": f"{type(exc).__name__}: {exc}"}
    return {"samples": samples, "wall_s": walls, "median_wall_s": float(np.median(walls)),
            "engine_wall_s": result.metadata.get("wall_seconds"), "held_out": held, "target_s": 1.0,
            "parts": {k: float(np.median([p[k] for p in parts])) for k in parts[0]}, "launches": launches,
            "beside_processes": beside}


def launch_summary(launches, small=SMALL_LAUNCH):
    """``launches`` (``(samples, kernel seconds)`` each: :data:`reach.sampling.gpu.LAUNCHES`) summed up: how many,
    their samples (smallest, median, largest), the kernel seconds of all and of those under ``small`` samples."""
    if not launches:
        return {"launches": 0}
    samples, seconds = (np.array(column) for column in zip(*launches))
    few = samples < small
    return {"launches": len(samples), "samples_min": int(samples.min()), "samples_median": float(np.median(samples)),
            "samples_max": int(samples.max()), "kernel_s": float(seconds.sum()), "small": int(few.sum()),
            "small_samples": int(samples[few].sum()), "small_kernel_s": float(seconds[few].sum())}


def _end_to_end_parts(wall, metadata, device):
    """Where an end-to-end run's wall seconds went: the kernels, the transfers, the directed rounds' selection
    (on the CPU), the rest of the main run, and what followed it (the held-out run and estimate), split into
    the held-out search, its distances to the set and the climb."""
    engine = metadata.get("wall_seconds") or 0.0
    selection = metadata.get("selection_seconds") or 0.0
    estimate = (metadata.get("completeness") or {}).get("seconds", {})
    return {"kernel_s": device["kernel"], "transfer_s": device["transfer"], "setup_s": device["setup"],
            "selection_s": selection,
            "host_other_s": wall - device["kernel"] - device["transfer"] - device["setup"] - selection,
            "main_run_s": engine,
            "after_main_run_s": wall - engine, **{f"estimate_{k}_s": v for k, v in estimate.items()}}


def run_gpu(quick=False):
    """:func:`gpu_case` for every case of :data:`GPU_CASES` (``quick``: 2^14 and 2^10 samples), then :func:`end_to_end`.

    A case that fails is recorded with its error and the rest still run.
    """
    from reach.sampling.gpu import Gpu

    Gpu()  # a clear error where there is no GPU
    report = {"lemke-layouts": {}}
    for label, _, _ in GPU_CASES:  # first: the layout that the next step of the port hangs on
        try:
            report["lemke-layouts"][label] = lemke_layouts(label, 2**12 if quick else LAYOUT_LCPS,
                                                           2**8 if quick else 2**12)
        except Exception as exc:
            report["lemke-layouts"][label] = {"case": label, "error": f"{type(exc).__name__}: {exc}"}
    for label, sizes, cpu in GPU_CASES:
        try:
            report[label] = gpu_case(label, (2**14,) if quick else sizes, 2**10 if quick else cpu,
                                     agree=2**10 if quick else 2**14)
        except Exception as exc:  # a compile or launch failure: keep the other cases' numbers
            report[label] = {"case": label, "error": f"{type(exc).__name__}: {exc}"}
        print(f"{label}: {report[label]}", flush=True)
    try:
        report["end-to-end"] = end_to_end(2**14 if quick else END_TO_END_SAMPLES)
    except Exception as exc:
        report["end-to-end"] = {"error": f"{type(exc).__name__}: {exc}"}
    return report


def format_gpu(report):
    """The GPU report as a Markdown table (a row per batch size), the agreement verdicts and the end-to-end run."""
    lines = ["| case | LCP n | compile | samples | GPU samples/s (uniform) | kernel only | directed | "
             "one core (CPU time) | best GPU ÷ core | agreement (max Δv / max|v|) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    device = ""
    for label, r in report.items():
        if label in ("end-to-end", "lemke-layouts"):
            continue
        if "error" in r:
            lines.append(f"| {label} | | | | failed: {r['error'][:120]} | | | | | |")
            continue
        device = r["device"]
        verdict = "identical flags, counts" if all(r["identical"].values()) else f"DIFFER {r['identical']}"
        for k, run in enumerate(r.get("runs") or [{"samples": r["gpu_samples"], "samples_per_s": r["gpu_samples_per_s"],
                                                     "kernel_samples_per_s": float("nan")}]):
            head = (f"| {label} | {r['lcp_size']} | {r['compile_s']:.1f} s" if k == 0 else "| | |")
            tail = (f"{r['directed_samples_per_s']:,.0f} | {r['cpu_samples_per_s_core']:,.0f} | "
                    f"{r['speedup_vs_core']:.0f}× | {verdict}; {r['max_relative_gap']:.1e} |" if k == 0 else "| | | |")
            lines.append(f"{head} | 2^{run['samples'].bit_length() - 1} | {run['samples_per_s']:,.0f} | "
                         f"{run['kernel_samples_per_s']:,.0f} | {tail}")
    lines.append("")
    for label, r in report.items():
        if label not in ("end-to-end", "lemke-layouts") and "first_choice" in r:
            f = r["first_choice"]
            tuned = "; ".join(f"{k}: {v:,.0f}" for k, v in r["tuned"].items()) or "not measured (small LCP)"
            lines.append(f"- {label}: first choice 2^{f['samples'].bit_length() - 1}: {f['samples_per_s']:,.0f} "
                         f"samples/s (kernel {f['kernel_samples_per_s']:,.0f}); kernel samples/s compiled with "
                         f"{tuned}")
            q = r.get("schedules")
            if q:
                lines.append(f"- {label}: kernel samples/s by schedule, uniform 2^{r['gpu_samples'].bit_length() - 1}: "
                             + "; ".join(f"{c}: a thread a sample {q[f'thread {c}']['kernel_samples_per_s']:,.0f}, "
                                         f"queue {q[f'queue {c}']['kernel_samples_per_s']:,.0f} "
                                         f"({q[f'queue {c}']['kernel_samples_per_s'] / q[f'thread {c}']['kernel_samples_per_s']:.2f}×, "
                                         f"{'the same set' if q[f'identical {c}'] else 'SETS DIFFER'})"
                                         for c in ("random", "first")))
            both = r.get("directed_beside_processes")
            if both and "error" in both:
                lines.append(f"- {label}: directed, the GPU beside processes (cuda+cpu): failed: {both['error'][:120]}")
            elif both:
                lines.append(f"- {label}: directed, the GPU beside {both['processes']} processes (cuda+cpu): "
                             f"{both['samples_per_s']:,.0f} samples/s, the GPU ran {both['gpu_share']:.0%} "
                             f"({both.get('backup_share', 0.0):.0%} of them in the processes' place); delivered "
                             + ", ".join(f"{k} {v:,.0f}/s" for k, v in both.get('delivered_per_s', {}).items())
                             + _launches_line(both))
    e2e = report.get("end-to-end")
    if e2e and "error" not in e2e:
        held = e2e.get("held_out") or {}
        lines += ["", f"End to end: the quadruped's default set of 2^{e2e['samples'].bit_length() - 1} samples with "
                      f"its held-out estimate, {e2e['median_wall_s']:.2f} s wall (median of "
                      f"{len(e2e['wall_s'])}; target ≤ {e2e['target_s']:.0f} s; held-out outcomes farther than "
                      f"2 % of |vn0|: {held.get('outside_2pct', float('nan')):.2%})."]
        b = e2e.get("beside_processes") or {}
        if "error" in b:
            lines.append(f"With processes beside the GPU (cuda+cpu): failed: {b['error'][:120]}")
        elif b:
            lines.append(f"With {b['processes']} processes beside the GPU (cuda+cpu): {b['median_wall_s']:.2f} s wall.")
        if e2e.get("parts"):
            lines.append("Where it went (medians, s): " + ", ".join(f"{k[:-2].replace('_', ' ')} {v:.2f}"
                                                                   for k, v in e2e["parts"].items()) + ".")
        n = e2e.get("launches") or {}
        if n.get("launches"):
            lines.append(f"Its launches (the last run): {n['launches']}, of {n['samples_min']:,}–{n['samples_max']:,} "
                         f"samples (median {n['samples_median']:,.0f}), {n['kernel_s']:.2f} s of kernel; {n['small']} "
                         f"under {SMALL_LAUNCH:,} samples ({n['small_samples']:,} samples) took "
                         f"{n['small_kernel_s']:.2f} s of it.")
    elif e2e:
        lines += ["", f"End to end: failed: {e2e['error']}"]
    if report.get("lemke-layouts"):
        lines += ["", format_layouts(report["lemke-layouts"])]
    builds = sorted({r["build"] for r in report.values() if "build" in r})
    lines += ["", f"Device: {device}; kernels compiled {', '.join(builds) or '(unknown)'}."]
    return "\n".join(lines)


def _launches_line(both):
    """The GPU's launches beside the processes, and the latency and rate fitted to them, as a clause."""
    launches, model = both.get("launches") or {}, both.get("launch_model")
    if not launches.get("launches"):
        return ""
    text = (f"; {launches['launches']} launches of {launches['samples_min']:,}–{launches['samples_max']:,} samples "
            f"(median {launches['samples_median']:,.0f}), {launches['kernel_s']:.2f} s of kernel")
    return text + (f", fitted {model[0] * 1e3:.0f} ms + samples / {model[1]:,.0f}/s a launch" if model else "")


def format_layouts(rows):
    """:func:`lemke_layouts`' rows as a Markdown table."""
    from reach.kernels.warp import LAYOUTS

    lines = ["Lemke's method alone on recorded LCPs (kernel time, medians; LCPs a second):", "",
             "| case | LCP n | pivots a solve | one core (CPU time) | " + " | ".join(LAYOUTS) +
             " | best warp ÷ best thread | same as the CPU |", "|---|---:|---:|---:|" + "---:|" * len(LAYOUTS) + "---:|---|"]
    for label, r in rows.items():
        if "error" in r:
            lines.append(f"| {label} | | | | failed: {r['error'][:120]} |" + " |" * (len(LAYOUTS) + 1))
            continue
        rates = " | ".join(f"{r[k]['lcps_per_s']:,.0f}" for k in LAYOUTS)
        same = ", ".join(f"{r[k]['identical']}" for k in LAYOUTS)
        lines.append(f"| {label} | {r['lcp_size']} | {r['pivots_mean']:.1f} | {r['cpu_lcps_per_s_core']:,.0f} | "
                     f"{rates} | {r['warp_over_thread']:.2f}× | {same} of {r['distinct']} |")
    return "\n".join(lines)
