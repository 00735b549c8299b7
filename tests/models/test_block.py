"""One rocking-block description (reach.models.block.RigidBlock) for the scenario, MuJoCo, Drake, Zeno and compliant uses."""

import numpy as np
import pytest

import scenarios
from reach.analysis.compare.compliant import CompliantBlock
from reach.analysis.zeno import ZenoBlock
from reach.models.block import RigidBlock


def test_the_scenario_the_zeno_and_the_compliant_block_are_one_block():
    paper = scenarios.get("rocking-block")
    block = RigidBlock()
    assert paper.parameters["inertia"] == block.inertia and -paper.v[1] == block.drop_speed
    np.testing.assert_array_equal(paper.model.mass_matrix(paper.q), block.mass_matrix)
    for other in (ZenoBlock(), CompliantBlock()):
        assert isinstance(other, RigidBlock)
        assert (other.width, other.height, other.mass, other.mu, other.inertia) == \
            (block.width, block.height, block.mass, block.mu, block.inertia)
    np.testing.assert_array_equal(CompliantBlock().corners, block.corners)
    np.testing.assert_array_equal(ZenoBlock().corner_offset(0.0, 1), block.corners[1])


def test_a_changed_block_reaches_the_planar_model_and_the_mjcf():
    mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")
    from reach.models.mujoco_model import block_mjcf

    wide = RigidBlock(width=2.0, height=1.0, mass=3.0, mu=0.4, drop_height=0.05)
    model = wide.planar_model()
    np.testing.assert_allclose(model.mass_matrix(np.zeros(3)), np.diag([3.0, 3.0, 3.0 * 5 / 12]), rtol=1e-15)
    xml, qpos, qvel = block_mjcf(wide)
    loaded = mujoco.MjModel.from_xml_string(xml)
    box = loaded.geom("box")
    np.testing.assert_allclose(box.size[[0, 2]], [1.0, 0.5])
    assert np.isclose(loaded.body("block").mass[0], 3.0) and box.friction[0] == pytest.approx(0.4)
    assert qpos[1] == 0.5 and qvel[1] == -wide.drop_speed
