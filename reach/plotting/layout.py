"""Multi-panel figures of a post-impact set: the paper's Figs. 9, 10, 11, 13 and 14.

:func:`plot_scenario_figure` lays out, for one scenario,

* a top row: the configuration before the impact (pre-impact velocity
  arrows), the same configuration with the velocity of one sampled outcome
  (marked by a star in every plane), and a shared legend with a summary;
* the contact-frame planes (:func:`reach.plotting.planes.plot_contact_plane`):
  normal(A) vs normal(B) for each pair of contacts (A-B, C-D, ...: for the
  disk stack the floor contacts and the top disc's contacts, left side vs
  right side, as in the paper's Fig. 14(b)) and tangential vs normal for each
  contact; with a mirror map, contacts whose mirror partner comes earlier are
  left out (the paper omits B and D of the disk stack).  Two-contact figures
  follow the paper's Figs. 10-11: A, then A-B, then B.

:func:`plot_result_planes` writes every plane of a saved result as its own
image (``reach plot``), plus the multi-panel figure when the result names a
known scenario.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reach.analysis.baselines import Baselines
from reach.plotting.planes import plot_contact_frame, plot_contact_plane

__all__ = ["figure_planes", "pick_outcome", "plot_scenario_figure", "plot_result_planes", "plot_result_figure"]


def figure_planes(problem, mirror_contacts=None):
    """The planes of a figure: list of ("pair", i, j) and ("frame", i) in drawing order."""
    m = problem.m
    pairs = [("pair", i, i + 1) for i in range(0, m - 1, 2)]
    if m <= 2:
        frames = [("frame", i) for i in range(m)]
    else:
        frames = [("frame", i) for i in range(m)
                  if mirror_contacts is None or mirror_contacts[i] >= i]
    if m == 2:
        return [frames[0], pairs[0], frames[1]]
    return pairs + frames


def _plane_axes(problem, plane):
    names = problem.contact_names
    if plane[0] == "pair":
        return (f"{names[plane[1]]}.normal", f"{names[plane[2]]}.normal")
    return None


def _draw_plane(result, plane, ax, **options):
    problem = result.problem
    if plane[0] == "pair":
        a, b = problem.contact_names[plane[1]], problem.contact_names[plane[2]]
        options.setdefault("title", f"normal velocities, {a} vs {b}")
        return plot_contact_plane(result, _plane_axes(problem, plane), ax, **options)
    return plot_contact_frame(result, plane[1], ax, **options)


def _plane_name(problem, plane):
    names = problem.contact_names
    if plane[0] == "pair":
        return f"normals-{names[plane[1]]}-{names[plane[2]]}"
    return f"contact-{names[plane[1]]}"


def pick_outcome(result, baselines=None, *, quantile=0.99):
    """A sampled outcome far from every simultaneous solution (contact-velocity distance).

    The outcome at the ``quantile`` of that distance (not the maximum, so
    that a rare extreme sample does not stand for the set).  Without
    baselines the distance is to the pre-impact velocity; None for an empty set.
    """
    if len(result) == 0:
        return None
    problem = result.problem
    pts = result.contact_velocities().reshape(len(result), -1)
    if baselines is not None and baselines.simultaneous.size:
        refs = problem.contact_velocities(baselines.simultaneous).reshape(len(baselines.simultaneous), -1)
    else:
        refs = problem.contact_velocities(problem.v).reshape(1, -1)
    dist = np.min(np.linalg.norm(pts[:, None, :] - refs[None, :, :], axis=2), axis=1)
    order = np.argsort(dist, kind="stable")
    k = order[min(len(order) - 1, int(quantile * len(order)))]
    return np.asarray(result.velocities[int(k)], dtype=float)


def _configuration_panels(scenario, ax_before, ax_after, outcome):
    from reach.plotting.drawing import draw_configuration

    draw_configuration(scenario, ax_before, title="before the impact (arrow: pre-impact velocity)")
    draw_configuration(scenario, ax_after, velocity=outcome if outcome is not None else False, reference=scenario.v,
                       title="after: the outcome ★ of the planes (arrow: its velocity, same scale)")


def _summary_text(scenario, result, mirror, regions):
    s = result.summary()
    n = s["samples"]
    exponent = int(np.log2(n)) if n & (n - 1) == 0 else None
    samples = f"2^{exponent} = {n:,d}" if exponent is not None else f"{n:,d}"
    lines = [f"{samples} samples (h = {result.settings.h:g}, N = {result.settings.max_steps}),",
             f"{s['kept']:,d} in the set" + (" (drawn with their mirror images)" if mirror is not None else ""),
             f"{s['lcps_per_sample']:.2f} LCPs per sample"
             + (f", {s['kernel_time_per_sample'] * 1e6:.1f} µs per sample (one core)"
                if s.get("kernel_time_per_sample") else ""),
             "outcomes per contact (lift-off / slide / stick):"]
    for name, c in s["contacts"].items():
        lines.append(f"   {name}: {c['lift_off']:6.1%} / {c['slide']:6.1%} / {c['stick']:6.1%}")
    if regions:
        lines.append("area of the set's outline in each plane (m²/s²):")
        lines += [f"   {k}: {v:.2g}" for k, v in regions.items()]
    return "\n".join(lines)


def plot_scenario_figure(scenario, result, *, baselines=None, mirror=True, outcome="auto", title=None):
    """The paper-style multi-panel figure of one scenario (see the module docstring).

    Parameters
    ----------
    scenario : scenarios.Scenario
    result : PostImpactSet
        A set of ``scenario.problem`` with some stored paths (``keep_paths``).
    baselines : Baselines, optional
        Computed with :meth:`Baselines.compute` if omitted.
    mirror : bool
        Duplicate outcomes and paths through ``scenario.mirror`` (if it has one).
    outcome : "auto", array_like (nv,) or None
        The outcome drawn in the "after" panel; "auto" picks :func:`pick_outcome`.
    title : str, optional
        Figure title (default: the scenario's title).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    problem = result.problem
    if problem.fingerprint() != scenario.problem.fingerprint():
        raise ValueError(f"`result` was not computed for scenario {scenario.name!r}.")
    baselines = Baselines.compute(problem) if baselines is None else baselines
    S = scenario.mirror if mirror and scenario.mirror is not None else None
    if isinstance(outcome, str):
        outcome = pick_outcome(result, baselines)
    planes = figure_planes(problem, scenario.mirror_contacts if S is not None else None)
    rows = [planes[k:k + 3] for k in range(0, len(planes), 3)]
    if len(rows) == 2 and len(rows[0]) == 3 and len(rows[1]) == 2 and problem.m > 2:
        rows = [planes[:2], planes[2:]]  # disk stack: the two normal planes, then three contacts
    fig = plt.figure(figsize=(16, 4.9 * (1 + len(rows))), layout="constrained")
    grid = fig.add_gridspec(1 + len(rows), 6, height_ratios=[0.9] + [1.0] * len(rows))
    ax_before, ax_after = fig.add_subplot(grid[0, 0:2]), fig.add_subplot(grid[0, 2:4])
    ax_legend = fig.add_subplot(grid[0, 4:6])
    _configuration_panels(scenario, ax_before, ax_after, outcome)
    handles, regions = {}, {}
    for r, row in enumerate(rows):
        offset = (3 - len(row))  # centre short rows
        for k, plane in enumerate(row):
            ax = fig.add_subplot(grid[1 + r, offset + 2 * k: offset + 2 * k + 2])
            drawn = _draw_plane(result, plane, ax, mirror=S, baselines=baselines, highlight=outcome,
                                legend=False)
            for label, h in drawn.handles.items():
                key = label.split(" (area")[0] if label.startswith("post-impact region") else label
                handles.setdefault(key, h)
            if drawn.region is not None:
                names = problem.contact_names
                where = (f"vn {names[plane[1]]} vs vn {names[plane[2]]}" if plane[0] == "pair" else
                         f"vt-vn of {names[plane[1]]}")
                regions[where] = drawn.region.area
    ax_legend.set_axis_off()
    legend = ax_legend.legend(list(handles.values()), list(handles), loc="upper left", fontsize=10, frameon=False,
                              title=title or scenario.title, title_fontproperties={"weight": "bold", "size": 13},
                              alignment="left")
    # the summary goes below the legend, never over it: the legend's height in the panel is known once the layout
    # has placed the panels (the layout alone, not a whole drawing: 0.3 s less CPU a figure, the same pixels;
    # bench/figure-time.log)
    fig.get_layout_engine().execute(fig)
    bottom = legend.get_window_extent().transformed(ax_legend.transAxes.inverted()).y0
    ax_legend.text(0.0, min(bottom - 0.03, 1.0), _summary_text(scenario, result, S, regions),
                   transform=ax_legend.transAxes, fontsize=8.5, family="monospace", va="top", ha="left")
    return fig


def plot_result_planes(result, out_dir, *, scenario=None, mirror=False, dpi=150):
    """Draw every contact-frame plane of ``result`` into ``out_dir``; returns the written paths.

    Writes ``<label>-normals-A-B.png`` (one per pair of contacts),
    ``<label>-contact-A.png`` (one per contact) and, when ``scenario`` is
    given (its problem must be the result's), ``<label>-figure.png``
    (:func:`plot_scenario_figure`).

    Parameters
    ----------
    result : PostImpactSet
    out_dir : str or Path
        Created if missing.
    scenario : scenarios.Scenario, optional
        The scenario the result was computed for (``reach plot`` looks it up by
        the result's label).
    mirror : bool
        Duplicate outcomes through the scenario's mirror map (needs a known scenario).
    dpi : int
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    problem = result.problem
    label = str(result.metadata.get("label") or "result")
    if scenario is not None and scenario.problem.fingerprint() != problem.fingerprint():
        raise ValueError(f"`scenario` {scenario.name!r} is not the problem of this result.")
    S = scenario.mirror if mirror and scenario is not None else None
    baselines = Baselines.compute(problem)
    outcome = pick_outcome(result, baselines)
    planes = [("pair", i, i + 1) for i in range(0, problem.m - 1, 2)] + [("frame", i) for i in range(problem.m)]
    written = []
    for plane in planes:
        fig, ax = plt.subplots(figsize=(6.4, 5.2), layout="constrained")
        try:
            _draw_plane(result, plane, ax, mirror=S, baselines=baselines, highlight=outcome)
            path = out / f"{label}-{_plane_name(problem, plane)}.png"
            fig.savefig(path, dpi=dpi)
            written.append(path)
        finally:
            plt.close(fig)
    if scenario is not None:
        fig = plot_scenario_figure(scenario, result, baselines=baselines, mirror=mirror, outcome=outcome)
        try:
            path = out / f"{label}-figure.png"
            fig.savefig(path, dpi=dpi)
            written.append(path)
        finally:
            plt.close(fig)
    return written


def plot_result_figure(result, *, baselines="auto", title=None):
    """Every contact-frame plane of a result in one figure (``reach run`` saves it beside the ``.npz``).

    Normal(A) vs normal(B) for each pair of contacts, then tangential vs normal
    for each contact, three panels to a row.

    Parameters
    ----------
    result : PostImpactSet
    baselines : "auto", Baselines or None
        ``"auto"`` computes them (:meth:`Baselines.compute`); None draws none.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    problem = result.problem
    if isinstance(baselines, str):
        baselines = Baselines.compute(problem)
    planes = figure_planes(problem)
    cols = min(3, len(planes))
    rows = -(-len(planes) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols, 4.8 * rows), layout="constrained", squeeze=False)
    outcome = pick_outcome(result, baselines)
    for k, (ax, plane) in enumerate(zip(axes.ravel(), planes)):
        _draw_plane(result, plane, ax, baselines=baselines, highlight=outcome, legend=k == 0)
    for ax in axes.ravel()[len(planes):]:
        ax.set_axis_off()
    settings = result.settings
    fig.suptitle(title or f"post-impact set: {len(result):,d} of {len(result.kept):,d} samples kept "
                 f"(h = {settings.h:g}, N = {settings.max_steps}, seed {settings.seed})")
    return fig
