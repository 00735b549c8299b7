"""reach.kernels.select: the top points per direction, the standardized rows and
the groups of equal rows, against numpy, with many equal values; a cell halved as
a kd-tree halves it, and boxes' distances."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reach.kernels.select import box_distances, equal_rows, grid_squares, halve_rows, projected_rows, \
    standardize_columns, standardized_rows, top_along


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 300), d=st.integers(1, 12), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_top_along_each_direction_is_a_sort_of_the_rounded_projections(n, d, seed, data):
    rng = np.random.default_rng(seed)
    pts, directions = np.round(rng.normal(size=(n, d)), 2), rng.normal(size=(5, d))  # rounded: equal reaches
    top = data.draw(st.integers(1, n))
    chosen = top_along(directions, pts, 1000.0, top)
    exact = np.rint(directions @ pts.T * 1000.0)
    for k in range(5):
        # the kernel's sums may differ from BLAS's in the last bits: only a value on a cell's edge may round
        # apart, so compare the reaches the kernel chose with the best ones numpy finds
        best = np.sort(exact[k])[::-1][:top]
        assert np.max(np.abs(np.sort(exact[k, chosen[k]])[::-1] - best)) <= 1.0
        assert len(set(chosen[k].tolist())) == top
    # equal reaches go to the lower index: a constant set gives the first points
    assert top_along(directions, np.ones((n, d)), 1000.0, top)[0].tolist() == list(range(top))


def test_top_along_many_ties_at_the_edge_go_in_index_order():
    """Thousands of points tie at the top-th reach (as on the compass gait's shell): beyond it by reach, then by index."""
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 4, size=(5000, 3)).astype(float) / 1000.0  # integer reaches: sums exact, many equal
    directions = np.array([[1.0, 2.0, -1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    reach = np.rint(1000.0 * pts @ directions.T).T
    for top in (1, 7, 300, 4000):
        chosen = top_along(directions, pts, 1000.0, top)
        for k in range(len(directions)):
            expected = np.argsort(-reach[k], kind="stable")[:top]  # by reach, equal reaches by index
            assert chosen[k].tolist() == expected.tolist()
            assert np.sum(reach[k] >= reach[k, expected[-1]]) > top or top == 4000  # ties crossed the edge


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 300), d=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_grid_squares_are_rounded_squared_norms(n, d, seed):
    pts = np.random.default_rng(seed).normal(size=(n, d))
    squares = grid_squares(pts, 1000.0)
    assert np.max(np.abs(squares - np.rint(1000.0 * np.sum(pts**2, axis=1)))) <= 1.0
    assert np.all(squares == np.rint(squares))


@settings(max_examples=50, deadline=None)
@given(n=st.integers(2, 300), d=st.integers(1, 6), nv=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_standardized_rows_match_numpy(n, d, nv, seed):
    rng = np.random.default_rng(seed)
    J, V = rng.normal(size=(d, nv)), rng.normal(size=(n, nv))
    index = np.flatnonzero(rng.random(n) < 0.7)
    if len(index) == 0:
        return
    P = V[index] @ J.T
    floor = 0.5
    expected = (P - P.mean(axis=0)) / np.maximum(P.std(axis=0), floor)
    assert np.allclose(standardized_rows(J, V, index, floor), expected, rtol=1e-10, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 400), d=st.integers(1, 12), spread=st.integers(1, 4), seed=st.integers(0, 2**32 - 1),
       slack=st.integers(1, 3))
def test_equal_rows_are_numpys_unique_rows_in_order_of_first_occurrence(n, d, spread, seed, slack):
    """Few distinct values a coordinate: many equal rows, and (in a table of 2n slots) many probes past a
    slot taken by another row; a larger table must give the same groups."""
    keys = np.random.default_rng(seed).integers(-spread, spread + 1, size=(n, d)).astype(np.int64)
    first, counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    table = np.empty(1 << (max(1, 2 * n - 1).bit_length() + slack - 1), dtype=np.int64)
    g = equal_rows(keys, table, first, counts)
    _, ufirst, ucounts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    order = np.argsort(ufirst)
    assert np.array_equal(first[:g], ufirst[order]) and np.array_equal(counts[:g], ucounts[order])
    assert counts[:g].sum() == n


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 1500), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_rows_projected_in_parts_then_standardized_are_standardized_rows_bit_for_bit(n, seed, data):
    rng = np.random.default_rng(seed)
    J, V = rng.normal(size=(6, 9)), rng.normal(size=(n + 50, 9))
    index = np.sort(rng.choice(n + 50, n, replace=False))
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    out = np.empty((n, 6))
    for a, b in zip([0] + cuts, cuts + [n]):
        projected_rows(J, V, index[a:b], out[a:b])
    standardize_columns(out, 1e-3)
    assert np.array_equal(out.view(np.int64), standardized_rows(J, V, index, 1e-3).view(np.int64))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), d=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_halve_rows_splits_a_slice_at_the_median_of_its_widest_column(n, d, seed, data):
    rng = np.random.default_rng(seed)
    points = np.round(rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d), 1)  # rounded: many ties
    a = data.draw(st.integers(0, n - 1))
    b = data.draw(st.integers(a + 1, n))
    cell = points.copy()
    middle = halve_rows(cell, a, b, np.empty(d), np.empty(d))
    assert middle == a + (b - a) // 2
    assert np.array_equal(cell[:a], points[:a]) and np.array_equal(cell[b:], points[b:])  # the rest untouched
    rows = lambda x: sorted(map(tuple, x))  # noqa: E731
    assert rows(cell[a:b]) == rows(points[a:b])  # the same rows, reordered
    spread = points[a:b].max(axis=0) - points[a:b].min(axis=0)
    axis = int(np.argmax(spread))
    if b - a > 1:
        assert cell[a:middle, axis].max() <= cell[middle:b, axis].min()


def test_box_distances_are_zero_inside_and_the_gap_outside():
    low, high = np.array([[0.0, 0.0], [2.0, -1.0]]), np.array([[1.0, 1.0], [3.0, 0.0]])
    queries = np.array([[0.5, 0.5], [4.0, 5.0], [-3.0, 0.5], [2.5, -0.5]])
    out = np.empty((2, 4))
    box_distances(low, high, queries, out)
    np.testing.assert_allclose(out[0], [0.0, 5.0, 3.0, np.hypot(1.5, 0.5)], rtol=1e-15)
    np.testing.assert_allclose(out[1], [np.hypot(1.5, 0.5), np.hypot(1.0, 5.0), np.hypot(5.0, 0.5), 0.0], rtol=1e-15)
