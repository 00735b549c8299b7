"""Steps too large for exact choice by default (planar m = 4, 5; spatial n = 44): what random covering vectors give.

Issue 12 asks, for steps beyond the exact choice's default reach, that every
v' the default returns is a verified solution, and that repeated draws reach
more than one v' where enumeration shows several.  Enumeration here is the
mode enumeration of :mod:`reach.kernels.modes` (planar, any m it accepts),
itself checked against basis enumeration in ``tests/kernels/test_modes.py``.
"""

import numpy as np
import pytest

from helpers import assert_energy_non_increasing, assert_lcp_solution, random_problem
from reach.problem.lcp import LCPStatus
from reach.sampling.choice import resolve_choice
from reach.problem.step import kernel_data, mode_velocities, routh_step

DRAWS = 24


def _covering(rng, n):
    """A covering vector as the default draws them: log-uniform in [1e-3, 1e3]."""
    return np.exp(np.log(1e3) * rng.uniform(-1, 1, size=n))


def _check(p, v, lam, z, v_next):
    """z solves the step's LCP against the data, v' follows from it, and energy does not rise."""
    assert_lcp_solution(p.W, p.routh_w(v, lam), z, tol=1e-8)
    impulse = z[p.m:p.m + p.Jbar.shape[0]]
    np.testing.assert_allclose(v_next, v + p.Minv_JbarT @ impulse, atol=1e-9 * np.abs(v).max())
    assert_energy_non_increasing(p, v, v_next, rtol=1e-9)


def _distinct(p, V):
    cv = p.contact_velocities(np.array(V)).reshape(len(V), -1)
    scale = np.abs(p.contact_velocities(p.v)).max()
    keep = []
    for x in cv:
        if all(np.abs(x - y).max() > 1e-6 * scale for y in keep):
            keep.append(x)
    return np.array(keep)


@pytest.mark.parametrize("m, cases", [(4, 60), (5, 30)])
def test_random_coverings_give_verified_solutions_and_reach_several_where_there_are(m, cases):
    rng = np.random.default_rng(100 + m)
    several = reached = 0
    for case in range(cases):
        # high friction and one velocity more than contacts: non-unique steps are common (about one in six)
        p = random_problem(rng, m=m, nv=m + 1, planar=True, mu=10.0 ** rng.uniform(0, 1.5, size=m))
        assert resolve_choice(p, "auto") == "random"  # beyond the default's exact choice
        data = kernel_data(p)
        natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
        lam = rng.uniform(0.2, 2, size=m) * natural
        enumerated = mode_velocities(p, p.v, lam, data=data, sample=case)[0]
        got = []
        for _ in range(DRAWS):
            v_next, z, status, _ = routh_step(p, p.v, lam, covering=_covering(rng, p.lcp_size), data=data)
            if status == LCPStatus.SOLVED:
                _check(p, p.v, lam, z, v_next)
                got.append(v_next)
        assert len(got) >= DRAWS // 2, f"case {case}: {len(got)} of {DRAWS} solves verified"
        # every v' reached is one of the step's solutions as enumerated by modes
        cv = p.contact_velocities
        scale = np.abs(cv(p.v)).max()
        for v_next in got:
            gaps = np.abs(cv(enumerated).reshape(len(enumerated), -1) - cv(v_next).ravel()).max(axis=1)
            assert gaps.min() <= 1e-6 * scale, f"case {case}: a v' the enumeration does not have"
        if len(enumerated) > 1:
            several += 1
            reached += len(_distinct(p, got)) > 1
    assert several >= 3, "the random steps must include non-unique ones"
    assert reached >= several // 2, f"repeated draws reached several v' at only {reached} of {several} steps"


def test_spatial_steps_of_size_44_are_verified_solutions():
    rng = np.random.default_rng(44)
    for case in range(20):
        p = random_problem(rng, m=4, nv=10, planar=False, k=8, mu=10.0 ** rng.uniform(-1, 0.5, size=4))
        assert p.lcp_size == 44
        data = kernel_data(p)
        natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
        lam = rng.uniform(0.2, 2, size=4) * natural
        solved = 0
        for _ in range(6):
            v_next, z, status, _ = routh_step(p, p.v, lam, covering=_covering(rng, 44), data=data)
            if status == LCPStatus.SOLVED:
                _check(p, p.v, lam, z, v_next)
                solved += 1
        assert solved >= 3, f"case {case}: {solved} of 6 solves verified"
