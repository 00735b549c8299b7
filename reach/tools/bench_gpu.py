"""``reach bench --gpu``: samples a second on the GPU against one CPU core, and how closely the two agree.

For each case (a two-contact planar problem, the five-contact disk stack and the
spatial quadruped touchdown, LCP sizes 10 to 44) :func:`gpu_case` measures, in
one process:

* the kernel's compile time (the first launch);
* GPU samples a second over a batch of uniform samples (``strategy="uniform"``,
  wall time of the engine's run, caps drawn on the host included);
* one CPU core's samples a second on a smaller batch, in CPU time;
* their ratio, and the same for the default directed sampling on the GPU
  (selection between rounds included: it runs on the CPU);
* agreement on the same samples: the kept flags, statuses and LCP counts
  must be identical, and the largest velocity difference is reported
  relative to ``max |v|`` (issue 40 asks at most 1e-12; the CUDA compiler
  contracts ``a * b + c`` into fused multiply-adds, the CPU's does not).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["GPU_CASES", "AGREEMENT_TOL", "gpu_case", "run_gpu", "format_gpu"]

#: (label, GPU batch, CPU batch) of the GPU runs; the quadruped's LCP has size 44.
GPU_CASES = (("rocking-block", 2**22, 2**16), ("disk-stack", 2**20, 2**14), ("quadruped", 2**20, 2**13))
#: Issue 40's bound on a kept sample's velocity difference, relative to ``max |v|``.
AGREEMENT_TOL = 1e-12


def _problem(label):
    if label == "quadruped":
        from reach.examples import quadruped_touchdown

        return quadruped_touchdown(), 1.0, 10
    import scenarios

    s = scenarios.get(label)
    return s.problem, s.h, s.N


def gpu_case(label, gpu_samples, cpu_samples, *, agree=2**14):
    """GPU against one CPU core for one case (see the module docstring); a dict of measurements."""
    from reach import sample_post_impact_set

    problem, h, N = _problem(label)
    common = dict(completeness=False, solution_choice="random", keep_paths=0)
    t = time.perf_counter()
    sample_post_impact_set(problem, 256, h, N, backend="cuda", strategy="uniform", **common)
    compile_s = time.perf_counter() - t
    gpu = sample_post_impact_set(problem, gpu_samples, h, N, backend="cuda", strategy="uniform", **common)
    directed = sample_post_impact_set(problem, gpu_samples, h, N, backend="cuda", **common)
    cpu = sample_post_impact_set(problem, cpu_samples, h, N, n_jobs=1, strategy="uniform", **common)
    a = sample_post_impact_set(problem, agree, h, N, n_jobs=1, strategy="uniform", **common)
    b = sample_post_impact_set(problem, agree, h, N, backend="cuda", strategy="uniform", **common)
    same = {f: bool(np.array_equal(getattr(a, f), getattr(b, f))) for f in ("kept", "sample_status", "lcp_solves")}
    both = a.kept & b.kept
    scale = max(float(np.abs(a.all_velocities[both]).max(initial=0.0)), 1e-300)
    gap = float(np.abs(a.all_velocities[both] - b.all_velocities[both]).max(initial=0.0)) / scale
    gpu_rate = gpu_samples / gpu.metadata["wall_seconds"]
    cpu_rate = cpu_samples / cpu.metadata["cpu_seconds"]
    return {"case": label, "lcp_size": problem.lcp_size, "device": gpu.metadata["executor"],
            "compile_s": compile_s, "gpu_samples": gpu_samples, "gpu_samples_per_s": gpu_rate,
            "directed_samples_per_s": gpu_samples / directed.metadata["wall_seconds"],
            "directed_selection_s": directed.metadata["selection_seconds"],
            "cpu_samples": cpu_samples, "cpu_samples_per_s_core": cpu_rate, "speedup_vs_core": gpu_rate / cpu_rate,
            "agreement_samples": agree, "identical": same, "max_relative_gap": gap,
            "agrees": all(same.values()) and gap <= AGREEMENT_TOL}


def run_gpu(quick=False):
    """:func:`gpu_case` for every case of :data:`GPU_CASES` (``quick``: 2^14 and 2^10 samples)."""
    from reach.sampling.gpu import Gpu

    Gpu()  # a clear error where there is no GPU
    return {label: gpu_case(label, 2**14 if quick else g, 2**10 if quick else c, agree=2**10 if quick else 2**14)
            for label, g, c in GPU_CASES}


def format_gpu(report):
    """The GPU report as a Markdown table, with the agreement verdicts."""
    lines = ["| case | LCP n | compile | GPU samples/s (uniform) | directed | one core (CPU time) | GPU ÷ core | "
             "agreement (max Δv / max|v|) |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for label, r in report.items():
        verdict = "identical flags, counts" if all(r["identical"].values()) else f"DIFFER {r['identical']}"
        lines.append(f"| {label} | {r['lcp_size']} | {r['compile_s']:.1f} s | {r['gpu_samples_per_s']:,.0f} | "
                     f"{r['directed_samples_per_s']:,.0f} | {r['cpu_samples_per_s_core']:,.0f} | "
                     f"{r['speedup_vs_core']:.0f}× | {verdict}; {r['max_relative_gap']:.1e} |")
    device = next(iter(report.values()))["device"] if report else ""
    lines += ["", f"Device: {device}."]
    return "\n".join(lines)
