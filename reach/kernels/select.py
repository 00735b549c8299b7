"""Selection kernels for the sampler's Python layer.

:func:`top_along` finds the support points along each direction, from
projections counted in cells of a grid, one direction at a time, with a
bounded min-heap for each direction's edge: ``O(n log k)`` whatever the
duplicates, where ``np.partition`` over 64 rows at once slowed several-fold on
the many equal scores of a low-dimensional set (measured: 48 ms for 64 rows of
35k compass-gait scores with 6k distinct values per row); :func:`grid_squares` gives the
squared norms of the outer shell.  :func:`standardized_rows` gives the points
they score: contact velocities, standardized.  :func:`perturbed_caps` makes
the children's caps from their parents' and the round's random numbers.  Measured on a compass-gait
round at 2^18 samples, these kernels took the parent selection from 67 to
about 35 ms (``einsum``, ``np.round``, ``np.partition`` and a (64, n) score
array had cost most of it).  :func:`equal_rows` groups equal rows of integer
cell keys in a hash table, where ``np.unique(axis=0)`` sorted them: 0.009 s
instead of 0.305 s for the 130,293 held-out outcomes of a 2^20-sample
quadruped set, the same groups (``bench/host-parts.log``,
``PYTHONPATH=. python bench/host_parts.py``).  :func:`halve_rows` cuts a cell
of points as a kd-tree does, in place, and :func:`box_distances` measures
queries' distances to the cells' boxes, for the forest of
:mod:`reach.sampling.nearest`.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.jit import counted, kernel
from reach.kernels.rng import splitmix64

__all__ = ["top_along", "grid_squares", "standardized_rows", "projected_rows",
           "standardize_columns", "perturbed_caps", "equal_rows", "halve_rows", "box_distances"]


@kernel(inline="always")
def _sift_down(heap, i, k):
    """Move ``heap[i]`` down until ``heap[:k]`` is a min-heap below it."""
    while True:
        left = 2 * i + 1
        if left >= k:
            return
        small = left
        if left + 1 < k and heap[left + 1] < heap[left]:
            small = left + 1
        if heap[small] >= heap[i]:
            return
        heap[i], heap[small] = heap[small], heap[i]
        i = small


@kernel(inline="always")
def _kth_largest(values, k, heap):
    """The k-th largest of ``values`` (n,), ``1 <= k <= n``, with ``heap`` (k,) float scratch."""
    for i in range(k):  # the first k values, heapified from the bottom up
        heap[i] = values[i]
    for i in range(k // 2 - 1, -1, -1):
        _sift_down(heap, i, k)
    for i in range(k, values.shape[0]):
        x = values[i]
        if x > heap[0]:
            heap[0] = x
            _sift_down(heap, 0, k)
    return float(heap[0])


@counted(nogil=True)
def top_along(directions, pts, per_unit, top):
    """For each direction, the ``top`` points reaching farthest along it: local indices, shape (D, top).

    ``directions`` (D, d), ``pts`` (n, d), ``1 <= top <= n``.  A point's
    reach is its projection counted in cells of ``1 / per_unit``,
    ``rint(per_unit * direction . point)``, so rounding noise in the points (a
    change of units brings some) leaves the order alone but for values on a
    cell's edge; equal reaches go to the lower index.  One direction's
    projections at a time, in a reused row: a (D, n) array of them cost more
    in page faults than in arithmetic.  Only the points reaching beyond the
    ``top``-th reach are sorted; those reaching it exactly follow in index
    order.  (Sorting every point at the edge cost most of the time where many
    tie there: 12,397 points of a compass-gait shell along one direction.)
    """
    D, d = directions.shape
    n = pts.shape[0]
    columns = np.ascontiguousarray(pts.T)  # the loop over points runs along memory
    row = np.empty(n)
    heap = np.empty(top)
    out = np.empty((D, top), dtype=np.int64)
    for k in range(D):
        for i in range(n):
            row[i] = 0.0
        for j in range(d):  # sums in the order of a loop over j per point
            w = directions[k, j]
            for i in range(n):
                row[i] += w * columns[j, i]
        for i in range(n):
            row[i] = np.rint(per_unit * row[i])
        edge = _kth_largest(row, top, heap)
        above = 0  # fewer than top reach beyond the edge; the rest of the top reach it exactly
        for i in range(n):
            above += row[i] > edge
        candidates = np.empty(above, dtype=np.int64)
        above = 0
        for i in range(n):
            if row[i] > edge:
                candidates[above] = i
                above += 1
        order = np.argsort(-row[candidates], kind="mergesort")  # stable: equal reaches keep index order
        for t in range(above):
            out[k, t] = candidates[order[t]]
        t = above
        for i in range(n):  # then the edge's own, in index order (what sorting all of them put there)
            if t == top:
                break
            if row[i] == edge:
                out[k, t] = i
                t += 1
    return out


@counted
def grid_squares(pts, per_unit):
    """``rint(per_unit * |pts[i]|^2)`` for each row: squared norms in grid cells, shape (n,)."""
    n, d = pts.shape
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(d):
            acc += pts[i, j] * pts[i, j]
        out[i] = np.rint(per_unit * acc)
    return out


#: Rows :func:`standardized_rows` projects at a time: each dot product's terms are added in order, so
#: a row at a time is a chain of dependent additions; a block of rows is added across the rows instead,
#: which vectorizes.  With the columns' sums taken in one pass over the rows (not one strided pass a
#: column), 850,000 rows of the quadruped's sizes took 0.14 s instead of 0.33, the same bits
#: (``bench/standardized-rows.log``, ``PYTHONPATH=. python bench/standardized_rows.py``).  The projection
#: (:func:`projected_rows`) in two parts on two threads, as the directed selection runs it: 0.032 s
#: instead of 0.053 s.
ROWS_A_BLOCK = 256


@counted(nogil=True)
def standardized_rows(J, V, index, floor):
    """``(J @ V[index].T).T`` with each column's mean removed and divided by its spread (at least ``floor``).

    ``J`` (d, nv), ``V`` (N, nv), ``index`` the rows of ``V`` to take; returns
    (len(index), d).  The spread is the root mean square about the mean (as
    ``np.std``); the floor keeps a coordinate that is constant up to rounding
    at zero instead of amplifying its noise.  Sums run in row order, so the
    answer depends only on the rows, not on how they were computed:
    :func:`projected_rows` on parts of ``index`` (on threads), then
    :func:`standardize_columns`, give it bit for bit.
    """
    out = np.empty((index.shape[0], J.shape[0]))
    projected_rows(J, V, index, out)
    standardize_columns(out, floor)
    return out


@counted(nogil=True)
def projected_rows(J, V, index, out):
    """``out[k] = J @ V[index[k]]`` for each k, each entry's sum over ``V``'s columns in order.

    Each row's value depends on that row alone, so parts of ``index`` may be
    projected on threads of their own.
    """
    n, d, nv = index.shape[0], J.shape[0], J.shape[1]
    block = np.empty((d, ROWS_A_BLOCK))  # the products of a block of rows, coordinate by coordinate
    column = np.empty(ROWS_A_BLOCK)
    for start in range(0, n, ROWS_A_BLOCK):
        rows = min(n - start, ROWS_A_BLOCK)
        block[:, :rows] = 0.0
        for j in range(nv):  # each entry's sum still runs over j in order: the same bits as a row at a time
            for k in range(rows):
                column[k] = V[index[start + k], j]
            for a in range(d):
                c = J[a, j]
                for k in range(rows):  # across rows, so it vectorizes
                    block[a, k] += c * column[k]
        for k in range(rows):
            for a in range(d):
                out[start + k, a] = block[a, k]


@counted(nogil=True)
def standardize_columns(out, floor):
    """Remove each column's mean from ``out`` (n, d) and divide it by its spread (at least ``floor``), in place.

    All columns in one pass over the rows; each column's sums still run over
    the rows in order.
    """
    n, d = out.shape
    mean = np.zeros(d)
    for i in range(n):
        for a in range(d):
            mean[a] += out[i, a]
    for a in range(d):
        mean[a] /= max(n, 1)
    squares = np.zeros(d)
    for i in range(n):
        for a in range(d):
            out[i, a] -= mean[a]
            squares[a] += out[i, a] * out[i, a]
    for a in range(d):
        squares[a] = max(np.sqrt(squares[a] / max(n, 1)), floor)
    for i in range(n):
        for a in range(d):
            out[i, a] /= squares[a]


@counted(nogil=True)
def perturbed_caps(parents, which, noise, uniform, sigma, snap, quant):
    """Children's caps, quantized: ``rint(quant * clip(c, 0, 1))`` with ``c`` a parent's caps perturbed.

    Child ``i`` takes parent ``which[i]``'s caps (``parents`` (k, N, m)) plus
    ``sigma * noise[i]``; each coordinate whose ``uniform`` is below ``snap``
    is rounded to the nearest integer first (a contact held back, or let go,
    for a step).  ``noise`` and ``uniform`` are (count, N, m); returns uint16
    (count, N, m).  Rounding is half to even, as ``np.round``.
    """
    count, N, m = noise.shape
    out = np.empty((count, N, m), dtype=np.uint16)
    for i in range(count):
        parent = parents[which[i]]
        for t in range(N):
            for j in range(m):
                c = parent[t, j] + sigma * noise[i, t, j]
                if uniform[i, t, j] < snap:
                    c = np.rint(c)
                out[i, t, j] = np.uint16(np.rint(min(max(c, 0.0), 1.0) * quant))
    return out


@kernel(inline="always")
def _row_hash(keys, i):
    """A 64-bit hash of row ``i`` of ``keys`` (int64)."""
    x = np.uint64(keys.shape[1])
    for c in range(keys.shape[1]):
        x = splitmix64(x ^ np.uint64(keys[i, c]))
    return x


@kernel(inline="always")
def _same_row(keys, i, j):
    """Whether rows ``i`` and ``j`` of ``keys`` are equal."""
    for c in range(keys.shape[1]):
        if keys[i, c] != keys[j, c]:
            return False
    return True


@kernel
def equal_rows(keys, table, first, counts):
    """Group the equal rows of ``keys`` (n, d) int64: the number of distinct rows, ``g``.

    ``first[:g]`` gets the index of each distinct row's first occurrence, in
    ascending order, and ``counts[:g]`` how many rows equal it: what
    ``np.unique(keys, axis=0, return_index=True, return_counts=True)`` gives,
    ordered by first occurrence.  ``table`` is scratch of a power of two of at
    least ``2 n`` entries (open addressing, linear probing); ``first`` and
    ``counts`` have ``n`` entries.
    """
    mask = np.uint64(table.shape[0] - 1)
    for s in range(table.shape[0]):
        table[s] = -1
    groups = 0
    for i in range(keys.shape[0]):
        slot = _row_hash(keys, i) & mask
        while True:
            g = table[slot]
            if g < 0:
                table[slot] = groups
                first[groups] = i
                counts[groups] = 1
                groups += 1
                break
            if _same_row(keys, i, first[g]):
                counts[g] += 1
                break
            slot = (slot + np.uint64(1)) & mask
    return groups


@kernel(inline="always")
def _swap_rows(points, i, j):
    """Exchange rows ``i`` and ``j`` of ``points``."""
    for c in range(points.shape[1]):
        points[i, c], points[j, c] = points[j, c], points[i, c]


@kernel(inline="always")
def _widest(points, a, b, lo, hi):
    """The column along which rows ``a:b`` of ``points`` spread widest (the first such); ``lo`` and ``hi`` (d,) are
    scratch.  One pass along the rows: a pass down each column would read the rows once a column."""
    d = points.shape[1]
    for c in range(d):
        lo[c] = hi[c] = points[a, c]
    for i in range(a + 1, b):
        for c in range(d):
            x = points[i, c]
            lo[c] = min(lo[c], x)
            hi[c] = max(hi[c], x)
    axis = 0
    for c in range(1, d):
        if hi[c] - lo[c] > hi[axis] - lo[axis]:
            axis = c
    return axis


@kernel(inline="always")
def _select_rows(points, a, b, k, axis):
    """Reorder rows ``a:b`` so that row ``k``'s value in column ``axis`` is the one a sort would put there, with
    none greater before it and none smaller after it (quickselect, Hoare's partition about a median of three)."""
    lo, hi = a, b - 1
    while hi > lo:
        x, y, z = points[lo, axis], points[(lo + hi) // 2, axis], points[hi, axis]
        pivot = max(min(x, y), min(max(x, y), z))
        i, j = lo, hi
        while i <= j:
            while points[i, axis] < pivot:
                i += 1
            while points[j, axis] > pivot:
                j -= 1
            if i <= j:
                _swap_rows(points, i, j)
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


@kernel(nogil=True)
def halve_rows(points, a, b, lo, hi):
    """Halve rows ``a:b`` of ``points`` (n, d) in place, as a kd-tree cuts a cell: the row index ``m`` where the
    second half starts.

    The rows are reordered so that in the column along which they spread
    widest, none of ``a:m`` exceeds any of ``m:b``, with ``m = a + (b - a) // 2``
    (the halves differ in size by at most one row).  ``lo`` and ``hi`` (d,) are scratch.
    """
    middle = a + (b - a) // 2
    if b - a > 1:
        _select_rows(points, a, b, middle, _widest(points, a, b, lo, hi))
    return middle


@kernel(nogil=True)
def box_distances(low, high, queries, out):
    """``out[c, i]``: the Euclidean distance from ``queries[i]`` to the box ``low[c] <= x <= high[c]`` (0 inside)."""
    for c in range(low.shape[0]):
        for i in range(queries.shape[0]):
            acc = 0.0
            for j in range(queries.shape[1]):
                gap = max(low[c, j] - queries[i, j], queries[i, j] - high[c, j], 0.0)
                acc += gap * gap
            out[c, i] = np.sqrt(acc)
