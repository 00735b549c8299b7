"""Tests of reach.models.drake: impact problems from a Drake MultibodyPlant, against MuJoCo and the planar modeller."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pydrake", reason="Drake is not installed (pip install 'reach[drake]')")
mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

import scenarios  # noqa: E402
from reach.analysis.compare.mujoco import block_mjcf, mujoco_data  # noqa: E402
from reach.models.drake import (  # noqa: E402
    block_sdf,
    impact_from_drake,
    load_plant,
    problem_from_sdf,
    sdf_from_mujoco,
    state_from_mujoco,
)
from reach.models.mujoco import impact_from_mujoco, load_model  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _drake_block(spatial, **options):
    sdf, q, v = block_sdf(spatial=spatial, **options)
    system = load_plant(sdf)
    return system, impact_from_drake(system.plant, system.context(q, v))


def _foot(name):
    return next(part for part in name.split("|") if part != "floor")


def _world_delassus(impact):
    """Per contact pair, the 3x3 world-frame block R_i^T (J_i M^-1 J_j^T) R_j over the contact frames' span.

    It does not depend on the generalized coordinates, nor on the tangent basis
    within a contact's tangent plane: the quantity two adapters must agree on.
    """
    p = impact.problem
    frames = [np.vstack([c.normal, c.tangents]) for c in impact.contacts]
    rows = np.vstack([F @ c.jacobian for F, c in zip(frames, impact.contacts)])
    G = rows @ np.linalg.solve(p.M, rows.T)
    d = frames[0].shape[0]
    return np.array([[frames[i].T @ G[d * i:d * i + d, d * j:d * j + d] @ frames[j] for j in range(p.m)]
                     for i in range(p.m)])


def _world_velocities(impact):
    return np.array([c.jacobian @ impact.problem.v for c in impact.contacts])


def _agree(a, b):
    """Two impacts (Drake, MuJoCo) of the same bodies describe the same impact, up to contact order."""
    order = [[_foot(c.name) for c in b.contacts].index(_foot(c.name)) for c in a.contacts]
    assert np.allclose(a.problem.mu, np.asarray(b.problem.mu)[order])
    assert np.allclose(a.problem.normal_velocities(a.problem.v), b.problem.normal_velocities(b.problem.v)[order],
                       atol=1e-12)
    Wa, Wb = _world_delassus(a), _world_delassus(b)[np.ix_(order, order)]
    assert np.allclose(Wa, Wb, rtol=1e-7, atol=1e-9 * np.abs(Wa).max())
    assert np.allclose(_world_velocities(a), _world_velocities(b)[order], atol=1e-9)


def test_planar_block_equals_the_planar_modeller_and_mujoco():
    _, drake = _drake_block(False)
    p = drake.problem
    assert p.planar and p.m == 2 and drake.plane_normal is not None
    reference = scenarios.get("rocking-block").problem  # same coordinates: x, height, ccw angle
    for name in ("M", "Jn", "Jt", "v", "mu"):
        assert np.allclose(getattr(p, name), getattr(reference, name), atol=1e-12), name
    xml, qpos, qvel = block_mjcf(feet=True)
    model = load_model(xml)
    mj = impact_from_mujoco(model, mujoco_data(model, qpos, qvel)).problem
    for name in ("M", "Jn", "Jt", "v", "mu"):
        assert np.allclose(getattr(p, name), getattr(mj, name), atol=1e-9), name


def test_spatial_block_agrees_with_mujoco():
    _, drake = _drake_block(True)
    assert not drake.problem.planar and drake.problem.m == 4
    xml, qpos, qvel = block_mjcf(spatial=True, feet=True)
    model = load_model(xml)
    _agree(drake, impact_from_mujoco(model, mujoco_data(model, qpos, qvel)))


def test_quadruped_written_from_mujoco_agrees_with_mujoco():
    model = load_model(str(EXAMPLES / "mujoco_quadruped.xml"))
    sys.path.insert(0, str(EXAMPLES))
    try:
        from mujoco_touchdown import touchdown_state
    finally:
        sys.path.remove(str(EXAMPLES))
    qpos, qvel = touchdown_state(model)
    system = load_plant(sdf_from_mujoco(model))
    drake = impact_from_drake(system.plant, state_from_mujoco(system, model, qpos, qvel))
    assert drake.problem.m == 4 and drake.problem.nv == 14
    _agree(drake, impact_from_mujoco(model, mujoco_data(model, qpos, qvel)))


def test_normal_jacobian_matches_finite_differences_of_the_distance():
    """Jn v is the rate of the signed distance along v (and positive when separating)."""
    system, impact = _drake_block(False)
    plant = system.plant
    rng = np.random.default_rng(3)
    for _ in range(3):
        v = rng.normal(size=3)
        context = system.context(impact.q, v)
        qdot = plant.MapVelocityToQDot(context, v)
        rates = []
        for sign in (1.0, -1.0):
            moved = system.context(impact.q + sign * 1e-7 * qdot)
            query = plant.get_geometry_query_input_port().Eval(moved)
            pairs = query.ComputeSignedDistancePairwiseClosestPoints(max_distance=1.0)
            names = query.inspector()
            rates.append({"|".join(names.GetName(g).rsplit("::", 1)[-1] for g in (p.id_A, p.id_B)): p.distance
                          for p in pairs})
        fd = [(rates[0][c.name] - rates[1][c.name]) / 2e-7 for c in impact.contacts]
        assert np.allclose(impact.problem.Jn @ v, fd, atol=1e-6)


def test_coincident_contacts_merge_and_planar_can_be_forced_off():
    # the planar block read as a spatial problem: still two contacts (no duplicates), friction in 3-D
    system, _ = _drake_block(False)
    sdf, q, v = block_sdf()
    spatial = impact_from_drake(system.plant, system.context(q, v), planar=False)
    assert not spatial.problem.planar and spatial.problem.m == 2
    # two feet at the same point on the same body: one contact, both listed as merged
    twin = sdf.replace('<collision name="footB">', '<collision name="footA2"><pose>-0.5 0 -0.999 0 0 0</pose>'
                       '<geometry><sphere><radius>0.001</radius></sphere></geometry></collision>'
                       '<collision name="footB">')
    system = load_plant(twin)
    merged = impact_from_drake(system.plant, system.context(q, v))
    assert merged.problem.m == 2 and sorted(len(c.merged) for c in merged.contacts) == [1, 2]


def test_bad_models_and_states_say_what_is_wrong(tmp_path):
    sdf, q, v = block_sdf()
    with pytest.raises(ValueError, match="no pair of geometries"):
        problem_from_sdf(sdf, q + np.array([0.0, 0.5, 0.0]), v)
    with pytest.raises(ValueError, match="no model file"):
        load_plant(tmp_path / "missing.sdf")
    with pytest.raises(ValueError, match="cannot tell the format"):
        load_plant(tmp_path / "robot.xml")
    with pytest.raises(ValueError, match="could not parse"):
        load_plant("<sdf version='1.9'><model name='x'><link name='a'><bogus/></link></model></sdf>")
    with pytest.raises(ValueError, match="dist_tol"):
        problem_from_sdf(sdf, q, v, dist_tol=-1.0)
    with pytest.raises(ValueError, match="planar=True"):
        sdf3, q3, v3 = block_sdf(spatial=True)
        problem_from_sdf(sdf3, q3, v3, planar=True)
    with pytest.raises(ValueError, match="unknown Drake proximity"):
        block_sdf(proximity=[{"stiffness": 1.0}, {}])
    with pytest.raises(ValueError, match="one dict per foot"):
        block_sdf(proximity=[{}])
    with pytest.raises(ValueError, match="SceneGraph"):
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import MultibodyPlant

        plant = MultibodyPlant(0.0)
        Parser(plant).AddModelsFromString(sdf, "sdf")
        plant.Finalize()
        context = plant.CreateDefaultContext()
        plant.SetPositions(context, q)
        impact_from_drake(plant, context)


def test_spatial_tangents_are_orthonormal_and_right_handed():
    _, impact = _drake_block(True)
    for c in impact.contacts:
        frame = np.vstack([c.normal, c.tangents])
        assert np.allclose(frame @ frame.T, np.eye(3), atol=1e-12)
        assert np.isclose(np.linalg.det(frame), 1.0)


def test_docstring_examples_run():
    import doctest

    import reach.models.drake as module

    failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 and failed == 0
