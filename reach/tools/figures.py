"""``reach figures``: regenerate the paper's figures (section 5.4) and Table 3.

For each of the five scenarios (SPEC section 4) the post-impact set is
sampled with the paper's settings (h, N and M = 2^14 ... 2^20 samples; small
counts with ``quick``) and drawn as a paper-style multi-panel figure
(:func:`reach.plotting.plot_scenario_figure`), written as PNG and PDF:

==========================  =====================================
``fig09-rocking-block``     paper Fig. 9
``fig10-compass-gait``      paper Fig. 10
``fig11-box-wall``          paper Fig. 11
``fig13-ramone``            paper Fig. 13
``fig14-disk-stack``        paper Fig. 14
``fig08-zeno``              paper Fig. 8 (:mod:`reach.analysis.zeno`)
``fig12-compliant``         paper Fig. 12 (:mod:`reach.analysis.compare.compliant`)
``table3.md``               paper Table 3 beside our numbers
==========================  =====================================

The scenario figures mark the Stewart--Trinkle time-stepper's outcome (h =
1 ms, one step and a run through the impact; orange crosses) and Seghete &
Murphey's plastic outcome (green triangle), and
:mod:`reach.tools.stepping` adds Stewart & Trinkle's own examples, and
:mod:`reach.tools.through_figures` the sets through many impacts, and
:mod:`reach.tools.design_figures` the impact-design sweeps, and
:mod:`reach.tools.guide_figures` the getting-started page's pictures.

Scenarios with a mirror symmetry (rocking block, disk stack) are drawn with
their samples doubled through the mirror map, as the paper did.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import numpy as np

import scenarios
from reach import sample_post_impact_set
from reach.analysis.baselines import Baselines
from reach.analysis.compare.compliant import sweep_initial_tilt, sweep_stiffness_ratio
from reach.analysis.zeno import zeno_block
from reach.laws.propagative import propagative
from reach.plotting import plot_scenario_figure
from reach.plotting.compliant import plot_compliant
from reach.tools.simulators import make_simulator_figures
from reach.plotting.zeno import plot_zeno
from reach.tools.bench import PAPER_TABLE3 as BENCH_TABLE3
from reach.tools.stepping import make_stepping_figures, stepper_markers
from reach.tools.design_figures import make_design_figures
from reach.tools.provenance import write_page
from reach.tools.guide_figures import make_guide_figures
from reach.tools.through_figures import make_through_figures

__all__ = ["make_figures", "estimate", "TRACKED", "STAGES", "table3_markdown", "FIGURE_FILES", "PAPER_TABLE3", "QUICK_SAMPLES", "FIGURE_DPI"]

#: Output stem of each scenario's figure (the paper's figure number).
FIGURE_FILES = {
    "rocking-block": "fig09-rocking-block",
    "compass-gait": "fig10-compass-gait",
    "box-wall": "fig11-box-wall",
    "ramone": "fig13-ramone",
    "disk-stack": "fig14-disk-stack",
}
#: Paper Table 3 (MATLAB + PATH, quad-core i5): LCPs/sample, s/sample, s/LCP (from the bench's ms).
PAPER_TABLE3 = {name: (lcps, ms_sample / 1e3, ms_lcp / 1e3) for name, (lcps, ms_sample, ms_lcp) in BENCH_TABLE3.items()}
#: Samples per scenario in quick mode (CI); full mode uses ``scenario.n_samples``.
QUICK_SAMPLES = 2 ** 11
#: Stored sample paths drawn as light lines (thinned to at most 3000 per plane).
KEEP_PATHS = {False: 4096, True: 512}
#: Raster resolution of the PNGs (dots per inch; figures are 16 in wide).
FIGURE_DPI = {False: 150, True: 60}
#: Compliant-contact runs per sweep (paper: 51).
COMPLIANT_RUNS = {False: 51, True: 5}


def _sample(scenario, n_samples, keep_paths):
    # a short run first, untimed: loading the cached kernels and starting the workers are not sampling
    # (Table 3's first row paid for them: 96 against 10 µs per rocking-block sample)
    sample_post_impact_set(scenario.problem, 2048, scenario.h, scenario.N, n_jobs=-1, chunk_size=256,
                           completeness=False)  # several chunks: every worker starts
    result = sample_post_impact_set(scenario.problem, n_samples, scenario.h, scenario.N,
                                    keep_paths=keep_paths, n_jobs=-1, completeness=False)
    result.metadata.setdefault("label", scenario.name)
    return result


def _cores(result):
    """Workers that actually ran (recorded by the sampler)."""
    return int(result.metadata.get("workers", 1))


def _seconds(value):
    if value is None:
        return "–"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def table3_markdown(rows, *, quick=False):
    """Paper Table 3 beside ours, as Markdown.

    Parameters
    ----------
    rows : list of (scenario, PostImpactSet)
    quick : bool
        Mark the table as a quick (small-sample) run.
    """
    lines = [
        "# Table 3: computational performance of post-impact set sampling",
        "",
        "Ours: `reach figures`" + (" --quick (small sample counts; timings are noisy)" if quick else "")
        + f", {platform.machine()} {platform.system()}, {os.cpu_count()} logical cores, "
        "Numba-jitted Lemke + Routh kernels, sampled in parallel over the cores listed. "
        "Paper: MATLAB + PATH on a 2.4 GHz quad-core Intel Core i5 (Halm & Posa, Table 3). "
        "Time per sample is wall-clock time over all samples divided by their number; "
        "time per LCP divides it by the LCP solves (the closing step included).",
        "",
        "| Example | samples | cores | in the set | LCPs / sample (ours · paper) "
        "| time / sample (ours · paper) | time / LCP (ours · paper) | speed-up per sample |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for scenario, result in rows:
        s = result.summary()
        lcps, t_sample, t_lcp = PAPER_TABLE3[scenario.name]
        ours_t = s["time_per_sample"]
        speedup = f"{t_sample / ours_t:,.0f}×" if ours_t else "–"
        n = s["samples"]
        samples = f"2^{int(np.log2(n))}" if n & (n - 1) == 0 else f"{n:,d}"
        lines.append(f"| {scenario.title} | {samples} | {_cores(result)} | {s['kept']:,d} "
                     f"| {s['lcps_per_sample']:.2f} · {lcps:.2f} | {_seconds(ours_t)} · {_seconds(t_sample)} "
                     f"| {_seconds(s['time_per_lcp'])} · {_seconds(t_lcp)} | {speedup} |")
    lines += [
        "",
        "LCPs per sample differ from the paper where the sampled caps or the model differ: the sets "
        "are sampled with reach's defaults (directed sampling, mixed caps), and the published "
        "disk-stack code gave each disc 5 kg (SPEC §4) — by unit invariance the 1 kg problem at "
        "h = 0.2, a smaller set with more steps per sample (6.68 LCPs); we use the paper's stated 1 kg.",
        "",
    ]
    return "\n".join(lines)


def _save(fig, out, stem, dpi, written, pdf=True):
    import matplotlib.pyplot as plt

    try:
        png = out / f"{stem}.png"
        fig.savefig(png, dpi=dpi)
        written.append(png)
        if pdf:
            path = out / f"{stem}.pdf"
            fig.savefig(path, dpi=dpi)
            written.append(path)
    finally:
        plt.close(fig)


def _zeno_figure(out, quick, written, log):
    _save(plot_zeno(zeno_block()), out, "fig08-zeno", FIGURE_DPI[quick], written)


def _compliant_figure(out, quick, block_result, mirror, written, log):
    n = COMPLIANT_RUNS[quick]
    t0 = time.perf_counter()
    ratio = sweep_stiffness_ratio(n, n_jobs=-1)
    tilt = sweep_initial_tilt(n, n_jobs=-1)
    log(f"compliant sweeps: 2 x {n} runs in {time.perf_counter() - t0:.1f} s")
    V = block_result.velocities if mirror is None else np.concatenate(
        [block_result.velocities, block_result.velocities @ np.asarray(mirror).T])
    normals = block_result.problem.contact_velocities(V)[:, :, 0]
    scale = float(np.max(np.abs(normals))) or 1.0
    fig = plot_compliant(ratio, tilt, normals, thickness=0.01 * scale)
    _save(fig, out, "fig12-compliant", FIGURE_DPI[quick], written)


#: Where ``reach figures --refresh`` writes: the repository's tracked ``figures/`` folder.
TRACKED = Path(__file__).resolve().parents[2] / "figures"
#: Per-stage seconds of the last full run, written beside the figures (read for the time estimate).
TIMINGS = "timings.json"


def estimate(folder=TRACKED):
    """A line estimating a full run from the last one recorded in ``folder`` (None when there is none)."""
    path = Path(folder) / TIMINGS
    if not path.is_file():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    total = sum(record["seconds"].values())
    return (f"the last full run took {total / 60:.0f} min on {record['cores']} cores ({record['date']}); "
            f"this machine has {os.cpu_count()}, and the time grows with load")


#: Every stage of a full run, in order: the five scenario figures, then the rest.
STAGES = tuple(FIGURE_FILES) + ("table3", "zeno", "compliant", "stepping", "through", "design", "simulators",
                                 "guide")


def _stages(names, paper_only):
    """The stages of a run, in order: (name, what it writes)."""
    stages = [(name, FIGURE_FILES[name]) for name in names]
    stages.append(("table3", "table3.md"))
    if set(scenarios.names()) <= set(names):
        stages += [("zeno", "fig08-zeno"), ("compliant", "fig12-compliant")]
        if not paper_only:
            stages += [("stepping", "stewart-trinkle.md, st-*.png"), ("through", "through.md, through-*.png"),
                       ("design", "design.md, design-sweeps.png, sm-fig05-billiards.png"),
                       ("simulators", "simulators.md, sap-comparison*.png"), ("guide", "guide-*.png")]
    return stages


def make_figures(out_dir: Path, quick: bool = False, *, names=None, paper_only=False, log=print,
                 command="reach figures", progress=False, only=None) -> list:
    """Regenerate the paper's figures and Table 3 into ``out_dir``; returns the written paths.

    Parameters
    ----------
    out_dir : Path
        Created if missing.
    quick : bool
        2^11 samples per scenario, 512 stored paths, 5 compliant runs per
        sweep and 60-dpi PNGs (CI; under two minutes).  Otherwise the
        paper's sample counts, 4096 paths, 51 runs per sweep, 150 dpi.
    names : list of str, optional
        Only these scenarios (default all five); Figs. 8 and 12 are drawn
        only when all are.
    paper_only : bool
        Only the Halm-Posa paper's figures (8-14) and Table 3, not the
        time-stepping, through-impacts, design and simulator figures.
    log : callable
        Progress messages.
    command : str
        The command recorded in each numbers page's provenance (:mod:`reach.tools.provenance`).
    progress : bool
        A progress bar, one step per figure (stage); ``log`` then writes above it.
    only : list of str, optional
        Only these stages (:data:`STAGES`), with the scenario sets that
        ``table3``, ``compliant`` and ``stepping`` are drawn from.

    The seconds of each stage go to ``timings.json`` in ``out_dir`` (what
    :func:`estimate` reads).
    """
    import matplotlib
    from tqdm.auto import tqdm

    matplotlib.use("Agg", force=False)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = scenarios.names() if names is None else list(names)
    stages = _stages(names, paper_only)
    if only is not None:
        unknown = sorted(set(only) - set(STAGES))
        if unknown:
            raise ValueError(f"unknown figure stages {unknown}; they are {', '.join(STAGES)}.")
        needs_sets = bool({"table3", "compliant", "stepping"} & set(only))
        stages = [(stage, what) for stage, what in stages if stage in only or (needs_sets and stage in FIGURE_FILES)]
    bar = tqdm(stages, desc="figures", unit="figure", disable=not progress, leave=False)
    if progress:
        log = tqdm.write
    written, rows, seconds, state = [], [], {}, {}
    for stage, what in bar:
        bar.set_postfix_str(what)
        t0 = time.perf_counter()
        written += _run_stage(stage, out, quick, rows, state, log, command)
        seconds[stage] = round(time.perf_counter() - t0, 1)
    bar.close()
    if not quick and only is None:
        record = {"seconds": seconds, "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}
        (out / TIMINGS).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return written


def _run_stage(stage, out, quick, rows, state, log, command):
    """One stage of :func:`make_figures`; returns the paths it wrote."""
    dpi = FIGURE_DPI[quick]
    written = []
    if stage in FIGURE_FILES:
        scenario = scenarios.get(stage)
        n = QUICK_SAMPLES if quick else scenario.n_samples
        t0 = time.perf_counter()
        result = _sample(scenario, n, KEEP_PATHS[quick])
        t1 = time.perf_counter()
        baselines = Baselines.compute(scenario.problem)
        baselines.stepper = stepper_markers(stage)
        baselines.stepper_label = "time-stepper (Stewart-Trinkle, h = 1 ms)"
        baselines.propagative = propagative(scenario.problem, 0.0).velocities
        baselines.propagative_label = "propagative (Seghete-Murphey), plastic (frictionless)"
        fig = plot_scenario_figure(scenario, result, baselines=baselines, mirror=True)
        _save(fig, out, FIGURE_FILES[stage], dpi, written)
        log(f"{stage}: {n:,d} samples in {t1 - t0:.1f} s, figure in {time.perf_counter() - t1:.1f} s")
        rows.append((scenario, result))
        if stage == "rocking-block":
            state["block"] = (result, scenario.mirror)
    elif stage == "table3":
        written.append(write_page(out / "table3.md", table3_markdown(rows, quick=quick), command))
    elif stage == "zeno":
        _zeno_figure(out, quick, written, log)
    elif stage == "compliant" and "block" in state:
        _compliant_figure(out, quick, *state["block"], written, log)
    elif stage == "stepping":
        written += make_stepping_figures(out, quick, sets={s.name: r for s, r in rows}, log=log, dpi=dpi,
                                         command=command)
    elif stage == "through":
        written += make_through_figures(out, quick, log=log, dpi=dpi, command=command)
    elif stage == "design":
        written += make_design_figures(out, quick, log=log, dpi=dpi, command=command)
    elif stage == "simulators":
        written += make_simulator_figures(out, quick, log=log, command=command)
    elif stage == "guide":
        written += make_guide_figures(out, quick, log=log, dpi=dpi)
    return written
