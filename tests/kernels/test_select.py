"""reach.kernels.select: the k-th largest value per row, against a full sort, with many equal values."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reach.kernels.select import kth_largest_rows


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
