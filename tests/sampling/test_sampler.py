"""Algorithms 1-2: termination, filtering, reproducibility and the paper's hand-built examples."""

import numpy as np
import pytest

from helpers import hand_compass_gait, hand_rocking_block, random_problem
from reach import ImpactProblem, PostImpactSet, sample_post_impact_set
from reach.sampling.directed import schedule
from reach.laws import routh_single_contact, sequential, simultaneous


@pytest.fixture(scope="module")
def block_set():
    p = hand_rocking_block()
    return p, sample_post_impact_set(p, 2**14, h=0.3, max_steps=10, keep_paths=64)


def test_outcomes_are_non_colliding_and_dissipative(block_set):
    p, result = block_set
    assert len(result) > 0.99 * 2**14
    normal = p.normal_velocities(result.velocities)
    assert np.all(normal >= -p.colliding_tol)
    e0 = p.kinetic_energy(p.v)
    assert np.all(p.kinetic_energy(result.all_velocities) <= e0 * (1 + 1e-12))
    assert result.residual.max() <= 1e-9
    # a terminated sample needs no closing step and is kept
    assert np.all(result.kept[result.terminated])
    # kept means non-colliding, exactly (no sample failed here)
    assert result.summary()["failed_samples"] == 0
    np.testing.assert_array_equal(p.is_colliding(result.all_velocities), ~result.kept)


def test_paths_are_monotone_in_energy(block_set):
    p, result = block_set
    assert len(result.paths) == 64
    for path in result.paths:
        e = p.kinetic_energy(path)
        assert np.all(np.diff(e) <= 1e-12 * e[0])
        np.testing.assert_array_equal(path[0], p.v)


def test_rocking_block_contains_simultaneous_and_both_sequential_outcomes(block_set):
    p, result = block_set
    sim = simultaneous(p)
    assert len(sim) == 1
    np.testing.assert_allclose(sim[0], 0.0, atol=1e-12)           # rest
    v0 = abs(p.v[1])
    eps = 0.02 * v0
    assert result.distance_to(sim[0]) <= eps
    for first in ("A", "B"):
        seq = sequential(p, first)
        assert seq.terminated
        assert result.distance_to(seq.velocity) <= eps, first


def test_compass_gait_default_set_holds_all_three_simultaneous_outcomes():
    p = hand_compass_gait()
    sim = simultaneous(p)
    assert len(sim) == 3            # Remy 2017: B lifts off, B slides, B sticks
    default = sample_post_impact_set(p, 2**15, h=0.25, max_steps=5)
    first = sample_post_impact_set(p, 2**15, h=0.25, max_steps=5, solution_choice="first")
    scale = np.max(np.abs(p.contact_velocities(p.v)))
    d_default = default.distance_to(sim)
    d_first = first.distance_to(sim)
    assert np.all(d_default <= 0.01 * scale), d_default
    # the single-solution set misses outcomes by a wide margin
    assert np.max(d_first) >= 0.1 * scale, d_first
    assert first.hausdorff(default) >= 0.1 * scale


def test_single_contact_set_shrinks_onto_routh():
    rng = np.random.default_rng(21)
    for trial in range(5):
        p = random_problem(rng, m=1, nv=3, mu=np.array([rng.uniform(0.1, 2.0)]))
        v_routh, _ = routh_single_contact(p)
        spreads = []
        for h in (0.5, 0.05):
            h_scaled = h * np.linalg.norm(p.contact_velocities(p.v)) / (p.Jn[0] @ np.linalg.solve(p.M, p.Jn[0]))
            res = sample_post_impact_set(p, 256, h=h_scaled, max_steps=400, sequence="uniform")
            assert len(res) == 256
            spreads.append(np.max(res.distance_to(v_routh)))
        scale = np.max(np.abs(p.contact_velocities(p.v)))
        assert spreads[1] <= max(spreads[0], 1e-12 * scale) + 1e-12
        assert spreads[1] <= 1e-6 * scale, (trial, spreads)


def test_single_contact_point_mass_matches_hand_routh():
    # point mass hitting the floor, sliding: mu = 0.2 stops the slide only partially
    p = ImpactProblem(np.eye(2), [[0.0, 1.0]], [[1.0, 0.0]], 0.2, [1.0, -1.0])
    v, _ = routh_single_contact(p)
    np.testing.assert_allclose(v, [0.8, 0.0])
    res = sample_post_impact_set(p, 64, h=0.3, max_steps=20)
    np.testing.assert_allclose(res.velocities, np.tile([0.8, 0.0], (len(res), 1)), atol=1e-12)


