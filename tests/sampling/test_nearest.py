"""The package's kd-tree: exact nearest neighbours, the same distances as scipy's default tree and as brute force."""

import numpy as np
from scipy.spatial import cKDTree

from reach.sampling.nearest import kd_tree


def test_kd_tree_distances_are_exact_on_crowded_low_dimensional_points():
    rng = np.random.default_rng(0)
    # outcomes crowd on pieces of low dimension, with exact repeats: where median splits make thin cells
    line = rng.uniform(size=(800, 1)) * rng.normal(size=(1, 10))
    plane = rng.uniform(size=(800, 2)) @ rng.normal(size=(2, 10))
    points = np.vstack([line, plane, plane[:200], rng.normal(size=(200, 10))])
    queries = np.vstack([points[::5], rng.normal(size=(100, 10))])
    d, i = kd_tree(points).query(queries, 3)
    d_default, _ = cKDTree(points).query(queries, 3)
    assert np.array_equal(d, d_default)  # the same bits: the search is exact either way
    brute = np.sort(np.sqrt(((queries[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)), axis=1)[:, :3]
    np.testing.assert_allclose(d, brute, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(points[i] - queries[:, None, :], axis=2), d, rtol=1e-12, atol=1e-12)
