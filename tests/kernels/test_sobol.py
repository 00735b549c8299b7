"""reach.kernels.sobol: direction numbers, net property of the scramble, index-range independence."""

import numpy as np
import pytest

from reach.kernels.sobol import sobol_points


@pytest.mark.parametrize("dim", [1, 2, 20, 50])
def test_unscrambled_points_equal_scipys(dim):
    qmc = pytest.importorskip("scipy.stats").qmc
    np.testing.assert_array_equal(sobol_points(dim, 0, 2048, scramble=False),
                                  qmc.Sobol(dim, scramble=False).random(2048))


@pytest.mark.parametrize("seed", [0, 7])
def test_scrambled_points_keep_the_net_property(seed):
    k = 10
    x = sobol_points(20, 0, 2**k, seed=seed)
    assert np.all((x >= 0) & (x < 1))
    for d in range(20):  # every coordinate hits each interval [j 2^-k, (j+1) 2^-k) once
        assert len(np.unique(np.floor(x[:, d] * 2**k))) == 2**k
    cells = np.floor(x[:, 0] * 32) * 32 + np.floor(x[:, 1] * 32)  # first two dims: a (0, 10, 2)-net
    assert len(np.unique(cells)) == 2**k


def test_any_index_range_reproduces_the_whole():
    whole = sobol_points(12, 0, 5000, seed=3)
    parts = np.vstack([sobol_points(12, a, b - a, seed=3) for a, b in ((0, 1), (1, 777), (777, 4096), (4096, 5000))])
    np.testing.assert_array_equal(whole, parts)


def test_seeds_give_different_scrambles():
    assert not np.array_equal(sobol_points(4, 0, 64, seed=0), sobol_points(4, 0, 64, seed=1))


def test_index_limit():
    with pytest.raises(ValueError, match="Sobol indices must lie in"):
        sobol_points(2, 2**30 - 1, 2)