def test_same_seed_same_set_different_seed_different_samples():
    p = hand_compass_gait()
    a = sample_post_impact_set(p, 3000, h=0.25, max_steps=5, seed=7, chunk_size=1000)
    b = sample_post_impact_set(p, 3000, h=0.25, max_steps=5, seed=7, chunk_size=777)
    c = sample_post_impact_set(p, 3000, h=0.25, max_steps=5, seed=8)
    np.testing.assert_array_equal(a.all_velocities, b.all_velocities)
    np.testing.assert_array_equal(a.lcp_solves, b.lcp_solves)
    assert not np.array_equal(a.all_velocities, c.all_velocities)
    for sequence in ("uniform",):
        u1 = sample_post_impact_set(p, 500, h=0.25, max_steps=5, seed=3, sequence=sequence, chunk_size=100)
        u2 = sample_post_impact_set(p, 500, h=0.25, max_steps=5, seed=3, sequence=sequence)
        np.testing.assert_array_equal(u1.all_velocities, u2.all_velocities)


def test_save_load_round_trip(tmp_path, block_set):
    _, result = block_set
    path = result.save(tmp_path / "block.npz")
    back = PostImpactSet.load(path)
    np.testing.assert_array_equal(back.all_velocities, result.all_velocities)
    assert len(back.paths) == len(result.paths)
    assert back.hausdorff(result) == 0.0
    assert back.summary()["lcps_per_sample"] == result.summary()["lcps_per_sample"]


