"""Tests of reach.analysis.compare.compliant: the compliant rocking block of Halm & Posa §5.4.1."""

import numpy as np
import pytest

from reach.analysis.compare.compliant import (
    CompliantBlock,
    _Dynamics,
    containment,
    coverage,
    initial_state,
    sequential_outcome,
    set_region,
    simulate_impact,
    sweep_initial_tilt,
    sweep_stiffness_ratio,
)
from reach.plotting.compliant import plot_compliant

MIRROR = np.array([-1.0, 1.0, -1.0])


@pytest.fixture(scope="module")
def ratio_sweep():
    # k_A / k_B = 1e-5, 10^-2.5, 1, 10^2.5, 1e5
    return sweep_stiffness_ratio(5)


@pytest.fixture(scope="module")
def tilt_sweep():
    return sweep_initial_tilt(5, n_jobs=2)


def _standin_set(n=200):
    """Rigid stand-in for the rocking block's set: the L from rest to both sequential outcomes."""
    block = CompliantBlock()
    end = sequential_outcome(0, block)[1]
    vn_end = (block.jacobians(0.0)[0] @ end)[0]
    # B-impact with sticking conserves angular momentum about B: L_B = (0.075 - 0.3 - 0.125) v0 = -0.35 v0
    # (COM velocity 0.3 v0 (1, -1/2) after A, omega = -0.3 v0), I_B = 5/3, omega' = -0.21 v0: A lifts at 0.21 v0
    assert vn_end == pytest.approx(0.21 * block.drop_speed, rel=1e-9)
    t = np.linspace(0.0, vn_end, n)
    return np.vstack([np.c_[t, 0 * t], np.c_[0 * t, t]])


def test_quick_sweeps_complete(ratio_sweep, tilt_sweep):
    for sweep in (ratio_sweep, tilt_sweep):
        assert len(sweep.runs) == 5
        assert sweep.success, [r.message for r in sweep.runs]
        assert sweep.v_post.shape == (5, 3)
        assert sweep.normal_velocities.shape == (5, 2)
        assert sweep.tangential_velocities.shape == (5, 2)
        print(sweep.summary())
    np.testing.assert_allclose(ratio_sweep.values, 10.0 ** np.linspace(-5, 5, 5))
    np.testing.assert_allclose(tilt_sweep.values, np.linspace(-0.01, 0.01, 5))


def test_every_outcome_loses_energy(ratio_sweep, tilt_sweep):
    for run in ratio_sweep.runs + tilt_sweep.runs:
        # Kinetic + gravitational energy (gravity's work during the ~ms impact included).
        assert run.energy_post < run.energy_pre
        assert run.kinetic_post < run.kinetic_pre
        # Flat drop: energy reference is the same for every run of both sweeps.
        assert run.energy_pre == pytest.approx(ratio_sweep.runs[2].energy_pre, rel=1e-12)


def test_every_outcome_non_colliding_within_delta(ratio_sweep, tilt_sweep):
    block = CompliantBlock()
    for run in ratio_sweep.runs + tilt_sweep.runs:
        delta = block.velocity_tolerance(run.stiffness)
        assert delta == pytest.approx(1e-9)
        assert np.all(run.normal_velocity >= -delta * (1 + 1e-6))
        assert np.all(run.impulse >= block.impulse_threshold() * (1 - 1e-9))
        assert 1e-4 < run.duration < 5e-3


