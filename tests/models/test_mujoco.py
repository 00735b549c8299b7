"""Tests of reach.models.mujoco and reach.analysis.compare.mujoco (impact problems from MuJoCo models)."""

import warnings

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

import scenarios  # noqa: E402
from reach import sample_post_impact_set  # noqa: E402
from reach.models.mujoco import (  # noqa: E402
    body_velocity,
    full_mass_matrix,
    impact_from_mujoco,
    load_model,
    problem_from_mjcf,
    problem_from_mujoco,
    problem_from_urdf,
)
from reach.analysis.compare.mujoco import (  # noqa: E402
    MujocoSettings,
    block_mjcf,
    mujoco_data,
    simulate_impact,
    sweep,
    tilted_state,
)
from reach.plotting.mujoco import plot_comparison, plot_contact_planes  # noqa: E402

V0 = float(np.sqrt(2 * 9.81 * 0.01))


def _impact(xml, qpos, qvel, **options):
    model = load_model(xml)
    return model, impact_from_mujoco(model, mujoco_data(model, qpos, qvel), **options)


def _aligned_contact_velocities(result, order, signs):
    """Contact velocities (n, m, 2) with contacts reordered and tangents flipped."""
    cv = result.contact_velocities()[:, order, :].copy()
    cv[..., 1] *= np.asarray(signs)[None, :]
    return cv.reshape(len(cv), -1)


def _hausdorff(a, b):
    from scipy.spatial import cKDTree

    return float(max(cKDTree(b).query(a)[0].max(), cKDTree(a).query(b)[0].max()))


# ---------------------------------------------------------------------- planar block
@pytest.fixture(scope="module")
def planar_box():
    """The MJCF planar block (slide x, slide z, hinge -y) as one box geom at the rocking-block state."""
    return _impact(*block_mjcf())


def test_planar_block_matches_rocking_block_scenario(planar_box):
    """Same M, Jn, Jt, v as the planar modeller's rocking block, up to contact order and tangent sign."""
    _, impact = planar_box
    ours = scenarios.get("rocking-block").problem
    p = impact.problem
    assert p.planar and p.m == 2 and p.nv == 3
    # x-z plane: e = +y, tangent e x n = +x; planar y is MuJoCo z
    np.testing.assert_allclose(impact.plane_normal, [0, 1, 0], atol=1e-12)
    order = np.argsort([c.position[0] for c in impact.contacts])  # A = left (x < 0), B = right
    signs = np.sign(p.Jt[order, 0])
    np.testing.assert_allclose(p.M, ours.M, atol=1e-12)
    np.testing.assert_allclose(p.Jn[order], ours.Jn, atol=1e-12)
    np.testing.assert_allclose(signs[:, None] * p.Jt[order], ours.Jt, atol=1e-12)
    np.testing.assert_allclose(p.v, ours.v, atol=1e-12)
    np.testing.assert_allclose(p.mu, ours.mu)
    # the box on the plane reports four corners: front and back pairs are merged
    assert sorted(len(c.merged) for c in impact.contacts) == [2, 2]


def test_planar_block_sets_agree(planar_box):
    _, impact = planar_box
    s = scenarios.get("rocking-block")
    order = np.argsort([c.position[0] for c in impact.contacts])
    signs = np.sign(impact.problem.Jt[order, 0])
    ours = sample_post_impact_set(s.problem, 4096, s.h, s.N)
    theirs = sample_post_impact_set(impact.problem, 4096, s.h, s.N)
    a = ours.contact_velocities().reshape(len(ours), -1)
    b = _aligned_contact_velocities(theirs, order, signs)
    assert len(ours) == len(theirs) == 4096
    # identical problems after alignment: the sets are the same up to sampling resolution
    assert _hausdorff(a, b) < 0.01 * V0


def test_normal_sign_positive_is_separating():
    xml = ('<mujoco><worldbody><geom type="plane" size="0 0 1"/>'
           '<body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>'
           '<body name="top" pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.1" mass="2"/></body>'
           '</worldbody></mujoco>')
    # ball falls at 1 m/s; the top ball falls at 3 m/s onto it
    qpos = [0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0.3, 1, 0, 0, 0]
    qvel = [0, 0, -1, 0, 0, 0, 0, 0, -3, 0, 0, 0]
    problem = problem_from_mjcf(xml, qpos, qvel)
    assert problem.m == 2
    np.testing.assert_allclose(np.sort(problem.Jn @ problem.v), [-2.0, -1.0])
    lifting = problem.with_velocity([0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0])
    np.testing.assert_allclose(np.sort(lifting.Jn @ lifting.v), [-1.0, 2.0])


