"""reach.kernels.enumeration: basis points and the first-solution fallback, against known LCPs."""

import numpy as np

from reach.kernels.enumeration import basis_point, first_solution_kernel
from reach.kernels.routh_data import make_step_work
from reach.kernels.lcp import DEFAULT_OPTIONS, scale_lcp
from reach.problem.lcp import all_solutions, lcp_residual

# Three solutions: z = (1, 0), (0, 1) and (1/3, 1/3).
M = np.array([[1.0, 2.0], [2.0, 1.0]])
q = np.array([-1.0, -1.0])


def work(n):
    return np.empty(n, dtype=np.int64), np.empty((n, n)), np.empty(n), np.empty(n), np.empty(n), np.empty(n)


def test_basis_point_of_each_index_set():
    lcp = scale_lcp(M)
    qs = lcp.row_scale * q
    members, A, b, x, z, _ = work(2)
    expected = {0b00: [0, 0], 0b01: [1, 0], 0b10: [0, 1], 0b11: [1 / 3, 1 / 3]}
    for mask, point in expected.items():
        assert basis_point(lcp.Ms, qs, lcp.col_scale, mask, members, A, b, x, z)
        np.testing.assert_allclose(z, point, atol=1e-14)


def test_singular_principal_block_is_refused():
    S = np.array([[1.0, 1.0], [1.0, 1.0]])
    lcp = scale_lcp(S)
    members, A, b, x, z, _ = work(2)
    assert not basis_point(lcp.Ms, lcp.row_scale * q, lcp.col_scale, 0b11, members, A, b, x, z)


def test_first_solution_depends_on_the_starting_set_and_verifies():
    lcp = scale_lcp(M)
    qs = lcp.row_scale * q
    found = set()
    for offset in range(4):
        step_work = make_step_work(2, 1, 1)
        ok, res = first_solution_kernel(lcp, q, qs, offset, DEFAULT_OPTIONS.verify_tol, step_work)
        z = step_work.z
        assert ok and res <= 1e-12 and lcp_residual(M, q, z) <= 1e-12
        found.add(tuple(np.round(z, 9)))
    assert found == {(1.0, 0.0), (0.0, 1.0), (round(1 / 3, 9), round(1 / 3, 9))}
    assert len(all_solutions(M, q)) == 3