def test_stiff_a_approaches_a_first_sequential(ratio_sweep):
    # k_A / k_B = 1e5: A resolves first, the block pivots on A, then B's impact
    # makes it pivot on B with A lifting off: rigid (vn,A, vn,B) = (0.0930, 0).
    v_mid, v_end = sequential_outcome(0)
    # A-impact with sticking conserves angular momentum about A: L_A = -0.5 v0, I_A = 5/12 + 5/4 = 5/3,
    # omega = -0.3 v0, COM velocity omega z x (0.5, 1) = 0.3 v0 (1, -1/2)
    v0 = CompliantBlock().drop_speed
    np.testing.assert_allclose(v_mid, [0.3 * v0, -0.15 * v0, -0.3 * v0], rtol=1e-9)
    run = ratio_sweep.runs[-1]
    assert np.allclose(run.stiffness, [1e11, 1e6])
    np.testing.assert_allclose(run.v_post, v_end, atol=1.5e-3)  # 1.2 % short of the rigid limit
    assert run.normal_velocity[1] == pytest.approx(0.0, abs=1e-8)
    # The gap closes as the ratio grows.
    gap = lambda r: abs(r.v_post[2] - v_end[2])  # noqa: E731
    assert gap(ratio_sweep.runs[-1]) < gap(ratio_sweep.runs[-2]) < gap(ratio_sweep.runs[2])


def test_equal_stiffness_comes_to_rest(ratio_sweep):
    run = ratio_sweep.runs[2]
    np.testing.assert_allclose(run.normal_velocity, 0.0, atol=2e-9)
    np.testing.assert_allclose(run.v_post, 0.0, atol=2e-9)


def test_mirror_symmetry(ratio_sweep, tilt_sweep):
    for sweep in (ratio_sweep, tilt_sweep):
        for i, j in ((0, 4), (1, 3)):
            a, b = sweep.runs[i], sweep.runs[j]
            np.testing.assert_allclose(a.v_post * MIRROR, b.v_post, atol=1e-7)
            np.testing.assert_allclose(a.normal_velocity[::-1], b.normal_velocity, atol=1e-7)


def test_parallel_equals_serial(tilt_sweep):
    # Same runs; worker processes may differ in the last bits of LAPACK kernels.
    serial = sweep_initial_tilt(5, n_jobs=1)
    np.testing.assert_allclose(serial.v_post, tilt_sweep.v_post, rtol=1e-8, atol=1e-12)


def test_containment_of_quick_sweeps_in_rigid_standin(ratio_sweep, tilt_sweep):
    # Stand-in for the real set (rest + scaled pivoting on either corner); the
    # real set from reach.sample_post_impact_set can be passed the same way.
    standin = _standin_set()
    for sweep in (ratio_sweep, tilt_sweep):
        c = containment(sweep.normal_velocities, standin, 2e-3, thickness=1e-3)
        print(sweep.kind, "containment", c.fraction, "distances", np.round(c.distances, 6))
        assert c.fraction >= 0.8
        assert c.worst_distance < 3e-3


