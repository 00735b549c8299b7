"""Tests of reach.analysis.zeno: the Zeno rocking block of Halm & Posa §4.3 (Fig. 8)."""

import numpy as np
import pytest

from reach.analysis.zeno import (
    IMPACT_A,
    IMPACT_B,
    PENDULUM_A,
    PENDULUM_B,
    REST,
    ZenoBlock,
    pivot_contact_force,
    sticking_impact,
    zeno_block,
)
from reach.plotting.zeno import plot_zeno


@pytest.fixture(scope="module")
def zeno():
    return zeno_block()


def test_halm_posa_4_3_summary_numbers(zeno):
    # Paper: θ* ≈ .22 rad, ratio 0.7, t(s*) ≈ 2.67 s, s* ≈ 28.4.
    assert zeno.apex_angle == pytest.approx(0.22, abs=0.005)
    assert zeno.rate_ratio == pytest.approx(0.7, abs=1e-12)
    assert zeno.accumulation_time == pytest.approx(2.67, abs=0.005)
    assert zeno.accumulation_s == pytest.approx(28.4, abs=0.05)


def test_apex_matches_energy_balance(zeno):
    # Eq. 57 with the sign of sin α corrected (see module docstring).
    b = zeno.block
    closed_form = np.arcsin(b.pivot_inertia / (2 * b.mass * b.gravity * b.arm) + np.sin(b.alpha)) - b.alpha
    assert zeno.apex_angle == pytest.approx(closed_form, rel=1e-9)
    assert np.max(np.abs(zeno.theta)) <= zeno.apex_angle * (1 + 1e-9)


def test_ratio_closed_form_eq_68():
    b = ZenoBlock()
    r2 = b.arm**2
    ratio = (b.inertia - b.mass * r2 * np.cos(2 * b.alpha)) / b.pivot_inertia
    assert ratio == pytest.approx(0.7, abs=1e-14)


def test_ratio_constant_across_impacts(zeno):
    assert len(zeno.impact_ratios) > 20
    np.testing.assert_allclose(zeno.impact_ratios, 0.7, atol=1e-12)
    np.testing.assert_allclose(zeno.half_cycle_omega[1:] / zeno.half_cycle_omega[:-1], 0.7, atol=1e-12)


def test_s_star_identity(zeno):
    # s* = (1 + m g) t* − 0.15 m Σ ω_k, Σ ω_k = 1 / 0.3 (module docstring).
    b = zeno.block
    expected = (1 + b.mass * b.gravity) * zeno.accumulation_time - 0.15 * b.mass / 0.3
    assert zeno.accumulation_s == pytest.approx(expected, abs=1e-9)


def test_tail_is_negligible(zeno):
    assert zeno.tail_time < 1e-5
    assert zeno.tail_s < 1e-4


def test_energy_never_increases(zeno):
    assert np.all(zeno.energy_after <= zeno.energy_before + 1e-12)
    # Each impact keeps 0.49 of the kinetic energy (potential unchanged: block flat).
    b = zeno.block
    potential = b.mass * b.gravity * 0.5 * b.height
    # (first 12 impacts: later kinetic energies drown in the potential's rounding)
    kinetic_ratio = (zeno.energy_after[:12] - potential) / (zeno.energy_before[:12] - potential)
    np.testing.assert_allclose(kinetic_ratio, 0.49, rtol=1e-9)
    # Along the whole grid, ordered by s.
    assert np.all(np.diff(zeno.energy) <= 1e-9)


def test_pendulum_conserves_energy(zeno):
    pend = zeno.phase == PENDULUM_A
    first = pend & (zeno.t < zeno.half_cycle_time[0] * (1 + 1e-12))
    e = zeno.energy[first]
    np.testing.assert_allclose(e, e[0], rtol=1e-10)


