"""Nearest-neighbour search over outcomes: the kd-tree every part of reach builds, and a forest of them for sets.

:func:`kd_tree` is scipy's :class:`~scipy.spatial.cKDTree` with the sliding
midpoint rule (``balanced_tree=False``) and leaves of 32 points instead of
median splits and leaves of 16.  Queries are exact either way, so every
distance is the same bit for bit; only the time changes.  On the sets'
contact velocities the median splits cost 2-3 times as much (measured, one
core: the directed sampler's sparsity query of 8,192 outcomes against 2,048
took 62 ms on the disk stack (10 coordinates) with median splits and 18 ms
without, 36 and 24 ms on the quadruped touchdown (12), 14 and 10 ms on the
compass gait (4); 20,000 reference outcomes against a 2^16-sample
disk-stack set 200 and 62 ms, against a 2^14-sample quadruped set 145 and
55 ms).  Outcomes crowd on low-dimensional pieces of the set, where medians
make thin, deep cells.

A set's distances (:meth:`reach.sets.result.PostImpactSet.distance_to`) use a
:class:`Forest`: the points cut into cells as the top levels of a kd-tree cut
them (:func:`reach.kernels.select.halve_rows`), each cell's tree built on a
thread of its own.  One tree is built on one thread, and after a set on a GPU
the held-out distances wait for it while the other cores idle.  A query asks
the cell whose box is nearest, then every other cell whose box lies nearer
than the distance found.  A pair's distance is computed alike in any tree,
so the forest's distances are one tree's, bit for bit.  On the quadruped's
2^20-sample set and its 130,293 held-out outcomes, on two cores, the forest
built in 0.63 s instead of 0.98 s and measured the distances in 1.01 s
instead of 1.69 s; on one thread it took 0.82x and 0.77x one tree's time
(``bench/forest-index.log``, ``PYTHONPATH=. python bench/forest_index.py``).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial import cKDTree

from reach.kernels.select import box_distances, halve_rows

__all__ = ["LEAF_SIZE", "CELL_POINTS", "MAX_CELLS", "BOX_MARGIN", "QUERY_CHUNK", "kd_tree", "Forest"]

#: Points per leaf (scipy's default is 16; 32 was as fast or faster on every set measured above).
LEAF_SIZE = 32
#: A forest has a cell for every this many points (a power of two of them, at most :data:`MAX_CELLS`).
CELL_POINTS = 2**15
#: Most cells in a forest.
MAX_CELLS = 16
#: A cell is asked where its box's distance (times 1 + eps, scipy's) is below this factor times the distance found:
#: the box's distance is rounded apart from the points' own, and the margin keeps every cell that could hold a
#: nearer point.
BOX_MARGIN = 1.0 + 1e-9

#: Queries are asked of a cell's tree in pieces of at most this many, on threads.  A cell other than the nearest
#: box's is asked for queries of similar distance together, within the farthest of them (scipy takes one bound a
#: call): the nearer their own distances, the tighter the bound and the more it prunes.
QUERY_CHUNK = 2048


def kd_tree(points):
    """A :class:`scipy.spatial.cKDTree` of ``points`` (n, d): sliding-midpoint splits, :data:`LEAF_SIZE` per leaf."""
    return cKDTree(points, leafsize=LEAF_SIZE, balanced_tree=False)


class Forest:
    """The nearest-neighbour index of ``points`` (n, d): kd-trees of the cells of a kd-tree's top levels.

    ``threads`` (default: the machine's cores) cut the cells and build
    their trees.  :meth:`distances` gives each query's distance to the
    nearest point, the same bits as one :func:`kd_tree` of the points.
    """

    def __init__(self, points, *, threads=None):
        points = np.array(points, dtype=np.float64, order="C")  # a copy: the cut reorders its rows
        if points.ndim != 2 or len(points) == 0:
            raise ValueError(f"`points` must be a non-empty (n, d) array; got shape {points.shape}.")
        cells = 1
        while 2 * cells <= min(MAX_CELLS, len(points) // CELL_POINTS):
            cells *= 2
        with ThreadPoolExecutor(max(1, min(cells, threads or os.cpu_count() or 1))) as pool:
            bounds = _cut(points, cells, pool)
            parts = list(pool.map(lambda a, b: _part(points[a:b]), bounds[:-1], bounds[1:]))
        self.low = np.array([p[0] for p in parts])
        self.high = np.array([p[1] for p in parts])
        self.trees = [p[2] for p in parts]

    def __len__(self):
        return len(self.trees)

    def distances(self, queries, *, workers=1):
        """The distance of each of ``queries`` (..., d) to the nearest point (shape ``queries.shape[:-1]``; a float
        for one query); ``workers``: threads for the queries."""
        return self.upper_bounds(queries, eps=0.0, floor=-np.inf, workers=workers)

    def upper_bounds(self, queries, *, eps, floor=np.inf, workers=1):
        """For each of ``queries`` (..., d), the distance to some point: an upper bound on its nearest, cheap to
        find for a query far from every point (scipy's ``eps``).

        It is at most ``1 + eps`` times the nearest point's distance where it
        reaches ``floor``, and at most ``1 + eps`` times the nearest of the
        cell whose box is nearest elsewhere: the other cells are asked only
        where the first answer reaches ``floor``.  (Asked for every query, the
        other cells cost the climb of :mod:`reach.sets.farthest` several times
        as much as its whole bounds took from one tree.)  ``eps=0`` and
        ``floor=-inf``: :meth:`distances`.
        """
        queries, shape = _rows(queries)
        if len(self.trees) == 1:
            return self.trees[0].query(queries, eps=eps, workers=workers)[0].reshape(shape)[()]
        cells = range(len(self.trees))
        boxes = np.empty((len(self.trees), len(queries)))  # each box's distance from each query
        box_distances(self.low, self.high, queries, boxes)
        home = boxes.argmin(axis=0)
        dist = np.full(len(queries), np.inf)
        threads = (os.cpu_count() or 1) if workers == -1 else max(1, int(workers))
        with ThreadPoolExecutor(threads) as pool:
            self._ask(pool, queries, dist, [(c, np.flatnonzero(home == c)) for c in cells], eps)  # the nearest box
            todo = np.flatnonzero(dist >= floor)  # then each box that could hold a point nearer than 1 / (1 + eps)
            near = [((1.0 + eps) * boxes[c, todo] < BOX_MARGIN * dist[todo]) & (home[todo] != c) for c in cells]
            self._ask(pool, queries, dist, [(c, todo[near[c]]) for c in cells], eps, bounded=True)
        return dist.reshape(shape)[()]

    def _ask(self, pool, queries, dist, asks, eps, bounded=False):
        """Ask cell ``c``'s tree for the ``rows`` of each ``(c, rows)`` of ``asks``, in pieces of at most
        :data:`QUERY_CHUNK` on ``pool``'s threads; each row's ``dist`` becomes the least of it and the answer.
        ``bounded``: a piece holds rows of similar distance, and asks within the farthest of them."""
        pieces = []
        for c, rows in asks:
            if bounded:
                rows = rows[np.argsort(dist[rows], kind="stable")]
            for a in range(0, len(rows), QUERY_CHUNK):
                part = rows[a:a + QUERY_CHUNK]
                pieces.append((c, part, BOX_MARGIN * float(dist[part[-1]]) if bounded else np.inf))

        def ask(piece):
            c, part, bound = piece
            return self.trees[c].query(queries[part], eps=eps, distance_upper_bound=bound)[0]

        for (_, part, _), found in zip(pieces, pool.map(ask, pieces)):
            dist[part] = np.minimum(dist[part], found)


def _cut(points, cells, pool):
    """Halve every cell of ``points`` in place, level by level, a level's cells at once on ``pool``'s threads, until
    there are ``cells`` (a power of two): their rows' bounds, ``cells + 1`` of them."""
    bounds, d = [0, len(points)], points.shape[1]
    while len(bounds) - 1 < cells:
        starts, ends = bounds[:-1], bounds[1:]
        middles = pool.map(lambda a, b: halve_rows(points, a, b, np.empty(d), np.empty(d)), starts, ends)
        bounds = [x for a, m in zip(starts, middles) for x in (a, m)] + [len(points)]
    return bounds


def _part(points):
    """A cell's box (its points' least and greatest coordinates) and tree."""
    return points.min(axis=0), points.max(axis=0), kd_tree(points)


def _rows(queries):
    """``queries`` (..., d) as C-contiguous float rows (k, d), and the leading shape."""
    queries = np.asarray(queries, dtype=np.float64)
    return np.ascontiguousarray(queries.reshape(-1, queries.shape[-1])), queries.shape[:-1]
