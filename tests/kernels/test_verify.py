"""reach.kernels.verify: the residual is zero at solutions, catches violations in their own row's scale."""

import numpy as np

from reach.kernels.lcp import scale_lcp
from reach.kernels.verify import ROUNDING_FLOOR, clip_and_measure


def residual(M, q, z):
    lcp = scale_lcp(M)
    z = np.array(z, dtype=float)
    return clip_and_measure(lcp.MT, np.asarray(q, dtype=float), z, np.empty(len(q)), lcp.row_scale, lcp.col_scale)


M = np.array([[2.0, 1.0], [1.0, 2.0]])
q = np.array([-5.0, -6.0])
Z = np.array([4.0 / 3.0, 7.0 / 3.0])  # the solution (w = 0)


def test_zero_at_the_solution_and_positive_off_it():
    assert residual(M, q, Z) < 1e-15
    assert residual(M, q, Z + [1e-3, 0.0]) > 1e-5
    assert residual(M, q, [0.0, 0.0]) == 1.0  # z = 0 leaves w = q: the whole closing speed


def test_negative_entries_count_and_are_clipped():
    z = np.array([-1.0, 3.0])
    assert residual(M, q, z) >= 1.0 / 6.0 - 1e-12


def test_a_huge_entry_elsewhere_does_not_hide_a_violation():
    """A row with a cap of 1e12 (far above what is needed) must not make row 2's violation look small."""
    A = np.array([[0.0, -1.0], [1.0, 1.0]])  # cap row (beta), velocity row (lambda): the Routh block
    b = np.array([1e12, -0.44])              # cap 1e12, closing at 0.44
    assert residual(A, b, [0.0, 0.0]) > 1e3 * 1e-9  # nothing done: still closing (tolerance 1e-9)
    assert residual(A, b, [0.0, 0.44]) < 1e-15  # the impulse that stops it


def test_rounding_noise_of_the_largest_entry_is_tolerated():
    A = np.array([[0.0, -1.0], [1.0, 1.0]])
    b = np.array([1e12, -0.44])
    noise = 1e-16 * 1e12  # one ulp of the cap, in the cap row
    assert residual(A, b, [0.0, 0.44 + noise * 1e-6]) < 1e-9
    assert ROUNDING_FLOOR * 1e12 > 1e4 * noise  # the floor sits far above rounding noise


def test_nan_or_inf_is_never_small():
    assert residual(M, q, [np.nan, 1.0]) == np.inf
    assert residual(M, q, [np.inf, 1.0]) == np.inf


def test_nan_or_inf_anywhere_gives_inf_whatever_its_place():
    """The residual's loop has no early exit: a bad entry in the last row counts as in the first."""
    A = np.diag([2.0, 3.0, 4.0, 5.0, 6.0])
    b = -np.ones(5)
    good = 1.0 / np.diag(A)
    assert residual(A, b, good) < 1e-15
    for i in range(5):
        for bad in (np.nan, np.inf, -np.inf):
            z = good.copy()
            z[i] = bad
            assert residual(A, b, z) == np.inf, (i, bad)


def test_the_most_negative_entry_sets_the_residual():
    A = np.eye(3)
    b = np.array([-1.0, -1.0, -1.0])
    # z = (1, -0.5, -2): clipped to (1, 0, 0), the worst negative is -2 (sigma = 1)
    assert residual(A, b, [1.0, -0.5, -2.0]) == 2.0
