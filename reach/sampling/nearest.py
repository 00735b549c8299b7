"""Nearest-neighbour search over outcomes: the kd-tree every part of reach builds.

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
"""

from __future__ import annotations

from scipy.spatial import cKDTree

__all__ = ["LEAF_SIZE", "kd_tree"]

#: Points per leaf (scipy's default is 16; 32 was as fast or faster on every set measured above).
LEAF_SIZE = 32


def kd_tree(points):
    """A :class:`scipy.spatial.cKDTree` of ``points`` (n, d): sliding-midpoint splits, :data:`LEAF_SIZE` per leaf."""
    return cKDTree(points, leafsize=LEAF_SIZE, balanced_tree=False)
