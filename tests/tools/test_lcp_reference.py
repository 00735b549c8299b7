"""reach.tools.lcp_reference: the plain NumPy Lemke agrees with the jitted kernel on random LCPs."""

import numpy as np

from reach.kernels.lcp import scale_lcp
from reach.problem.lcp import lcp_residual, lemke
from reach.tools.lcp_reference import lemke_reference


def test_reference_and_kernel_agree_on_random_positive_definite_lcps():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        A = rng.normal(size=(n, n))
        M = A @ A.T + 0.1 * np.eye(n)
        q = rng.normal(size=n)
        lcp = scale_lcp(M)
        z_ref, status, _ = lemke_reference(lcp.M, lcp.Ms, q, np.ones(n), lcp.row_scale, lcp.col_scale)
        r = lemke(M, q)
        assert status == 0 and r.success
        assert lcp_residual(M, q, z_ref) <= 1e-9
        # positive definite: the solution is unique
        np.testing.assert_allclose(z_ref, r.z, atol=1e-9 * max(1.0, np.abs(r.z).max()))
