"""The package's kd-tree and forest: exact nearest neighbours, the same distances as scipy's default tree and as
brute force."""

import numpy as np
import pytest
from scipy.spatial import cKDTree

from reach.sampling import nearest
from reach.sampling.nearest import Forest, kd_tree


def crowded(rng, n, d):
    """Points crowded on pieces of low dimension, with exact repeats, as outcomes are."""
    line = rng.uniform(size=(n, 1)) * rng.normal(size=(1, d))
    plane = rng.uniform(size=(n, 2)) @ rng.normal(size=(2, d))
    return np.vstack([line, plane, plane[: n // 4], rng.normal(size=(n // 4, d))])


def test_kd_tree_distances_are_exact_on_crowded_low_dimensional_points():
    rng = np.random.default_rng(0)
    # outcomes crowd on pieces of low dimension, with exact repeats: where median splits make thin cells
    points = crowded(rng, 800, 10)
    queries = np.vstack([points[::5], rng.normal(size=(100, 10))])
    d, i = kd_tree(points).query(queries, 3)
    d_default, _ = cKDTree(points).query(queries, 3)
    assert np.array_equal(d, d_default)  # the same bits: the search is exact either way
    brute = np.sort(np.sqrt(((queries[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)), axis=1)[:, :3]
    np.testing.assert_allclose(d, brute, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(points[i] - queries[:, None, :], axis=2), d, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("threads", [1, 3])
def test_a_forests_distances_are_one_trees_bit_for_bit(monkeypatch, threads):
    monkeypatch.setattr(nearest, "CELL_POINTS", 100)  # 16 cells of a few hundred points
    rng = np.random.default_rng(1)
    points = crowded(rng, 1200, 6)
    forest = Forest(points, threads=threads)
    assert len(forest) == nearest.MAX_CELLS
    # queries on the points, near them, far away, and on the cells' boundaries (the points themselves)
    queries = np.vstack([points[::7], points[::11] + 1e-3 * rng.normal(size=(len(points[::11]), 6)),
                         5.0 * rng.normal(size=(200, 6))])
    exact = kd_tree(points).query(queries)[0]
    assert np.array_equal(forest.distances(queries), exact)
    assert np.array_equal(forest.distances(queries, workers=2), exact)
    assert forest.distances(queries[0]) == exact[0] and np.ndim(forest.distances(queries[0])) == 0
    assert np.array_equal(forest.distances(queries[:12].reshape(3, 4, 6)), exact[:12].reshape(3, 4))
    bound = forest.upper_bounds(queries, eps=1.0)  # the nearest cell's, at most (1 + eps) times its nearest
    assert np.all(bound >= exact) and np.any(bound > exact)
    floor = float(np.quantile(exact, 0.5))  # where a bound reaches the floor, at most (1 + eps) times the nearest
    bound = forest.upper_bounds(queries, eps=1.0, floor=floor)
    reach = bound >= floor
    assert np.all(bound >= exact) and np.all(bound[reach] <= 2.0 * (1 + 1e-9) * exact[reach])
    assert np.any(bound[reach] > exact[reach])


def test_a_small_forest_is_one_tree_and_refuses_no_points():
    points = np.random.default_rng(2).normal(size=(50, 3))
    forest = Forest(points)
    assert len(forest) == 1
    assert np.array_equal(forest.distances(points + 0.1), kd_tree(points).query(points + 0.1)[0])
    assert np.array_equal(forest.upper_bounds(points + 0.1, eps=1.0), kd_tree(points).query(points + 0.1, eps=1.0)[0])
    with pytest.raises(ValueError, match="non-empty"):
        Forest(np.empty((0, 3)))
