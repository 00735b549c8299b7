"""reach.sets.result: status and message, exact save/load, union and mirror keep every field in step."""

import numpy as np
import pytest

import scenarios
from helpers import hand_rocking_block
from reach import PostImpactSet, SetStatus, sample_post_impact_set
from reach.kernels.routh import SAMPLE_FIELDS


@pytest.fixture(scope="module")
def block():
    return sample_post_impact_set(hand_rocking_block(), 1024, 0.3, 10, keep_paths=20)


def test_status_message_and_settings_object(block):
    assert block.success and block.status == SetStatus.OK
    assert "1,024 of 1,024 samples ended non-colliding" in block.message
    assert block.settings.n_samples == 1024 and block.settings.h == 0.3
    assert set(block.arrays) == set(SAMPLE_FIELDS)


def test_save_load_is_exact(tmp_path, block):
    path = block.save(tmp_path / "r.npz")
    back = PostImpactSet.load(path)
    assert back.settings == block.settings
    for name in SAMPLE_FIELDS:
        np.testing.assert_array_equal(back.arrays[name], block.arrays[name])
        assert back.arrays[name].dtype == block.arrays[name].dtype
    assert len(back.paths) == 20 and all(np.array_equal(a, b) for a, b in zip(back.paths, block.paths))
    assert back.problem.fingerprint() == block.problem.fingerprint()
    assert not list(tmp_path.glob(".*tmp"))


def test_save_refuses_unwritable_places(tmp_path, block):
    with pytest.raises(ValueError, match="must end in .npz"):
        block.save(tmp_path / "r.txt")
    (tmp_path / "d.npz").mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        block.save(tmp_path / "d.npz")
    with pytest.raises(ValueError, match="does not exist"):
        block.save(tmp_path / "missing" / "r.npz")


def test_union_concatenates_every_field(block):
    other = sample_post_impact_set(hand_rocking_block(), 512, 0.3, 10, seed=3, keep_paths=5)
    both = block.union(other)
    assert both.settings.n_samples == 1536 and len(both) == len(block) + len(other)
    for name in SAMPLE_FIELDS:
        np.testing.assert_array_equal(both.arrays[name][:1024], block.arrays[name])
        np.testing.assert_array_equal(both.arrays[name][1024:], other.arrays[name])
    assert [s["seed"] for s in both.metadata["union_of"]] == [0, 3]
    with pytest.raises(ValueError, match="different problem"):
        block.union(sample_post_impact_set(scenarios.get("compass-gait").problem, 16, 0.25, 5))


def test_mirror_doubles_with_the_symmetric_image(block):
    S = np.diag([-1.0, 1.0, -1.0])
    twice = block.mirror(S)
    assert len(twice) == 2 * len(block)
    np.testing.assert_allclose(twice.all_velocities[1024:], block.all_velocities @ S.T)
    with pytest.raises(ValueError, match="not a symmetry"):
        block.mirror(np.diag([1.0, -1.0, 1.0]))


def test_an_index_built_in_the_background_gives_the_same_distances(block):
    fresh = sample_post_impact_set(hand_rocking_block(), 1024, 0.3, 10, keep_paths=20)
    fresh.index_in_background()
    probes = np.random.default_rng(4).normal(size=(300, block.problem.nv))
    assert np.array_equal(fresh.distance_to(probes), block.distance_to(probes))
    assert np.array_equal(fresh.distance_to(probes, workers=2), block.distance_to(probes))


def test_distance_beyond_is_distance_to_wherever_it_reaches_the_floor(block):
    """The far points' distances, bit for bit; every point nearer than the floor comes back -inf."""
    rng = np.random.default_rng(5)
    near = block.velocities[rng.integers(0, len(block), 300)] + 1e-3 * rng.normal(size=(300, block.problem.nv))
    far = block.velocities[rng.integers(0, len(block), 100)] + rng.normal(size=(100, block.problem.nv))
    probes = np.vstack([near, far])
    exact = block.distance_to(probes)
    floor = float(np.quantile(exact, 0.8))
    got = block.distance_beyond(probes, floor, workers=2)
    beyond = exact >= floor
    assert np.array_equal(got[beyond], exact[beyond])
    assert np.all(got[~beyond] == -np.inf)  # the nearer: -inf, whatever the bound let through
    assert np.array_equal(block.distance_beyond(probes, -np.inf), exact)
