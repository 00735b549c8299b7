"""Contact-frame planes: the impact process of a post-impact set, projected (paper section 5.4).

A *plane* is a pair of contact-frame coordinates, each written
``"<contact>.<component>"``: ``"A.normal"`` is the normal velocity
``J_n,A v`` of contact A, ``"A.tangent"`` its tangential velocity
``J_t,A v`` (``"n"``, ``"t"``, ``"tangential"`` also accepted; spatial
problems have ``"A.tangent1"`` and ``"A.tangent2"``).  The paper's figures use
normal(A) vs normal(B) and, per contact, tangential vs normal.

:func:`plot_contact_plane` draws, in that plane, with the paper's encoding:

* the sampled impact-resolving paths as thin light-grey lines,
* the post-impact outcomes as dark points inside a grey region outlined by
  :func:`reach.plotting.region.outline_region` (its area in the legend),
* the sequential resolutions (A first, B first, ...) as coloured lines with
  end markers, the simultaneous (Anitescu-Potra) solutions as open blue diamonds (drawn above the rest),
* the pre-impact point, and optionally one highlighted outcome (a star).

Colours are chosen to stay apart in greyscale print: the sequential lines
also differ in dash and end marker, the simultaneous markers in shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from reach.analysis.baselines import Baselines
from reach.plotting.region import outline_region

__all__ = ["PlanePlot", "parse_axis", "axis_label", "project", "plot_contact_plane",
           "plot_contact_frame", "STYLE"]

#: Drawing style of each element (matplotlib keyword arguments).
STYLE = {
    "paths": dict(color="0.78", lw=0.35, alpha=0.6, zorder=1),
    "region": dict(facecolor="0.62", edgecolor="0.05", lw=1.0, alpha=0.45, zorder=2),
    "outline": dict(color="0.05", lw=1.0, zorder=4),
    "outcomes": dict(color="0.15", s=2.0, marker="o", linewidths=0, zorder=3),
    "pre": dict(marker="o", ms=8, mfc="white", mec="black", mew=1.5, ls="none", zorder=8),
    # an open diamond above the other markers: it often sits on the stepper or the propagative outcome
    "simultaneous": dict(marker="D", ms=12, mfc="none", mec="#1f5fbf", mew=2.2, ls="none", zorder=11),
    "stepper": dict(marker="X", ms=10, mfc="#ff7f0e", mec="black", mew=0.8, ls="none", zorder=9),
    "propagative": dict(marker="^", ms=9, mfc="#2ca02c", mec="black", mew=0.8, ls="none", zorder=9),
    "highlight": dict(marker="*", ms=15, mfc="white", mec="black", mew=1.0, ls="none", zorder=10),
    "zero": dict(color="0.55", lw=0.7, ls=(0, (4, 3)), zorder=0),
}
#: Sequential resolutions: colour, dash and end marker per starting contact (red, gold, ...).
SEQUENTIAL_STYLES = (
    dict(color="#d62728", ls="-", marker="s"),
    dict(color="#e8a900", ls=(0, (5, 2)), marker="^"),
    dict(color="#2ca02c", ls=(0, (1, 1.5)), marker="v"),
    dict(color="#9467bd", ls="-.", marker="P"),
    dict(color="#8c564b", ls=(0, (3, 1, 1, 1)), marker="X"),
)
MAX_PATHS = 3000
#: An inset zooms on the outcomes when they span less than this fraction of the axes.
ZOOM_FRACTION = 0.34
#: Inset size as a fraction of the axes.
INSET_SIZE = 0.45
DISPLAY_GRID = 1200

_COMPONENTS = {"normal": 0, "n": 0, "tangent": 1, "tangential": 1, "t": 1,
               "tangent1": 1, "t1": 1, "tangent2": 2, "t2": 2}


def parse_axis(problem, spec):
    """``"A.normal"`` -> (contact index, component index); ValueError naming valid choices."""
    if not isinstance(spec, str) or "." not in spec:
        raise ValueError(f"an axis must be written '<contact>.<component>', e.g. 'A.normal'; got {spec!r}.")
    contact, _, component = spec.rpartition(".")
    names = list(problem.contact_names)
    if contact not in names:
        raise ValueError(f"unknown contact {contact!r} in axis {spec!r}; the contacts are {names}.")
    key = component.strip().lower()
    if key not in _COMPONENTS or _COMPONENTS[key] > problem.tangent_dim:
        valid = "normal, tangent" if problem.tangent_dim == 1 else "normal, tangent1, tangent2"
        raise ValueError(f"unknown component {component!r} in axis {spec!r}; use one of: {valid}.")
    return names.index(contact), _COMPONENTS[key]


def axis_label(problem, spec):
    """Axis label naming the contact, the component and the unit."""
    i, k = parse_axis(problem, spec)
    what = "normal" if k == 0 else ("tangential" if problem.tangent_dim == 1 else f"tangential ({k})")
    return f"{what} velocity at {problem.contact_names[i]} [m/s]"


def project(problem, V, axes):
    """Velocities V (..., nv) -> plane coordinates (..., 2)."""
    (i, a), (j, b) = (parse_axis(problem, s) for s in axes)
    cv = problem.contact_velocities(np.asarray(V, dtype=float))
    return np.stack([cv[..., i, a], cv[..., j, b]], axis=-1)


@dataclass
class PlanePlot:
    """What :func:`plot_contact_plane` drew.

    Attributes
    ----------
    ax : matplotlib.axes.Axes
    region : Region or None
        The outline of the projected outcomes (None without outcomes).
    handles : dict of str -> artist
        Legend entries by label, for a shared legend.
    points : ndarray, shape (n, 2)
        The projected outcomes (mirror images included).
    inset : matplotlib.axes.Axes or None
        The zoom on the outcomes, if one was added.
    """

    ax: object
    region: object
    handles: dict
    points: np.ndarray
    inset: object = None


def _with_mirror(V, mirror):
    if mirror is None:
        return V
    S = np.asarray(mirror, dtype=float)
    return np.concatenate([V, V @ S.T])


def _thin_for_display(xy, lo, span):
    """One point per display-grid cell (points drawn on top of each other add nothing)."""
    if len(xy) <= 20000:
        return xy
    cells = np.floor((xy - lo) / span * DISPLAY_GRID).astype(np.int64)
    _, first = np.unique(cells[:, 0] * (4 * DISPLAY_GRID) + cells[:, 1], return_index=True)
    return xy[np.sort(first)]


def _limits(clouds):
    """Axis ranges with a 7 % margin; a degenerate range is widened to 10 % of the other."""
    allxy = np.vstack([c for c in clouds if len(c)])
    lo, hi = allxy.min(axis=0), allxy.max(axis=0)
    span = hi - lo
    biggest = max(float(span.max()), 1e-6 * max(float(np.abs(allxy).max()), 1.0), 1e-12)
    for d in range(2):
        if span[d] < 0.1 * biggest:
            centre = 0.5 * (lo[d] + hi[d])
            lo[d], hi[d] = centre - 0.05 * biggest, centre + 0.05 * biggest
    span = hi - lo
    return lo - 0.07 * span, hi + 0.07 * span


def _merge_identical(seq):
    """Group sequential paths that coincide: list of (names, path)."""
    groups = []
    for name, pxy in seq.items():
        for names, other in groups:
            if other.shape == pxy.shape and np.allclose(other, pxy, rtol=0, atol=1e-9 * (1 + np.abs(pxy).max())):
                names.append(name)
                break
        else:
            groups.append(([name], pxy))
    return groups


def _area_text(area):
    return f"{area:.2g}" if area >= 1e-3 else f"{area:.1e}"


def plot_contact_plane(result, axes=("A.normal", "B.normal"), ax=None, *, mirror=None, baselines="auto",
                       paths=True, max_paths=MAX_PATHS, outline=True, highlight=None, legend=True,
                       title=None, equal_aspect=False, rasterized=True, region_resolution=300, inset=True):
    """Draw the impact process of ``result`` projected onto one contact-frame plane.

    Parameters
    ----------
    result : PostImpactSet
    axes : (str, str)
        The x and y coordinates, e.g. ``("A.normal", "B.normal")`` or
        ``("A.tangent", "A.normal")``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; a new figure is made if omitted.
    mirror : array_like (nv, nv), optional
        A symmetry map S; outcomes and paths are duplicated as ``S v`` (the
        paper did this for symmetric scenarios).
    baselines : "auto", Baselines or None
        ``"auto"`` computes :meth:`Baselines.compute` for ``result.problem``;
        pass a precomputed one to draw several planes, None for none.
    paths : bool
        Draw the sampled paths (``result.paths``), at most ``max_paths`` of
        them (evenly thinned).
    outline : bool
        Outline the outcomes' region and report its area in the legend.
    highlight : array_like (nv,), optional
        One outcome to mark with a star (e.g. the one drawn in a configuration panel).
    legend : bool
        Add a legend inside the axes (off when a figure has a shared legend).
    title : str, optional
    equal_aspect : bool
        Equal scales on both axes (the axes box shrinks to fit).
    rasterized : bool
        Rasterize the paths and points (keeps PDFs small).
    region_resolution : int
        Grid resolution of the outline (see :func:`outline_region`).
    inset : bool
        When the outcomes span under a third of the axes (the paths reach far
        from them), add an inset zoomed on them, in the emptiest corner.

    Returns
    -------
    PlanePlot
    """
    import matplotlib.pyplot as plt

    problem = result.problem
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"`axes` must name two coordinates; got {axes!r}.")
    for spec in axes:
        parse_axis(problem, spec)
    own_figure = ax is None
    if own_figure:
        _, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
    if isinstance(baselines, str):
        if baselines != "auto":
            raise ValueError(f"`baselines` must be 'auto', a Baselines or None; got {baselines!r}.")
        baselines = Baselines.compute(problem)

    V = _with_mirror(np.asarray(result.velocities, dtype=float).reshape(-1, problem.nv), mirror)
    xy = project(problem, V, axes) if len(V) else np.zeros((0, 2))
    pre = project(problem, problem.v, axes)
    path_list = []
    if paths and result.paths:
        stride = max(1, int(np.ceil(len(result.paths) * (1 if mirror is None else 2) / max_paths)))
        chosen = result.paths[::stride]
        path_list = [project(problem, p, axes) for p in chosen]
        if mirror is not None:
            path_list += [project(problem, _with_mirror(p, mirror)[len(p):], axes) for p in chosen]
    sim = stepper = propagated = np.zeros((0, 2))
    seq = []
    if baselines is not None:
        if baselines.simultaneous.size:
            sim = project(problem, baselines.simultaneous, axes)
        if baselines.stepper.size:
            stepper = project(problem, baselines.stepper, axes)
        if baselines.propagative.size:
            propagated = project(problem, baselines.propagative, axes)
        seq = [(names, project(problem, p, axes)) for names, p in _merge_identical(baselines.sequential)]
    star = None if highlight is None else project(problem, highlight, axes)

    clouds = [pre[None], xy, sim, stepper, propagated, *path_list, *(p for _, p in seq)]
    if star is not None:
        clouds.append(star[None])
    lo, hi = _limits(clouds)
    span = hi - lo
    zoom = _zoom_box(xy, np.vstack([sim, stepper, propagated]), seq, star, lo, hi) if inset else None
    region = None
    if len(xy) and outline:
        # Tight as drawn: in the zoom when there is one.
        box_lo, box_hi = (lo, hi) if zoom is None else zoom
        region = outline_region(xy, scale=box_hi - box_lo, origin=box_lo, resolution=region_resolution)
    layers = dict(xy=xy, paths=path_list, sim=sim, seq=seq, pre=pre, star=star, region=region, stepper=stepper,
                  stepper_label=None if baselines is None else baselines.stepper_label, propagated=propagated,
                  propagative_label=None if baselines is None else baselines.propagative_label,
                  mirror=mirror is not None, rasterized=rasterized)
    handles = _draw_layers(ax, layers, lo, span)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    if equal_aspect:
        ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(axis_label(problem, axes[0]))
    ax.set_ylabel(axis_label(problem, axes[1]))
    ax.grid(alpha=0.25, lw=0.5)
    if title:
        ax.set_title(title)
    inset_ax = None
    if zoom is not None:
        inset_ax = _add_inset(ax, layers, zoom, clouds, lo, hi)
    if inset_ax is not None:  # the zoom keeps the axes' quantities: say so, in short
        inset_ax.set_xlabel(_short(ax.get_xlabel()), fontsize=6, labelpad=1)
        inset_ax.set_ylabel(_short(ax.get_ylabel()), fontsize=6, labelpad=1)
        inset_ax.set_title("zoom", fontsize=7, pad=2)
    if legend:
        # "best" avoids the data but not the zoomed inset: with an inset, the legend goes beside the axes
        where = dict(loc="best") if inset_ax is None else dict(loc="upper left", bbox_to_anchor=(1.02, 1.0))
        if inset_ax is not None and own_figure:
            ax.figure.set_size_inches(8.4, 4.6)
        ax.legend(list(handles.values()), list(handles), fontsize=8, framealpha=0.9, **where)
    return PlanePlot(ax=ax, region=region, handles=handles, points=xy, inset=inset_ax)


def _short(label):
    """:func:`axis_label` in short for an inset: ``normal velocity at A [m/s]`` -> ``vn A [m/s]``."""
    label = label.replace("normal velocity at ", "vn ")
    return re.sub(r"tangential(?: \((\d)\))? velocity at ", lambda m: f"vt{m.group(1) or ''} ", label)


def _zoom_box(xy, sim, seq, star, lo, hi):
    """Limits of a zoom on the outcomes, or None when they already fill the axes."""
    pieces = [xy, sim] + [p[-1:] for _, p in seq] + ([star[None]] if star is not None else [])
    pieces = [p for p in pieces if len(p)]
    if not pieces:
        return None
    extent = np.ptp(np.vstack(pieces), axis=0) / (hi - lo)
    if extent.min() < 0.01:
        return None  # the outcomes lie on a line along an axis: a zoom shows nothing new
    zlo, zhi = _limits(pieces)
    if np.max((zhi - zlo) / (hi - lo)) > ZOOM_FRACTION:
        return None
    return zlo, zhi


def _add_inset(ax, layers, zoom, clouds, lo, hi):
    """An inset zoomed on the outcomes, in the corner of the axes with the least data."""
    zlo, zhi = zoom
    pts = np.vstack([c for c in clouds if len(c)])
    pts = (pts - lo) / (hi - lo)
    zbox = np.vstack([(zlo - lo) / (hi - lo), (zhi - lo) / (hi - lo)])
    size = INSET_SIZE
    best, where = None, None
    for x0 in (0.13, 0.97 - size):  # room for the inset's tick labels inside the axes
        for y0 in (0.1, 0.97 - size):
            box = np.array([[x0, y0], [x0 + size, y0 + size]])
            if np.all(zbox[1] > box[0] - 0.02) and np.all(zbox[0] < box[1] + 0.02):
                continue  # would hide the zoomed data itself
            inside = np.all((pts >= box[0]) & (pts <= box[1]), axis=1).sum()
            if best is None or inside < best:
                best, where = inside, (x0, y0)
    if where is None:
        return None
    inset = ax.inset_axes([where[0], where[1], size, size])
    _draw_layers(inset, layers, zlo, zhi - zlo)
    inset.set_xlim(zlo[0], zhi[0])
    inset.set_ylim(zlo[1], zhi[1])
    inset.tick_params(labelsize=7, length=2, pad=1.5)
    inset.set_facecolor("white")
    inset.set_zorder(20)
    for spine in inset.spines.values():
        spine.set_edgecolor("0.3")
    ax.indicate_inset_zoom(inset, edgecolor="0.3", lw=0.8, alpha=0.9)
    return inset


def _draw_layers(ax, layers, lo, span):
    """Draw one plane's layers into ``ax``; returns the legend handles by label."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, PathPatch
    from matplotlib.path import Path as MplPath

    handles = {}
    rasterized = layers["rasterized"]
    # Zero lines: the non-penetration boundary (normal) and stiction (tangential).
    ax.axhline(0.0, **STYLE["zero"])
    ax.axvline(0.0, **STYLE["zero"])
    if layers["paths"]:
        ax.add_collection(LineCollection(layers["paths"], rasterized=rasterized, **STYLE["paths"]))
        handles["sampled paths"] = Line2D([], [], color=STYLE["paths"]["color"], lw=1.5)
    xy, region = layers["xy"], layers["region"]
    if region is not None:
        verts, codes = [], []
        for ring in region.exteriors() + region.holes():
            verts.append(ring)
            codes.append([MplPath.MOVETO] + [MplPath.LINETO] * (len(ring) - 2) + [MplPath.CLOSEPOLY])
        patch_path = MplPath(np.vstack(verts), np.concatenate(codes))
        style = STYLE["region"]
        ax.add_patch(PathPatch(patch_path, facecolor=style["facecolor"], alpha=style["alpha"],
                               edgecolor="none", zorder=style["zorder"]))
        ax.add_patch(PathPatch(patch_path, facecolor="none", edgecolor=style["edgecolor"], lw=style["lw"],
                               zorder=STYLE["outline"]["zorder"]))
        handles[f"post-impact region (area {_area_text(region.area)} m²/s²)"] = Patch(
            facecolor=style["facecolor"], alpha=0.8, edgecolor=style["edgecolor"], lw=style["lw"])
    if len(xy):
        shown = _thin_for_display(xy, lo, span)
        ax.scatter(shown[:, 0], shown[:, 1], rasterized=rasterized, **STYLE["outcomes"])
        count = f"{len(xy):,d}" + (" incl. mirror images" if layers["mirror"] else "")
        handles[f"post-impact outcomes ({count})"] = Line2D([], [], color=STYLE["outcomes"]["color"],
                                                             marker="o", ms=4, ls="none")
    for k, (names, pxy) in enumerate(layers["seq"]):
        st = SEQUENTIAL_STYLES[k % len(SEQUENTIAL_STYLES)]
        ax.plot(pxy[:, 0], pxy[:, 1], color=st["color"], ls=st["ls"], lw=2.0, zorder=6)
        ax.plot(pxy[-1, 0], pxy[-1, 1], marker=st["marker"], ms=8, color=st["color"], mec="black", mew=0.8,
                ls="none", zorder=7)
        label = f"sequential, {names[0]} first" if len(names) == 1 else \
            f"sequential, {' or '.join(names)} first (same path)"
        handles[label] = Line2D([], [], color=st["color"], ls=st["ls"], lw=2.0, marker=st["marker"], ms=7,
                                mec="black", mew=0.8)
    sim = layers["sim"]
    if len(sim):
        ax.plot(sim[:, 0], sim[:, 1], **STYLE["simultaneous"])
        handles[f"simultaneous (Anitescu-Potra){'' if len(sim) == 1 else f', {len(sim)} solutions'}"] = \
            Line2D([], [], **STYLE["simultaneous"])
    for key, style in (("stepper", "stepper"), ("propagated", "propagative")):
        if len(layers[key]):
            ax.plot(layers[key][:, 0], layers[key][:, 1], **STYLE[style])
            handles[layers[f"{style}_label"]] = Line2D([], [], **STYLE[style])
    ax.plot(*layers["pre"], **STYLE["pre"])
    handles["pre-impact"] = Line2D([], [], **STYLE["pre"])
    if layers["star"] is not None:
        ax.plot(*layers["star"], **STYLE["highlight"])
        handles["one outcome, the same in every panel"] = Line2D([], [], **STYLE["highlight"])
    return handles


def plot_contact_frame(result, contact="A", ax=None, **options):
    """Tangential (x) vs normal (y) velocity of one contact; see :func:`plot_contact_plane`.

    ``contact`` is a contact name or index; ``options`` go to :func:`plot_contact_plane`.
    """
    names = list(result.problem.contact_names)
    name = names[int(contact)] if not isinstance(contact, str) else contact
    if result.problem.tangent_dim != 1:
        axes = (f"{name}.tangent1", f"{name}.normal")
    else:
        axes = (f"{name}.tangent", f"{name}.normal")
    options.setdefault("title", f"contact {name}")
    return plot_contact_plane(result, axes, ax, **options)