def test_full_mass_matrix_matches_mulM():
    xml = ('<mujoco><worldbody><body><joint type="hinge" axis="0 1 0" armature="0.1"/>'
           '<geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="1"/>'
           '<body pos="0 0 -1"><joint type="hinge" axis="0 1 0"/><joint type="slide" axis="1 0 0"/>'
           '<geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05" mass="2"/></body></body></worldbody></mujoco>')
    model = load_model(xml)
    data = mujoco_data(model, [0.3, -0.7, 0.1], np.zeros(3))
    mujoco.mj_forward(model, data)
    M = full_mass_matrix(model, data)
    reference = np.zeros((3, 3))
    for j in range(3):
        unit, column = np.eye(3)[j].copy(), np.zeros(3)
        mujoco.mj_mulM(model, data, column, unit)
        reference[:, j] = column
    np.testing.assert_allclose(M, reference, atol=1e-12)
    np.testing.assert_allclose(M, M.T)
    assert M[0, 0] > 0.1  # armature included


def test_touching_and_lifted_contacts():
    xml, qpos, qvel = block_mjcf(spatial=True)
    model = load_model(xml)
    data = mujoco_data(model, qpos, qvel)
    margins = model.geom_margin.copy()
    impact = impact_from_mujoco(model, data)
    assert impact.problem.m == 4 and all(c.distance == 0.0 for c in impact.contacts)
    np.testing.assert_array_equal(model.geom_margin, margins)  # restored
    lifted = np.array(qpos)
    lifted[2] += 1e-4
    with pytest.raises(ValueError, match="no contact within `dist_tol`"):
        problem_from_mjcf(xml, lifted, qvel)
    assert problem_from_mjcf(xml, lifted, qvel, dist_tol=2e-4).m == 4


