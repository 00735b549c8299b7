"""How big is a set?  Indeterminacy measures of post-impact sets, for comparing and designing impacts.

All distances are in the kinetic-energy metric, relative to the pre-impact
momentum: for velocities ``v``, ``|v|_M = sqrt(v^T M v)`` (the paper's
``|p|_g`` of the momentum ``p = M v``), divided by ``|v0|_M``.

* :func:`diameter` -- the largest distance between two outcomes;
* :func:`spread` -- the root-mean-square distance of the outcomes from their mean;
* :func:`contact_ranges` -- per contact, the range of normal and tangential velocity;
* :func:`projection_areas` -- the convex-hull area of each contact's (tangential, normal) projection;
* :func:`normal_cosines` -- cosines between the contact normals in the ``M^-1`` metric: with
  no friction and every contact colliding, the set is the single plastic outcome (Seghete &
  Murphey's eq. 11) when none is positive (the normals are pairwise orthogonal or obtuse:
  an impulse at one contact never helps another one separate); friction, or a contact
  already at rest, changes that (the compass gait's set is a single outcome at some
  positive cosines and wide at others);
* :func:`measure` -- any of them by name, from a :class:`~reach.sets.result.PostImpactSet`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["diameter", "spread", "contact_ranges", "projection_areas", "normal_cosines", "measure", "MEASURES"]


def _metric_points(problem, V):
    L = np.linalg.cholesky(problem.M)
    norm0 = float(np.sqrt(problem.v @ problem.M @ problem.v))
    return np.asarray(V, dtype=float).reshape(-1, problem.nv) @ L / norm0


def diameter(problem, V):
    """Largest KE-metric distance between two of the outcomes V (k, nv), over ``|v0|_M`` (0 for fewer than 2)."""
    from scipy.spatial.distance import pdist

    W = _metric_points(problem, V)
    if len(W) < 2:
        return 0.0
    if len(W) > 4096:  # the diameter is attained on the convex hull
        from scipy.spatial import ConvexHull, QhullError

        try:
            W = W[ConvexHull(W, qhull_options="QJ").vertices] if W.shape[1] <= 6 else W
        except (QhullError, ValueError):
            pass
    return float(np.max(pdist(W)))


def spread(problem, V):
    """Root-mean-square KE-metric distance of the outcomes from their mean, over ``|v0|_M``."""
    W = _metric_points(problem, V)
    if len(W) < 2:
        return 0.0
    return float(np.sqrt(np.mean(np.sum((W - W.mean(axis=0)) ** 2, axis=1))))


def contact_ranges(problem, V):
    """``{name: {"normal": (lo, hi), "tangential": (lo, hi)}}`` over the outcomes (m/s)."""
    cv = problem.contact_velocities(np.asarray(V, dtype=float).reshape(-1, problem.nv))
    out = {}
    for i, name in enumerate(problem.contact_names):
        tangential = np.linalg.norm(cv[:, i, 1:], axis=-1) if cv.shape[-1] > 2 else cv[:, i, 1]
        out[name] = {"normal": (float(cv[:, i, 0].min()), float(cv[:, i, 0].max())),
                     "tangential": (float(tangential.min()), float(tangential.max()))}
    return out


def projection_areas(problem, V):
    """``{name: area}``: convex-hull area of each contact's (tangential, normal) velocities ((m/s)^2; planar)."""
    from scipy.spatial import ConvexHull, QhullError

    cv = problem.contact_velocities(np.asarray(V, dtype=float).reshape(-1, problem.nv))
    areas = {}
    for i, name in enumerate(problem.contact_names):
        pts = cv[:, i, :2]
        try:
            areas[name] = float(ConvexHull(pts).volume) if len(pts) >= 3 else 0.0
        except (QhullError, ValueError):
            areas[name] = 0.0  # collinear or coincident outcomes
    return areas


def normal_cosines(problem):
    """Cosines (m, m) between the contact normals in the ``M^-1`` metric."""
    G = problem.Jn @ np.linalg.solve(problem.M, problem.Jn.T)
    d = np.sqrt(np.diag(G))
    return G / np.outer(d, d)


#: The scalar measures :func:`measure` knows.
MEASURES = ("diameter", "spread", "xi", "max_cosine")


def measure(result, name="diameter"):
    """A scalar measure of a sampled set: ``diameter``, ``spread``, ``xi`` (Seghete-Murphey, elastic) or ``max_cosine``."""
    from reach.laws.propagative import indeterminacy, propagative

    problem = result.problem
    if name == "diameter":
        return diameter(problem, result.velocities)
    if name == "spread":
        return spread(problem, result.velocities)
    if name == "xi":
        return indeterminacy(problem, propagative(problem, 1.0).velocities)
    if name == "max_cosine":
        C = normal_cosines(problem)
        return float(np.max(C[~np.eye(len(C), dtype=bool)], initial=-1.0))
    raise ValueError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)}.")
