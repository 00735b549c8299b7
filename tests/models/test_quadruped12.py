"""A robot model written the way they are distributed loads without edits (issue 42, item 2).

``examples/quadruped12.xml``: 12 joints, about 12 kg, spherical feet with
``condim="6"``, capsule, cylinder and mesh geoms that collide, joint armature,
``frictionloss`` and limits, hip links of 1e-5 kg m², and a keyframe.  Each
feature is checked on the compiled model, then the touchdown from the
keyframe is read and sampled.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

from reach import sample_post_impact_set  # noqa: E402
from reach.analysis.compare.mujoco import mujoco_data  # noqa: E402
from reach.models.mujoco import impact_from_mujoco, load_model  # noqa: E402

MODEL = Path(__file__).parents[2] / "examples" / "quadruped12.xml"
FEET = [f"{leg}_foot" for leg in ("FL", "FR", "HL", "HR")]


@pytest.fixture(scope="module")
def model():
    return load_model(MODEL)


def _stand(model, qvel=None):
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("stand").id)
    velocity = np.zeros(model.nv) if qvel is None else qvel
    return mujoco_data(model, data.qpos.copy(), velocity)


def test_twelve_joints_and_about_twelve_kg(model):
    hinges = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
    assert len(hinges) == 12 and model.nv == 18 and 11.5 <= float(np.sum(model.body_mass)) <= 13.5


def test_spherical_feet_with_condim_6_and_torsional_and_rolling_friction(model):
    for foot in FEET:
        g = model.geom(foot)
        assert g.type[0] == mujoco.mjtGeom.mjGEOM_SPHERE and int(g.condim[0]) == 6
        assert g.friction[1] > 0 and g.friction[2] > 0


def test_capsule_cylinder_and_mesh_geoms_collide(model):
    kinds = {int(model.geom_type[g]) for g in range(model.ngeom) if model.geom_contype[g] or model.geom_conaffinity[g]}
    assert {mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_CYLINDER, mujoco.mjtGeom.mjGEOM_MESH} <= kinds


def test_armature_frictionloss_limits_and_light_links(model):
    assert np.all(model.dof_armature[6:] > 0) and np.all(model.dof_frictionloss[6:] > 0)
    assert np.all(model.jnt_limited[1:]) and np.all(model.jnt_range[1:, 0] < model.jnt_range[1:, 1])
    assert float(np.min(model.body_inertia[1:])) <= 1e-5


def test_the_keyframe_stands_on_four_feet_and_its_touchdown_loads_with_one_warning(model):
    qvel = np.zeros(model.nv)
    qvel[0], qvel[2], qvel[4] = 0.3, -0.5, 0.2  # forward, down, pitching
    with pytest.warns(UserWarning) as caught:
        impact = impact_from_mujoco(model, _stand(model, qvel))
    assert len(caught) == 1 and "(condim 6)" in str(caught[0].message)
    problem = impact.problem
    assert problem.m == 4 and sorted(c.name.split("|")[1] for c in impact.contacts) == sorted(FEET)
    assert np.all(np.diag(problem.M)[6:] >= model.dof_armature[6:])  # the armature is in M
    assert np.all(problem.normal_velocities(problem.v) < 0)  # every foot closes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sample_post_impact_set(problem, 512, 1.0, 10, completeness=False)
    assert len(result) > 0
    energy = problem.kinetic_energy(result.velocities)
    assert np.all(energy <= problem.kinetic_energy(problem.v) * (1 + 1e-9))  # Theorem 7: energy never rises
    assert np.all(problem.normal_velocities(result.velocities) >= -1e-9 * np.abs(problem.v).max())  # none collides