@pytest.mark.parametrize("condim", [4, 6])
def test_condim_4_and_6_load_with_one_warning_and_a_strict_mode(condim):
    import warnings

    xml, qpos, qvel = block_mjcf(spatial=True)
    xml = xml.replace('<geom friction=', f'<geom condim="{condim}" friction=')
    with pytest.warns(UserWarning) as caught:
        problem = problem_from_mjcf(xml, qpos, qvel)
    assert len(caught) == 1 and f"(condim {condim})" in str(caught[0].message)
    assert "only their sliding friction enters the impact problem" in str(caught[0].message)
    np.testing.assert_allclose(problem.mu, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # silent
        assert problem_from_mjcf(xml, qpos, qvel, torsional_friction="ignore").m == problem.m
    with pytest.raises(ValueError, match=f"condim {condim}: torsional"):
        problem_from_mjcf(xml, qpos, qvel, torsional_friction="error")
    with pytest.raises(ValueError, match="`torsional_friction` must be one of"):
        problem_from_mjcf(xml, qpos, qvel, torsional_friction="maybe")


def test_frictionless_condim_1_and_bad_options():
    xml, qpos, qvel = block_mjcf(spatial=True)
    problem = problem_from_mjcf(xml.replace('<geom friction=', '<geom condim="1" friction='), qpos, qvel)
    np.testing.assert_array_equal(problem.mu, 0.0)
    with pytest.raises(ValueError, match="`planar=True` but the contact-point velocities"):
        problem_from_mjcf(xml, qpos, qvel, planar=True)
    with pytest.raises(ValueError, match="`qvel` must have nv = 6 entries; got 3"):
        problem_from_mjcf(xml, qpos, [0, 0, -1])
    with pytest.raises(ValueError, match="`dist_tol` must be a finite number >= 0"):
        problem_from_mjcf(xml, qpos, qvel, dist_tol=-1)


def test_planar_model_forced_spatial():
    model, impact = _impact(*block_mjcf(), planar=False)
    assert not impact.problem.planar and impact.problem.Jt.shape == (4, 3)
    _, planar = _impact(*block_mjcf())
    # the same normals; the spatial tangents add the (zero) out-of-plane direction to the planar one
    np.testing.assert_allclose(impact.problem.Jn, planar.problem.Jn, atol=1e-12)
    for i in range(2):
        rows = impact.problem.Jt[2 * i:2 * i + 2]
        assert min(np.linalg.norm(rows[0] - s * planar.problem.Jt[i]) for s in (1, -1)) < 1e-12 or \
            min(np.linalg.norm(rows[1] - s * planar.problem.Jt[i]) for s in (1, -1)) < 1e-12


def test_urdf_with_floating_base_and_floor():
    urdf = """<?xml version="1.0"?>
<robot name="block">
  <link name="base">
    <inertial><origin xyz="0 0 0"/><mass value="1"/>
      <inertia ixx="0.4167" iyy="0.4167" izz="0.1667" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="1 1 2"/></geometry></collision>
  </link>
</robot>"""
    problem = problem_from_urdf(urdf, [0, 0, 1, 1, 0, 0, 0], [0, 0, -V0, 0, 0, 0])
    assert problem.m == 4 and problem.Jt.shape == (8, 6)
    np.testing.assert_allclose(problem.M[:3, :3], np.eye(3), atol=1e-12)
    np.testing.assert_allclose(problem.Jn @ problem.v, -V0)


# ---------------------------------------------------------------------- spatial block
@pytest.fixture(scope="module")
def spatial_box():
    model, impact = _impact(*block_mjcf(spatial=True))
    result = sample_post_impact_set(impact.problem, 2048, 0.3, 10, keep_paths=64)
    return model, impact, result


def test_free_block_four_corners_through_sampling(spatial_box, tmp_path):
    model, impact, result = spatial_box
    p = impact.problem
    assert (p.m, p.nv, p.k) == (4, 6, 8) and not p.planar
    assert p.Jt.shape == (8, 6)
    np.testing.assert_allclose(p.Jn @ p.v, -V0)
    assert len(result) == 2048
    assert not np.any(p.is_colliding(result.velocities))
    energy = p.kinetic_energy(result.velocities)
    assert np.all(energy <= p.kinetic_energy(p.v) * (1 + 1e-12))
    for path in result.paths:
        e = p.kinetic_energy(path)
        assert np.all(np.diff(e) <= 1e-12 * e[0])
    summary = result.summary()
    assert set(summary["contacts"]) == set(p.contact_names) and summary["failed_samples"] == 0
    fig = plot_contact_planes(result, path=tmp_path / "corners.png")
    assert (tmp_path / "corners.png").stat().st_size > 0 and len(fig.axes) >= 4


def test_convention_free_velocities(spatial_box):
    model, impact, result = spatial_box
    data = mujoco_data(model, impact.qpos, impact.qvel)
    mujoco.mj_forward(model, data)
    np.testing.assert_allclose(body_velocity(model, data, "block", impact.qvel), [0, 0, -V0, 0, 0, 0], atol=1e-12)
    world = impact.world_contact_velocities(result.velocities)
    frame = impact.contact_frame_velocities(result.velocities)
    np.testing.assert_allclose(world[..., 2], frame[..., 0], atol=1e-12)  # normal = +z
    # a spin about z in body coordinates = the same spin in the world (the block is upright)
    spin = np.array([0, 0, 0, 0, 0, 1.0])
    np.testing.assert_allclose(body_velocity(model, data, 1, spin), [0, 0, 0, 0, 0, 1.0], atol=1e-12)


# ---------------------------------------------------------------------- MuJoCo comparison
@pytest.fixture(scope="module")
def block_with_feet():
    model, impact = _impact(*block_mjcf(feet=True))
    s = scenarios.get("rocking-block")
    mirror = np.diag([-1.0, 1.0, -1.0])
    result = sample_post_impact_set(impact.problem, 2**14, s.h, s.N, keep_paths=0).mirror(mirror)
    return model, impact, result


def test_tilted_state_touches_at_one_corner(block_with_feet):
    model, impact, _ = block_with_feet
    qpos = tilted_state(model, impact.qpos, np.deg2rad(0.01))
    assert qpos[2] == pytest.approx(np.deg2rad(0.01))
    # A (left) is the lower corner for a counter-clockwise tilt; it touches
    data = mujoco_data(model, qpos, impact.qvel)
    mujoco.mj_forward(model, data)
    left = data.geom_xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "footA")][2] - 1e-3
    right = data.geom_xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "footB")][2] - 1e-3
    assert abs(left) < 1e-9 and right == pytest.approx(np.sin(np.deg2rad(0.01)), rel=1e-3)


