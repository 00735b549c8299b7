"""MuJoCo flies a spatial robot from one touchdown to the next (issue 42, item 1: the flow between impacts)."""

import warnings
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

from reach import sample_post_impact_set  # noqa: E402
from reach.analysis.compare.mujoco import mujoco_data  # noqa: E402
from reach.models.mujoco import impact_from_mujoco, load_model  # noqa: E402
from reach.models.mujoco_flight import contact_pairs, fly  # noqa: E402

BLOCK = """<mujoco><option integrator="RK4" timestep="0.002"/>
<worldbody><geom name="floor" type="plane" size="0 0 1"/>
<body name="block" pos="0 0 1"><freejoint/><geom name="box" type="box" size="0.5 0.5 1" mass="1"/></body>
</worldbody></mujoco>"""
G = 9.81


def _tilted_block(height, speed, angle=0.1):
    """The block tilted about y, its lowest corners ``height`` above the floor, falling at ``speed``."""
    model = load_model(BLOCK)
    qpos = np.array([0.0, 0.0, 0.0, np.cos(angle / 2), 0.0, np.sin(angle / 2), 0.0])
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    R, c = data.xmat[1].reshape(3, 3), data.xpos[1]
    low = min((c + R @ np.array([sx * 0.5, sy * 0.5, sz * 1.0]))[2] for sx in (-1, 1) for sy in (-1, 1)
              for sz in (-1, 1))
    qpos[2] += height - low
    qvel = np.zeros(6)
    qvel[2] = -speed
    return model, qpos, qvel


def test_a_tilted_block_strikes_when_free_fall_says_and_the_impact_is_read_there():
    model, qpos, qvel = _tilted_block(0.3, 0.2)
    flight = fly(model, qpos, qvel)
    t_fall = (-0.2 + np.sqrt(0.2**2 + 2 * G * 0.3)) / G
    assert flight.kind == "impact" and abs(flight.t - t_fall) <= 1e-6
    np.testing.assert_allclose(flight.qvel, [0, 0, -(0.2 + G * flight.t), 0, 0, 0], atol=1e-9)  # no contact force yet
    assert len(flight.striking) == 2  # the two corners of the low edge, at once
    impact = impact_from_mujoco(model, mujoco_data(model, flight.qpos, flight.qvel))
    problem = impact.problem
    assert problem.m == 2 and np.array_equal(problem.v, flight.qvel)
    assert np.all(problem.normal_velocities(problem.v) < -2.0)
    again = impact_from_mujoco(model, mujoco_data(model, flight.qpos, flight.qvel)).problem
    a = sample_post_impact_set(problem, 512, 1.0, 10, completeness=False, seed=1)
    b = sample_post_impact_set(again, 512, 1.0, 10, completeness=False, seed=1)
    assert np.array_equal(a.all_velocities, b.all_velocities)  # the set of the state the flight ended at


def test_after_the_impact_the_struck_corners_rest_in_stance_and_energy_is_not_gained_before_the_next():
    model, qpos, qvel = _tilted_block(0.05, 0.2)
    first = fly(model, qpos, qvel)
    impact = impact_from_mujoco(model, mujoco_data(model, first.qpos, first.qvel))
    result = sample_post_impact_set(impact.problem, 256, 1.0, 10, completeness=False, seed=2)
    rocking = result.velocities[np.argmax(np.abs(result.velocities[:, 4]))]  # the outcome that pivots most
    second = fly(model, first.qpos, rocking, t0=first.t, t_max=first.t + 2.0)
    # the struck corners, within a hair of the floor, start in stance: they are not struck again at once
    assert second.kind == "impact" and second.steps > 10 and second.t > first.t + 0.02
    total = lambda q, v: 0.5 * v @ impact.problem.M @ v + G * q[2]  # noqa: E731 - kinetic + potential (1 kg)
    assert total(second.qpos, second.qvel) <= total(first.qpos, rocking) + 1e-9  # contacts only dissipate
    assert total(first.qpos, rocking) <= total(first.qpos, first.qvel) + 1e-12  # the impact too (Theorem 7)


def test_a_pd_controlled_quadruped_dropped_from_its_stance_lands_on_four_feet():
    model = load_model(Path(__file__).parents[2] / "examples" / "quadruped12.xml")
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("stand").id)
    stand = data.qpos.copy()
    qpos = stand.copy()
    qpos[2] += 0.05  # 5 cm above the floor

    def pd(t, q, v):
        return 60.0 * (stand[7:] - q[7:]) - 2.0 * v[6:]

    flight = fly(model, qpos, np.zeros(model.nv), controller=pd)
    feet = {key[:2] for key in flight.striking}
    assert flight.kind == "impact" and feet == {("FL_foot", "floor"), ("FR_foot", "floor"), ("HL_foot", "floor"),
                                               ("HR_foot", "floor")}
    assert flight.t == pytest.approx(np.sqrt(2 * 0.05 / G), rel=0.05)
    pairs = contact_pairs(model, mujoco_data(model, flight.qpos, flight.qvel))
    assert all(speed < 0 for key, (_, speed) in pairs.items() if key in flight.striking)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the feet's condim 6
        impact = impact_from_mujoco(model, mujoco_data(model, flight.qpos, flight.qvel))
    assert impact.problem.m == 4
