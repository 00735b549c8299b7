"""Regions of 2-D point sets and how well other outcomes fit them.

Used to compare outcomes of other models (compliant contact, MuJoCo) with a
sampled post-impact set projected onto a plane (e.g. the A-normal/B-normal
plane): :func:`containment` — how many outcomes lie within eps of the set's
region, and how far the worst one is; :func:`coverage` — how much of the
region's outline lies within eps of some outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["set_region", "containment", "coverage", "Containment", "Coverage", "as_points", "region_outline",
           "stiffness_patterns", "check_set_of"]


def set_region(set_points_2d, ratio: float = 0.3, thickness: float | None = None):
    """Region of a 2-D point set: its concave hull (:func:`shapely.concave_hull`).

    Parameters
    ----------
    set_points_2d : array_like, shape (p, 2)
    ratio : float
        ``shapely.concave_hull`` ratio (0: tightest, 1: convex hull).
    thickness : float, optional
        If given, the region is instead the union of discs of this radius
        around the points.  Use it when the set lies *exactly* on lines (the
        rocking block's set is an L of two segments): the concave hull of
        exactly collinear branches cannot be thinned and degenerates to
        their convex hull.

    Returns
    -------
    shapely geometry
        Polygon (MultiPolygon with ``thickness``), or LineString/Point for
        collinear or single-point sets.
    """
    import shapely

    pts = as_points("set_points_2d", set_points_2d)
    if thickness is not None:
        if not thickness > 0:
            raise ValueError(f"`thickness` must be positive; got {thickness!r}.")
        # Snap to a grid of thickness / 4 first: sets hold many (near-)duplicates.
        grid = 0.25 * thickness
        pts = np.unique(np.round(pts / grid), axis=0) * grid
        return shapely.unary_union(shapely.buffer(shapely.points(pts), thickness, quad_segs=4))
    return shapely.concave_hull(shapely.MultiPoint(pts), ratio=ratio)


@dataclass(frozen=True)
class Containment:
    """``fraction`` of outcomes within ``eps`` of the region; ``distances`` (n,)."""

    fraction: float
    worst_distance: float
    distances: np.ndarray


@dataclass(frozen=True)
class Coverage:
    """``fraction`` of outline samples ``outline`` (b, 2) within ``eps`` of an outcome."""

    fraction: float
    outline: np.ndarray
    distances: np.ndarray


def as_points(name, value):
    """``value`` as a finite (p, 2) float array, or a ValueError naming ``name``."""
    pts = np.asarray(value, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0:
        raise ValueError(f"`{name}` must have shape (n, 2), n >= 1; got {pts.shape}.")
    return pts


def containment(outcomes_2d, set_points_2d, eps: float, *, ratio: float = 0.3,
                thickness: float | None = None) -> Containment:
    """Fraction of outcomes within ``eps`` of the set's region.

    Parameters
    ----------
    outcomes_2d : array_like, shape (n, 2)
        Compliant outcomes, e.g. (A-normal, B-normal) velocities.
    set_points_2d : array_like, shape (p, 2)
        Points of the set in the same plane.
    eps : float
    ratio, thickness
        Region construction, see :func:`set_region`.

    Returns
    -------
    Containment
        Distance 0 for outcomes inside the region.
    """
    import shapely

    outcomes = as_points("outcomes_2d", outcomes_2d)
    region = set_region(set_points_2d, ratio, thickness)
    distances = shapely.distance(shapely.points(outcomes), region)
    return Containment(float(np.mean(distances <= eps)), float(distances.max()), distances)


def region_outline(region):
    """The boundary curves of a shapely region (polygons give their exterior and holes)."""
    if region.geom_type == "Polygon":
        return [region.exterior]
    if region.geom_type.startswith("Multi") or region.geom_type == "GeometryCollection":
        return [line for part in region.geoms for line in region_outline(part)]
    return [region]  # LineString or Point: the geometry is its own outline


def coverage(outcomes_2d, set_points_2d, eps: float, *, n_outline: int = 400,
             ratio: float = 0.3, thickness: float | None = None) -> Coverage:
    """Fraction of the set region's outline within ``eps`` of some outcome.

    Parameters
    ----------
    outcomes_2d : array_like, shape (n, 2)
    set_points_2d : array_like, shape (p, 2)
    eps : float
    n_outline : int
        Outline samples, spread over the outline's parts by length.
    ratio, thickness
        Region construction, see :func:`set_region`.

    Returns
    -------
    Coverage
    """
    import shapely

    outcomes = as_points("outcomes_2d", outcomes_2d)
    region = set_region(set_points_2d, ratio, thickness)
    parts = region_outline(region)
    lengths = np.array([p.length for p in parts])
    samples = []
    for part, length in zip(parts, lengths):
        if length == 0:
            samples.append(np.array(part.coords)[:1])
            continue
        count = max(2, int(round(n_outline * length / lengths.sum())))
        pts = shapely.line_interpolate_point(part, np.linspace(0, 1, count), normalized=True)
        samples.append(shapely.get_coordinates(pts))
    outline = np.vstack(samples)
    diff = outline[:, None, :] - outcomes[None, :, :]
    distances = np.sqrt((diff**2).sum(-1)).min(axis=1)
    return Coverage(float(np.mean(distances <= eps)), outline, distances)


def stiffness_patterns(m, ratios):
    """Per-contact stiffness multipliers, one row per ratio ``k_0 / k_rest``: the softer side stays at 1."""
    patterns = []
    for ratio in ratios:
        s = np.ones(m)
        if ratio >= 1:
            s[0] = ratio
        else:
            s[1:] = 1.0 / ratio
        patterns.append(s)
    return patterns


def check_set_of(problem, result):
    """A ValueError unless ``result`` is a non-empty set of ``problem`` (what a simulator sweep measures against)."""
    if result.problem.fingerprint() != problem.fingerprint():
        raise ValueError("`result` was computed for a different problem than `impact.problem`.")
    if len(result) == 0:
        raise ValueError("`result` is empty: no sample ended non-colliding.")
