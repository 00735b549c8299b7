"""Unit invariance and no wrong "solved" (SPEC §7): answers must not depend on units or on how large a cap is.

* A mass unit: M, h and eps scaled by k give the same set.
* A velocity scale: v, h and eps scaled by s give the set scaled by s.
* A step whose cap is far above what the contact can take is either solved
  correctly (the contact stops closing) or reported as failed, never "solved"
  with the contact still closing.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
from helpers import random_problem
from reach import ImpactProblem, sample_post_impact_set
from reach.problem.lcp import LCPStatus, lemke
from reach.problem.step import routh_step

SCALES = [1e-8, 1e-3, 1e3, 1e8]


def scaled(p, *, k=1.0, s=1.0):
    """The same physics in other units: mass times k, velocities times s."""
    return ImpactProblem(p.M * k, p.Jn, p.Jt, p.mu, p.v * s, friction_directions=p.k,
                         contact_names=p.contact_names)


def independent_check(problem, v, lam, v_next, z, rtol=1e-7):
    """Check a Routh step from its physics, not from the solver's residual: caps, cone, closing, energy."""
    m = problem.m
    lam_n = z[m:2 * m]
    speed = np.max(np.abs(problem.contact_velocities(problem.v)))  # the impact's own speed scale
    impulse = speed / problem.mass_scale  # the impulse that changes a contact velocity by `speed`
    assert np.all(z >= 0)
    assert np.all(lam_n <= lam + rtol * max(impulse, np.max(lam)))       # caps hold
    vn_after = problem.Jn @ v_next
    below_cap = lam_n < lam - rtol * impulse
    # a contact that took less than its cap must not still be closing (it would take more)
    assert np.all(vn_after[below_cap] >= -rtol * speed), (vn_after, lam_n, lam)
    e0, e1 = problem.kinetic_energy(v), problem.kinetic_energy(v_next)
    assert e1 <= e0 * (1 + 1e-9)


# ----------------------------------------------------------------------------- the cases that fooled 0.1
def test_a_huge_cap_is_solved_right_not_just_called_solved():
    p = scenarios.get("compass-gait").problem
    for h in (1e3, 1e9, 1e15):
        v_next, z, status, res = routh_step(p, p.v, h)
        assert status == LCPStatus.SOLVED
        independent_check(p, p.v, np.full(p.m, h), v_next, z)
        assert np.all(p.Jn @ v_next >= -1e-9 * np.abs(p.Jn @ p.v).max())


def test_lemke_on_a_step_with_caps_1e12_returns_a_true_solution():
    p = scenarios.get("rocking-block").problem
    r = lemke(p.W, p.routh_w(p.v, [1e12, 1e12]))
    assert r.success
    velocity_rows = slice(p.m, p.m + p.Jbar.shape[0])
    assert r.w[velocity_rows].min() >= -1e-12, r.w


def test_non_finite_or_underflowing_answers_are_not_solved():
    with pytest.raises(ValueError, match="`covering` must be a positive, finite vector"):
        lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], covering=[np.inf, 1.0])
    r = lemke(np.array([[2.0, 1.0], [1.0, 2.0]]) * 1e300, np.array([-5.0, -6.0]) * 1e-300)
    assert r.status == LCPStatus.NUMERICAL and not r.success


def test_compass_gait_with_a_huge_h_is_not_outside_the_set():
    """`reach run compass-gait --h 1e9` used to end 62 % of |vn0| outside the h = 0.25 set."""
    s = scenarios.get("compass-gait")
    huge = sample_post_impact_set(s.problem, 2048, 1e9, s.N)
    assert huge.summary()["failed_samples"] == 0
    normal = s.problem.contact_velocities(huge.velocities)[:, :, 0]
    assert normal.min() >= -1e-9 * np.abs(s.problem.Jn @ s.problem.v).max()
    assert_energy = s.problem.kinetic_energy(huge.velocities) <= s.problem.kinetic_energy(s.problem.v) * (1 + 1e-12)
    assert np.all(assert_energy)


# ----------------------------------------------------------------------------- scaled problems
@pytest.mark.parametrize("name", scenarios.names())
def test_scenario_sets_do_not_depend_on_units(name):
    s = scenarios.get(name)
    p = s.problem
    base = sample_post_impact_set(p, 1024, s.h, s.N)
    scale = np.abs(base.all_velocities).max()
    for k, v_scale in [(k, 1.0) for k in SCALES] + [(1.0, s_) for s_ in (1e-8, 1e8)]:
        other = sample_post_impact_set(scaled(p, k=k, s=v_scale), 1024, s.h * k * v_scale, s.N,
                                       eps=base.settings.eps * k * v_scale)
        np.testing.assert_array_equal(other.kept, base.kept)
        gap = np.abs(other.all_velocities / v_scale - base.all_velocities).max()
        assert gap <= 1e-9 * scale, (k, v_scale, gap / scale)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), log_k=st.floats(-8, 8), log_s=st.floats(-8, 8),
       planar=st.booleans())
def test_a_routh_step_does_not_depend_on_units(seed, log_k, log_s, planar):
    rng = np.random.default_rng(seed)
    p = random_problem(rng, planar=planar, k=None if planar else 6)
    k, s = 10.0 ** log_k, 10.0 ** log_s
    q = scaled(p, k=k, s=s)
    lam = rng.uniform(0, 2, size=p.m) * np.abs(p.Jn @ p.v).max() / p.mass_scale
    v1, z1, st1, _ = routh_step(p, p.v, lam)
    v2, z2, st2, _ = routh_step(q, q.v, lam * k * s)
    assert st1 == st2 == LCPStatus.SOLVED
    scale = np.abs(p.contact_velocities(p.v)).max()
    gap = np.abs(p.contact_velocities(v2 / s) - p.contact_velocities(v1)).max()
    assert gap <= 1e-9 * scale


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), log_cap=st.floats(-8, 8), log_k=st.floats(-8, 8),
       planar=st.booleans())
def test_no_wrong_solved_at_any_cap_or_unit(seed, log_cap, log_k, planar):
    """A few thousand random Routh LCPs (hypothesis draws 300 problems x 2 steps with the runs of
    the test suite): every SOLVED answer passes the independent physical check."""
    rng = np.random.default_rng(seed)
    p = scaled(random_problem(rng, planar=planar, k=None if planar else 4), k=10.0 ** log_k)
    natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
    v = p.v.copy()
    for _ in range(2):
        lam = rng.uniform(0, 1, size=p.m) * natural * 10.0 ** log_cap
        v_next, z, status, _ = routh_step(p, v, lam)
        if status == LCPStatus.SOLVED:
            independent_check(p, v, lam, v_next, z)
            v = v_next
