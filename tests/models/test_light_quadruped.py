"""A light-limbed 18-velocity quadruped (examples/light_quadruped.xml): no sampled step may be refused.

Calves of 3.6e-5 kg m², joint armature 0.01 and 18 velocities make Routh-step
LCPs on which Lemke's default ratio ties end a hair (1e-8) from a solution.
Before the strict-tie last try (:data:`reach.kernels.lcp.STRICT_TIE_TOL`), 1-3
of 16,384 samples were left out as "no solver could verify"; now none is.
"""

from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

import reach.problem.step  # noqa: E402
from reach import sample_post_impact_set  # noqa: E402
from reach.analysis.compare.mujoco import mujoco_data  # noqa: E402
from reach.models.mujoco import impact_from_mujoco, load_model  # noqa: E402

MODEL = Path(__file__).parents[2] / "examples" / "light_quadruped.xml"
FEET = ("FL_foot", "FR_foot", "HL_foot", "HR_foot")


def _foot_height(model, qpos, foot):
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    return data.geom_xpos[model.geom(foot).id][2] - model.geom(foot).size[0]


def touchdown(model, seed):
    """Random abduction, hip angles and joint rates; each knee set so that its foot touches z = 0."""
    from scipy.optimize import brentq

    rng = np.random.default_rng(seed)
    qpos = np.array(model.qpos0, dtype=float)
    qpos[2] = 0.30
    for leg, foot in enumerate(FEET):
        qpos[7 + 3 * leg] = rng.uniform(-0.15, 0.15)
        qpos[8 + 3 * leg] = rng.uniform(0.4, 0.8)

        def height(knee, leg=leg, foot=foot):
            q = qpos.copy()
            q[9 + 3 * leg] = knee
            return _foot_height(model, q, foot)
        qpos[9 + 3 * leg] = brentq(height, -2.6, -0.05, xtol=1e-14)
    qvel = np.zeros(model.nv)
    qvel[0], qvel[2], qvel[4] = 0.4, -0.5, -0.3
    qvel[6:] = rng.uniform(-1.0, 1.0, 12)
    return qpos, qvel


@pytest.fixture(scope="module")
def problem():
    model = load_model(MODEL)
    qpos, qvel = touchdown(model, seed=0)
    return impact_from_mujoco(model, mujoco_data(model, qpos, qvel)).problem


def test_the_model_has_light_limbs_armature_and_18_velocities(problem):
    model = load_model(MODEL)
    assert model.nv == 18 and problem.nv == 18 and problem.m == 4
    assert np.all(model.dof_armature[6:] == 0.01)
    calves = [model.body(f"{leg}_calf").id for leg in ("FL", "FR", "HL", "HR")]
    assert np.allclose(model.body_inertia[calves][:, 0], 3.6e-5)
    assert 11.5 < float(np.sum(model.body_mass)) < 12.5


def test_no_sampled_step_is_refused_at_2_14_samples(problem, monkeypatch):
    result = sample_post_impact_set(problem, 2**14, 1.0, 10, completeness=False, n_jobs=1)
    assert result.summary()["failed_samples"] == 0
    assert np.all(result.residual[result.kept] <= 1e-9)
    # energy never rises (Theorem 7), measured in the problem's own metric
    energy = np.einsum("ij,jk,ik->i", result.velocities, problem.M, result.velocities)
    assert np.all(energy <= problem.v @ problem.M @ problem.v * (1 + 1e-9))
    # the test has teeth: without the strict-tie last try, some steps of this touchdown are refused
    monkeypatch.setattr(reach.problem.step, "STRICT_TIE_TOL", reach.problem.step.DEFAULT_OPTIONS.tie_tol)
    before = sample_post_impact_set(problem, 2**14, 1.0, 10, completeness=False, n_jobs=1)
    assert before.summary()["failed_samples"] > 0
