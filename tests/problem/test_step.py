"""The Routh step (eq. 75): dissipation (Theorem 7), complementarity, and a NumPy reference."""

import numpy as np
import pytest

from helpers import assert_energy_non_increasing, random_problem
from reach.problem.lcp import all_solutions
from reach.problem.lcp import lcp_residual
from reach.problem.step import kernel_data, routh_step


@pytest.mark.parametrize("planar", [True, False], ids=["planar", "spatial"])
def test_every_step_dissipates_and_is_complementary(planar):
    rng = np.random.default_rng(11 if planar else 12)
    steps = 0
    for _ in range(150):
        p = random_problem(rng, planar=planar, k=None if planar else int(rng.choice([4, 6, 8])))
        data = kernel_data(p)
        v = p.v.copy()
        for _ in range(4):
            lam = rng.uniform(0, 3, size=p.m)
            cover = np.exp(rng.uniform(-3, 3, size=p.lcp_size)) if rng.random() < 0.5 else None
            v_next, z, status, res = routh_step(p, v, lam, covering=cover, data=data)
            assert status == 0, status.message
            assert res <= 1e-9
            # re-checked against the problem's own W, equilibrated afresh (not the kernel's
            # mass-normalized copy): a different scaling moves rounding by a few ulps
            assert lcp_residual(p.W, p.routh_w(v, lam), z) <= 1e-8
            assert_energy_non_increasing(p, v, v_next)
            # the cap holds: lambda_n <= lambda_max
            assert np.all(z[p.m:2 * p.m] <= lam * (1 + 1e-9) + 1e-15)
            v = v_next
            steps += 1
    assert steps == 600


def test_zero_cap_or_separating_velocity_gives_no_impulse():
    # Lemma 8: lambda_max = 0 or Jn v >= 0 leaves v unchanged.
    rng = np.random.default_rng(5)
    for _ in range(50):
        p = random_problem(rng)
        v_next, *_ = routh_step(p, p.v, 0.0)
        np.testing.assert_allclose(v_next, p.v, atol=1e-12)


def test_step_matches_an_enumerated_reference():
    # plain NumPy reference: every solution of the step LCP by basis enumeration
    rng = np.random.default_rng(8)
    for _ in range(200):
        p = random_problem(rng, m=int(rng.integers(1, 3)))
        lam = rng.uniform(0, 2, size=p.m)
        v_next, *_ = routh_step(p, p.v, lam)
        w = p.routh_w(p.v, lam)
        sols = all_solutions(p.W, w)
        if len(sols) == 0:
            continue  # every solution sits on a singular basis; the certificate test covers it
        candidates = p.v + sols[:, p.m:p.m + p.Jbar.shape[0]] @ p.Minv_JbarT.T
        gap = np.min(np.max(np.abs(candidates - v_next), axis=1))
        assert gap <= 1e-7 * (1 + np.max(np.abs(p.v))) or lcp_residual(p.W, w, sols[0]) <= 1e-9


def test_bad_step_input():
    rng = np.random.default_rng(0)
    p = random_problem(rng, m=1)
    with pytest.raises(ValueError, match="`lambda_max` must be finite and >= 0."):
        routh_step(p, p.v, -1.0)
    with pytest.raises(ValueError, match=r"`v` must be a finite vector of shape"):
        routh_step(p, np.zeros(p.nv + 1), 1.0)


def test_kernel_data_has_one_type_for_frozen_and_fresh_arrays():
    """A problem's arrays are read-only; the kernels' copies are not, so every run shares one compiled step."""
    import numba

    rng = np.random.default_rng(5)
    p = random_problem(rng, planar=True)
    assert not p.v.flags.writeable and not p.W_unit.flags.writeable, "the test needs a problem's read-only arrays"
    data = kernel_data(p)
    arrays = [data.Jbar, data.Minv_JbarT, data.Jn, data.v0, *data.lcp]
    assert all(a.flags.writeable and a.flags.c_contiguous for a in arrays)
    assert all(numba.typeof(a).mutable for a in arrays)