def test_summary_reports_table3_columns(block_set):
    _, result = block_set
    s = result.summary()
    assert 1.0 <= s["lcps_per_sample"] <= 11.0
    assert s["time_per_sample"] > 0 and s["time_per_lcp"] > 0
    assert s["kernel_time_per_sample"] == result.metadata["kernel_seconds"] / s["samples"] > 0
    for name in ("A", "B"):
        c = s["contacts"][name]
        assert abs(c["lift_off"] + c["slide"] + c["stick"] - 1.0) < 1e-12


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_samples=0), "`n_samples` must be an integer between 1 and 1,073,741,824; got 0."),
    (dict(n_samples=2.7), "`n_samples` must be an integer; got 2.7."),
    (dict(h=-1.0), "`h` must be a positive finite number; got -1.0."),
    (dict(h=float("inf")), "`h` must be a positive finite number; got inf."),
    (dict(max_steps=0), "`max_steps` must be an integer between 1 and 100,000; got 0."),
    (dict(seed=2**64), "`seed` must be an integer between 0 and 9,223,372,036,854,775,807"),
    (dict(sequence="halton"), "`sequence` must be one of"),
    (dict(solution_choice="best"), "`solution_choice` must be one of"),
    (dict(eps=0.0), "`eps` must be a positive finite number; got 0.0."),
    (dict(caps="edges"), "`caps` must be one of"),
    (dict(keep_paths=-1), "`keep_paths` must be an integer between 0"),
])
def test_bad_settings(kwargs, message):
    args = dict(n_samples=10, h=0.3, max_steps=5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        sample_post_impact_set(hand_rocking_block(), args.pop("n_samples"), args.pop("h"),
                               args.pop("max_steps"), **args)


@pytest.mark.parametrize("name", ["rocking-block", "box-wall", "compass-gait", "ramone", "disk-stack"])
def test_every_paper_scenario_dissipates_along_every_path(name):
    import scenarios

    s = scenarios.get(name)
    p = s.problem
    r = sample_post_impact_set(p, 2**13, s.h, s.N, keep_paths=256)
    e0 = p.kinetic_energy(p.v)
    assert r.summary()["failed_samples"] == 0
    assert np.all(p.kinetic_energy(r.all_velocities) <= e0 * (1 + 1e-12))
    for path in r.paths:
        e = p.kinetic_energy(path)
        assert np.all(np.diff(e) <= 1e-12 * e0)
    assert np.all(p.normal_velocities(r.velocities) >= -p.colliding_tol)
    assert r.residual.max() <= 1e-9


def test_extreme_caps_keep_stratification_and_reach_further_on_many_contacts():
    import scenarios
    from reach.sampling.caps import draw_caps

    u = draw_caps(2, 3, 0, 1024)
    e = draw_caps(2, 3, 0, 1024, caps="extremes")
    assert np.all((e >= 0) & (e <= 1))
    # a monotone map of each coordinate: the ordering of points (their strata) is kept
    for j in range(3):
        for i in range(2):
            assert np.all(np.diff(e[np.argsort(u[:, j, i]), j, i]) >= 0)  # monotone map
    assert np.mean((e < 0.05) | (e > 0.95)) > 3 * np.mean((u < 0.05) | (u > 0.95))
    s = scenarios.get("disk-stack")
    p = s.problem
    flat = sample_post_impact_set(p, 2**12, s.h, s.N, caps="uniform", strategy="uniform")
    wide = sample_post_impact_set(p, 2**12, s.h, s.N, caps="extremes", strategy="uniform")
    assert wide.summary()["failed_samples"] == 0
    assert np.all(p.kinetic_energy(wide.all_velocities) <= p.kinetic_energy(p.v) * (1 + 1e-12))
    assert np.all(p.normal_velocities(wide.velocities) >= -p.colliding_tol)
    # the same set, sampled toward its extremes: larger separations appear
    assert wide.contact_velocities()[:, :, 0].max() > flat.contact_velocities()[:, :, 0].max()


def test_bad_caps_setting():
    with pytest.raises(ValueError, match="`caps` must be one of"):
        sample_post_impact_set(hand_rocking_block(), 10, 0.3, 5, caps="beta")


def test_mixed_caps_alternate_uniform_and_extreme_by_index():
    from reach.sampling.caps import draw_caps

    u = draw_caps(3, 4, 5, 100)
    e = draw_caps(3, 4, 5, 100, caps="extremes")
    x = draw_caps(3, 4, 5, 100, caps="mixed")
    index = np.arange(5, 105)
    np.testing.assert_array_equal(x[index % 2 == 0], u[index % 2 == 0])
    np.testing.assert_array_equal(x[index % 2 == 1], e[index % 2 == 1])


def test_memory_follows_the_work_not_max_steps():
    """Caps are drawn in blocks and stored paths are trimmed: N = 20000 costs what N = 10 costs."""
    import tracemalloc

    p = hand_rocking_block()
    sample_post_impact_set(p, 64, 0.3, 20_000, sequence="uniform", keep_paths=64)  # compile outside
    tracemalloc.start()
    result = sample_post_impact_set(p, 512, 0.3, 20_000, sequence="uniform", keep_paths=512)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # all caps at once would be 512 x 20000 x 2 doubles = 164 MB, all paths 246 MB; what must stay is the
    # directed children's caps, 2 bytes each for replay (31 MB for the 384 children here), the same for the
    # held-out search's children (512 samples, which the climb to the farthest starts from), plus 20 MB of work
    children = 2 * (512 - schedule(512)[0])
    assert peak < 20e6 + children * 20_000 * 2 * 2, f"peak {peak / 1e6:.0f} MB"
    assert len(result.paths) == 512 and max(len(q) for q in result.paths) < 20


def test_workers_are_capped_at_the_cores_and_the_chunks():
    import os

    r = sample_post_impact_set(hand_rocking_block(), 2048, 0.3, 10, chunk_size=1024, n_jobs=64)
    assert r.metadata["workers"] == min(os.cpu_count() or 1, 2)


def test_limits_are_checked_up_front_with_the_argument_named():
    p = hand_rocking_block()
    with pytest.raises(ValueError, match="`max_steps` must be an integer between 1 and 100,000"):
        sample_post_impact_set(p, 16, 0.3, 10**6)
    with pytest.raises(ValueError, match="Sobol dimensions"):
        sample_post_impact_set(p, 16, 0.3, 50_000)
    with pytest.raises(ValueError, match="`friction_directions` must be at most 64"):
        ImpactProblem(np.eye(3), [[0, 1, 0]], [[1, 0, 0], [0, 0, 1]], 0.5, [0, -1, 0],
                      friction_directions=10**6)
    with pytest.raises(TypeError, match="`M` must be real"):
        ImpactProblem(np.eye(2) * (1 + 1j), [[0, 1]], [[1, 0]], 0.5, [0, -1])
    with pytest.raises(TypeError, match="`problem` must be an ImpactProblem"):
        sample_post_impact_set({"M": 1}, 16, 0.3, 10)


def test_an_empty_set_says_so_and_names_h_and_N():
    """Frictionless, nearly opposed normals with a tiny h: no sample ends non-colliding in N steps."""
    from reach import SetStatus
    from reach.sets.result import SamplingWarning

    p = ImpactProblem(np.eye(2), [[0.0, 1.0], [0.05, -1.0]], [[1.0, 0.0], [1.0, 0.05]], 0.0, [0.0, -1.0])
    with pytest.warns(SamplingWarning, match=r"the set is empty: none of 256 samples .* h = 1e-06, N = 2"):
        result = sample_post_impact_set(p, 256, 1e-6, 2)
    assert not result.success and result.status == SetStatus.EMPTY and len(result) == 0
    assert "raise `max_steps`" in result.message
    summary = result.summary()
    assert summary["status"] == "EMPTY" and summary["kept"] == 0


def test_any_sample_replays_alone_bit_for_bit():
    from reach.sets.witness import replay_sample, witness_caps

    p = hand_rocking_block()
    result = sample_post_impact_set(p, 2 ** 10, 0.3, 10, keep_caps=True, completeness=False)
    n0 = schedule(2 ** 10)[0]
    for index in (0, 3, n0 - 1, n0, 777, 1023):  # drawn by index, then directed children
        caps = witness_caps(result, index)
        assert (caps is None) == (index < n0)
        v, kept = replay_sample(p, result.settings, index, caps)
        assert np.array_equal(v, result.all_velocities[index]) and kept == result.kept[index]
    plain = sample_post_impact_set(p, 2 ** 10, 0.3, 10, completeness=False)
    with pytest.raises(ValueError, match="keep_caps"):
        witness_caps(plain, 900)