def test_mujoco_flat_drop_is_symmetric_and_nearly_plastic(block_with_feet):
    model, impact, _ = block_with_feet
    run = simulate_impact(impact, model)
    assert run.ended
    vn = run.contact_velocities[:, 0]
    assert vn[0] == pytest.approx(vn[1], abs=1e-9)
    # MuJoCo's residual restitution ~ depth / (2 timeconst dampratio^2): small, positive
    assert 0 < vn[0] < 0.005 * V0
    with pytest.raises(ValueError, match="share geom"):
        box_model, box_impact = _impact(*block_mjcf())
        simulate_impact(box_impact, box_model, stiffness=[1.0, 10.0])
    with pytest.raises(ValueError, match="`timestep_fraction` must be in"):
        MujocoSettings(timestep_fraction=0.1)


def test_mujoco_outcomes_lie_in_the_set(block_with_feet, tmp_path):
    """Few perturbations: tilt +-0.005 deg, stiffness ratio 1e-2, 1, 1e2; within 1 % of v0 of the set."""
    model, impact, result = block_with_feet
    comparison = sweep(impact, model, result, tilts_deg=(-0.005, 0.005), stiffness_ratios=(1e-2, 1.0, 1e2))
    assert all(r.ended for r in comparison.runs)
    assert comparison.eps == pytest.approx(0.01 * V0)
    assert comparison.fraction_within == 1.0, comparison.summary()
    # the stiffness ratio 100 makes A lift off near the sequential outcome (0.093 m/s)
    lifted = comparison.runs[-1].contact_velocities[0, 0]
    assert 0.08 < lifted < 0.095
    ax = plot_comparison(result, comparison, path=tmp_path / "mujoco.png")
    assert (tmp_path / "mujoco.png").stat().st_size > 0 and ax.get_xlabel()


def test_problem_from_mujoco_leaves_data_consistent():
    xml, qpos, qvel = block_mjcf(spatial=True)
    model = load_model(xml)
    data = mujoco_data(model, qpos, qvel)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        problem = problem_from_mujoco(model, data)
    np.testing.assert_array_equal(data.qvel, qvel)
    np.testing.assert_array_equal(data.qpos, qpos)
    again = problem_from_mujoco(model, mujoco_data(model, qpos, qvel))
    assert again.fingerprint() == problem.fingerprint()  # reading did not change the model
    result = sample_post_impact_set(problem, 64, 0.3, 10)
    assert result.success and not np.any(problem.is_colliding(result.velocities))


# ---------------------------------------------------------------------- docs and example
def test_docstring_examples_run():
    import doctest

    import reach.models.mujoco
    import reach.analysis.compare.mujoco

    for module in (reach.models.mujoco, reach.analysis.compare.mujoco):
        failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert attempted > 0 and failed == 0


def test_touchdown_example_runs(tmp_path):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).parents[2] / "examples" / "mujoco_touchdown.py"
    spec = importlib.util.spec_from_file_location("mujoco_touchdown", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result, assumptions = module.main(["--samples", "1024", "--out", str(tmp_path)])
    problem = result.problem
    assert (problem.m, problem.nv) == (4, 14) and len(result) > 0
    # all feet sticking is a possible outcome; ignoring the front feet is not (they would still collide)
    assert result.contains(assumptions["all feet stick"], 1e-6)
    assert problem.is_colliding(assumptions["hind feet stick, front feet ignored"])
    assert (tmp_path / "feet.png").exists() and (tmp_path / "problem.npz").exists()


def test_mass_matrix_fallback_without_mj_fullM(monkeypatch):
    """Neither mj_fullM signature available (a future/older MuJoCo): M from mj_mulM columns."""
    import reach.models.mujoco as adapter

    xml, qpos, qvel = block_mjcf(spatial=True)
    model = load_model(xml)
    data = mujoco_data(model, qpos, qvel)
    mujoco.mj_forward(model, data)
    expected = full_mass_matrix(model, data)

    def unavailable(*args):
        raise TypeError("incompatible function arguments")

    monkeypatch.setattr(adapter.mujoco, "mj_fullM", unavailable)
    np.testing.assert_allclose(full_mass_matrix(model, data), expected, atol=1e-14)
