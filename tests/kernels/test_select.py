"""reach.kernels.select: the k-th largest value per row, against a full sort, with many equal values."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reach.kernels.select import grid_projections, grid_squares, kth_largest_rows


@settings(max_examples=200, deadline=None)
@given(rows=st.integers(1, 4), n=st.integers(1, 200), digits=st.integers(0, 2), data=st.data())
def test_kth_largest_matches_a_sort(rows, n, digits, data):
    seed = data.draw(st.integers(0, 2**32 - 1))
    k = data.draw(st.integers(1, n))
    score = np.round(np.random.default_rng(seed).normal(size=(rows, n)), digits)  # few digits: many ties
    assert np.array_equal(kth_largest_rows(score, k), np.sort(score, axis=1)[:, n - k])


def test_kth_largest_of_a_constant_row_and_the_extremes():
    score = np.array([[2.0] * 5, [5.0, 1.0, 4.0, 2.0, 3.0]])
    assert kth_largest_rows(score, 1).tolist() == [2.0, 5.0]
    assert kth_largest_rows(score, 5).tolist() == [2.0, 1.0]
    assert kth_largest_rows(score, 2).tolist() == [2.0, 4.0]


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 300), d=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_grid_scores_are_rounded_projections_and_squares(n, d, seed):
    rng = np.random.default_rng(seed)
    pts, directions = rng.normal(size=(n, d)), rng.normal(size=(5, d))
    exact = directions @ pts.T * 1000.0
    scores = grid_projections(directions, pts, 1000.0)
    # the kernel's sums may differ from BLAS's in the last bits: only a value on a cell's edge may round apart
    assert np.max(np.abs(scores - np.rint(exact))) <= 1.0
    assert np.mean(scores == np.rint(exact)) > 0.99 or n * 5 < 100
    assert np.all(scores == np.rint(scores))
    squares = grid_squares(pts, 1000.0)
    assert np.max(np.abs(squares - np.rint(1000.0 * np.sum(pts**2, axis=1)))) <= 1.0