def test_friction_cone_respected(zeno):
    assert np.all(zeno.impact_friction_ratios <= 1.0)
    assert np.all(zeno.pendulum_friction_ratios <= 1.0)
    assert zeno.impact_friction_ratios[0] == pytest.approx(0.3 / 0.85, rel=1e-10)


def test_theta_sign_follows_pivot(zeno):
    # θ ≥ 0 while pivoting on A, ≤ 0 while pivoting on B (mirror phases).
    assert np.all(zeno.theta[zeno.phase == PENDULUM_A] >= -1e-15)
    assert np.all(zeno.theta[zeno.phase == PENDULUM_B] <= 1e-15)
    # Impacts happen flat, and the block ends at rest, flat, on both corners.
    impacts = (zeno.phase == IMPACT_A) | (zeno.phase == IMPACT_B)
    np.testing.assert_allclose(zeno.theta[impacts], 0.0, atol=1e-12)
    rest = zeno.phase == REST
    np.testing.assert_allclose(zeno.q[rest], [[0.0, 1.0, 0.0]] * rest.sum(), atol=1e-12)


def test_rates_sum_to_one_and_s_t_monotone(zeno):
    np.testing.assert_allclose(zeno.t_rate + zeno.lambda_a + zeno.lambda_b, 1.0, atol=1e-12)
    assert np.all(np.diff(zeno.s) >= 0)
    assert np.all(np.diff(zeno.t) >= 0)
    impacts = (zeno.phase == IMPACT_A) | (zeno.phase == IMPACT_B)
    assert np.all(zeno.t_rate[impacts] == 0.0)
    # s = t + Λn,A + Λn,B (eq. 63 and 69).
    np.testing.assert_allclose(zeno.s, zeno.t + zeno.impulse_a + zeno.impulse_b, atol=1e-9)


def test_impulse_integral_matches_quadrature(zeno):
    # Closed-form Λn,A(t) = m g t + m Δẏ against trapezoidal ∫ λn dt.
    first = (zeno.phase == PENDULUM_A) & (zeno.t < zeno.half_cycle_time[0] * (1 + 1e-12))
    t = zeno.t[first]
    lam = np.array([pivot_contact_force(zeno.block, q, v, 0)[1]
                    for q, v in zip(zeno.q[first], zeno.v[first])])
    quad = np.concatenate([[0.0], np.cumsum(0.5 * (lam[1:] + lam[:-1]) * np.diff(t))])
    np.testing.assert_allclose(zeno.impulse_a[first], quad, atol=1e-3)


def test_pivot_force_newton_euler():
    b = ZenoBlock()
    q = np.array([0.0, 1.0, 0.0])  # A at (-0.5, 0): centre offset r = (0.5, 1)
    v = np.array([-1.0, 0.5, 1.0])
    lam_t, lam_n = pivot_contact_force(b, q, v, 0)
    theta_ddot = -b.mass * b.gravity * 0.5 / b.pivot_inertia
    assert lam_n == pytest.approx(b.mass * (b.gravity + theta_ddot * 0.5 - 1.0), rel=1e-12)
    assert lam_t == pytest.approx(b.mass * (-theta_ddot * 1.0 - 0.5), rel=1e-12)


def test_sticking_impact_first_impact():
    b = ZenoBlock()
    q = np.array([0.0, 1.0, 0.0])
    v = np.array([1.0, -0.5, -1.0])  # coming down about A at θ̇ = -1
    impulse, v_post, in_cone = sticking_impact(b, q, v, 1)
    assert in_cone
    np.testing.assert_allclose(impulse, [-0.3, 0.85], atol=1e-12)
    np.testing.assert_allclose(v_post, [0.7, 0.35, -0.7], atol=1e-12)


def test_bad_omega():
    with pytest.raises(ValueError, match="`omega0`"):
        zeno_block(-1.0)


def test_plot_zeno(tmp_path, zeno):
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_zeno(zeno, tmp_path / "zeno.png")
    assert (tmp_path / "zeno.png").stat().st_size > 10_000
    assert len(fig.axes) == 5
