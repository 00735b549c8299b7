"""The outline of a projected post-impact set: an alpha shape of 2-D points.

The paper draws the post-impact set as a dark region (section 5.4).  Sampled
outcomes projected onto a contact-frame plane fill areas, but also lie on
curves and segments (the rocking block's set is an L of two segments), and a
convex or edge-ratio concave hull would bridge those.  :func:`outline_region`
therefore builds an *alpha shape*:

1. Points are scaled per axis by ``scale`` (normally the plotted ranges, so
   "tight" means tight as drawn) and thinned to one representative per cell
   of a ``resolution`` x ``resolution`` grid.
2. The Delaunay triangles of the representatives whose longest edge is at
   most ``alpha`` are united; ``alpha`` adapts to the sampling density
   (a multiple of the typical nearest-neighbour spacing, at least a few
   cells), so sparse sets do not fall apart into specks.
3. Points left uncovered (on curves, or isolated) are joined to their
   neighbours within ``alpha`` by segments; the union is grown by ``pad``
   (about one and a half cells), which covers every original point, and
   holes of only a few cells (gaps between samples) are filled.

Every original point lies within one cell diagonal of its representative, so
the region covers all of them (the tests check at least 99 %).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Region", "outline_region"]

#: Nearest neighbours a loose point is joined to.
NEIGHBOURS = 4


@dataclass(frozen=True)
class Region:
    """A 2-D region around projected outcomes.

    Attributes
    ----------
    geometry : shapely.Polygon or shapely.MultiPolygon
        The region, in data units.
    area : float
        Its area, in data units squared ((m/s)^2 for velocity planes).
    n_points : int
        Points it was built from.
    alpha : float
        Longest kept triangle edge, in scaled units (fractions of ``scale``).
    """

    geometry: object
    area: float
    n_points: int
    alpha: float

    def contains(self, points):
        """Whether each point (n, 2) lies in the region (boundary included): bool (n,)."""
        import shapely

        pts = np.atleast_2d(np.asarray(points, dtype=float))
        return shapely.intersects_xy(self.geometry, pts[:, 0], pts[:, 1])

    def fraction_inside(self, points):
        """Fraction of ``points`` (n, 2) inside the region."""
        inside = self.contains(points)
        return float(np.mean(inside)) if inside.size else float("nan")

    def exteriors(self):
        """Outline rings as a list of (k, 2) arrays (one per polygon part)."""
        parts = getattr(self.geometry, "geoms", [self.geometry])
        return [np.asarray(p.exterior.coords) for p in parts if not p.is_empty]

    def holes(self):
        """Interior rings as a list of (k, 2) arrays."""
        parts = getattr(self.geometry, "geoms", [self.geometry])
        return [np.asarray(r.coords) for p in parts if not p.is_empty for r in p.interiors]


def _thin_to_grid(points, resolution):
    """One representative (the first point) per occupied grid cell, in scaled [0, 1]^2 units."""
    cells = np.floor(points * resolution).astype(np.int64)
    cells = np.clip(cells, -1, resolution + 1)
    key = (cells[:, 0] + 2) * (resolution + 4) + (cells[:, 1] + 2)
    _, first = np.unique(key, return_index=True)
    return points[np.sort(first)]


def _fill_small_holes(geometry, min_area):
    import shapely

    parts = []
    for part in shapely.get_parts(geometry):
        if part.geom_type != "Polygon":
            continue
        holes = [ring for ring in part.interiors if shapely.Polygon(ring).area >= min_area]
        parts.append(shapely.Polygon(part.exterior, holes))
    return shapely.union_all(parts) if parts else geometry


def _nearest_spacing(points):
    if len(points) < 2:
        return 0.0
    from reach.sampling.nearest import kd_tree

    dist, _ = kd_tree(points).query(points, k=2)
    return float(np.quantile(dist[:, 1], 0.9))


def outline_region(points, *, scale=None, origin=None, resolution=300, alpha=None, pad_cells=1.5,
                   hole_cells=12):
    """Alpha-shape region around 2-D points (see the module docstring).

    Parameters
    ----------
    points : array_like, shape (n, 2)
        Projected outcomes, n >= 1.
    scale : (float, float), optional
        Per-axis lengths that map to one unit before thinning (default: the
        points' spans, floored at 1 % of the larger one).  Pass the plotted
        ranges to make the outline equally tight on both axes as drawn.
    origin : (float, float), optional
        Point mapped to 0 (default: the points' minimum).
    resolution : int
        Grid cells per scaled unit.
    alpha : float, optional
        Longest kept triangle edge in scaled units (default: adaptive,
        ``max(4 / resolution, 3 * spacing)`` with ``spacing`` the 90th
        percentile nearest-neighbour distance of the thinned points).
    pad_cells : float
        Growth of the triangle union, in cells.
    hole_cells : float
        Holes smaller than ``hole_cells`` x ``hole_cells`` cells are filled:
        at the sampling density they are gaps between samples, not structure.

    Returns
    -------
    Region

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> square = rng.uniform(0, 1, (5000, 2))
    >>> region = outline_region(square)
    >>> bool(0.95 < region.area < 1.05), region.fraction_inside(square)
    (True, 1.0)
    """
    import shapely
    from shapely import affinity

    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0:
        raise ValueError(f"`points` must have shape (n, 2) with n >= 1; got {pts.shape}.")
    if not np.all(np.isfinite(pts)):
        raise ValueError("`points` contains NaN or infinite entries.")
    if int(resolution) != resolution or resolution < 4:
        raise ValueError(f"`resolution` must be an integer >= 4; got {resolution!r}.")
    lo = pts.min(axis=0) if origin is None else np.asarray(origin, dtype=float)
    if scale is None:
        span = np.ptp(pts, axis=0)
        floor = max(0.01 * float(span.max()), 1e-3 * float(np.abs(pts).max()), 1e-9)
        scale = np.maximum(span, floor)
    scale = np.asarray(scale, dtype=float)
    if scale.shape != (2,) or not np.all(scale > 0):
        raise ValueError(f"`scale` must be two positive lengths; got {scale!r}.")
    unit = (pts - lo) / scale
    reps = _thin_to_grid(unit, int(resolution))
    cell = 1.0 / resolution
    if alpha is None:
        alpha = max(4.0 * cell, 3.0 * _nearest_spacing(reps))
    pad = pad_cells * cell
    parts = []
    if len(reps) >= 3:
        triangles = shapely.delaunay_triangles(shapely.multipoints(reps))
        tri = shapely.get_parts(triangles)
        if len(tri):
            coords = shapely.get_coordinates(tri).reshape(len(tri), 4, 2)[:, :3]
            edges = np.linalg.norm(coords - np.roll(coords, 1, axis=1), axis=2)
            keep = tri[edges.max(axis=1) <= alpha]
            keep = keep[shapely.area(keep) > 1e-9 * cell * cell]
            if len(keep):
                try:  # Delaunay triangles tile the plane: the fast coverage union applies
                    parts.append(shapely.coverage_union_all(keep))
                except shapely.errors.GEOSException:  # nearly degenerate triangles overlap by rounding
                    parts.append(shapely.union_all(keep))
    body = shapely.union_all(parts) if parts else shapely.Polygon()
    # Points no kept triangle covers lie on curves or alone: join near ones by segments.
    loose = reps if body.is_empty else reps[~shapely.intersects_xy(body, reps[:, 0], reps[:, 1])]
    extra = [body]
    if len(loose):
        extra.append(shapely.multipoints(loose))
    if len(loose) >= 2:
        from reach.sampling.nearest import kd_tree

        k = min(NEIGHBOURS, len(loose) - 1)
        dist, idx = kd_tree(loose).query(loose, k=k + 1, distance_upper_bound=alpha)
        near = np.isfinite(dist[:, 1:])
        if near.any():
            a = np.repeat(np.arange(len(loose)), k)[near.ravel()]
            b = idx[:, 1:][near]
            extra.extend(shapely.linestrings(np.stack([loose[a], loose[b]], axis=1)))
    body = shapely.union_all(extra).buffer(pad, quad_segs=4)
    body = _fill_small_holes(body, (hole_cells * cell) ** 2)
    geometry = affinity.affine_transform(body, [scale[0], 0.0, 0.0, scale[1], lo[0], lo[1]])
    return Region(geometry=geometry, area=float(geometry.area), n_points=len(pts), alpha=float(alpha))