def test_initial_state_constant_energy():
    block = CompliantBlock()
    q_flat, v_flat = initial_state(block, 0.0)
    np.testing.assert_allclose(q_flat, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(v_flat, [0.0, -np.sqrt(2 * 9.81 * 0.01), 0.0])
    for deg in (-0.01, 0.004, 0.01):
        q, v = initial_state(block, np.deg2rad(deg))
        assert block.energy(q, v) == pytest.approx(block.energy(q_flat, v_flat), rel=1e-12)
        gaps = block.gaps(q)
        lower = 0 if deg > 0 else 1  # θ0 > 0 lowers A
        assert gaps[lower] == pytest.approx(0.0, abs=1e-15)
        assert gaps[1 - lower] > 0


def test_analytic_jacobian_matches_finite_differences():
    dyn = _Dynamics(CompliantBlock(), np.array([3e6, 1e6]))
    # Both corners penetrating, sliding both ways, rotating.
    y = np.array([0.01, 0.999990, 2e-6, 0.02, -0.3, 0.05, 0.1, 0.1])
    J = dyn.jac(0.0, y)
    fd = np.empty_like(J)
    for j in range(8):
        step = 1e-7 * max(1.0, abs(y[j])) if j not in (1, 2) else 1e-10
        e = np.zeros(8)
        e[j] = step
        fd[:, j] = (dyn.rhs(0.0, y + e) - dyn.rhs(0.0, y - e)) / (2 * step)
    np.testing.assert_allclose(J, fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())


def test_bad_input():
    with pytest.raises(ValueError, match="`stiffness`"):
        simulate_impact((1e6, -1.0))
    with pytest.raises(ValueError, match="`method`"):
        simulate_impact(method="RK45")
    with pytest.raises(ValueError, match="`theta0`"):
        simulate_impact(theta0=0.5)
    with pytest.raises(ValueError, match="`outcomes_2d`"):
        containment(np.zeros(3), np.zeros((4, 2)), 0.1)
    with pytest.raises(ValueError, match="`thickness`"):
        set_region(np.zeros((4, 2)), thickness=0.0)


# --- containment / coverage on synthetic sets --------------------------------

@pytest.fixture
def square_points():
    g = np.linspace(0.0, 1.0, 11)
    X, Y = np.meshgrid(g, g)
    return np.c_[X.ravel(), Y.ravel()]


def test_containment_square(square_points):
    outcomes = np.array([[0.5, 0.5], [0.2, 0.9], [2.0, 0.5], [2.0, 2.0], [1.05, 0.5]])
    c = containment(outcomes, square_points, eps=0.1)
    np.testing.assert_allclose(c.distances, [0.0, 0.0, 1.0, np.sqrt(2.0), 0.05], atol=1e-12)
    assert c.fraction == pytest.approx(3 / 5)
    assert c.worst_distance == pytest.approx(np.sqrt(2.0))


def test_coverage_square(square_points):
    t = np.linspace(0.0, 1.0, 41)
    outline = np.vstack([np.c_[t, 0 * t], np.c_[t, 0 * t + 1], np.c_[0 * t, t], np.c_[0 * t + 1, t]])
    full = coverage(outline, square_points, eps=0.05)
    assert full.fraction == 1.0
    assert full.outline.shape[1] == 2
    # Only the bottom edge: a quarter of the outline.
    bottom = coverage(np.c_[t, 0 * t], square_points, eps=0.02)
    assert bottom.fraction == pytest.approx(0.25, abs=0.02)
    # One centre point covers nothing of the outline.
    assert coverage([[0.5, 0.5]], square_points, eps=0.1).fraction == 0.0


def test_degenerate_l_set_needs_thickness():
    standin = _standin_set()
    corner = np.array([[0.04, 0.04]])  # inside the triangle spanned by the L, far from it
    assert containment(corner, standin, 1e-3).worst_distance == 0.0  # concave hull = triangle
    thick = containment(corner, standin, 1e-3, thickness=1e-3)
    assert thick.worst_distance == pytest.approx(0.04 - 1e-3, abs=1e-4)


def test_plot_compliant(tmp_path, ratio_sweep, tilt_sweep):
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_compliant(ratio_sweep, tilt_sweep, _standin_set(), tmp_path / "fig12.png", thickness=1e-3,
                         set_label="rigid stand-in")
    assert (tmp_path / "fig12.png").stat().st_size > 10_000
    assert len(fig.axes) == 4  # two panels + two colour bars


def test_containment_of_quick_sweeps_in_the_sampled_set(ratio_sweep, tilt_sweep):
    # the real set: the rocking-block scenario sampled by reach, doubled by its mirror map
    import scenarios
    from reach import sample_post_impact_set

    s = scenarios.get("rocking-block")
    result = sample_post_impact_set(s.problem, 2**16, s.h, s.N).mirror(s.mirror)
    points = result.contact_velocities()[:, :, 0]           # (A-normal, B-normal)
    for sweep in (ratio_sweep, tilt_sweep):
        c = containment(sweep.normal_velocities, points, 2e-3, thickness=1e-3)
        print(sweep.kind, "containment in the sampled set", c.fraction,
              "distances", np.round(c.distances, 6))
        assert c.fraction >= 0.8
        assert c.worst_distance < 3e-3
