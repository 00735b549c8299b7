"""Assumption 6 diagnostics: which scenarios have non-unique Routh steps."""

import numpy as np
import pytest

from helpers import hand_compass_gait, hand_rocking_block
from reach.analysis.uniqueness import distinct_step_velocities, step_uniqueness


def test_rocking_block_steps_are_unique():
    p = hand_rocking_block()
    report = step_uniqueness(p, 0.3, 10, n_samples=15)
    assert report["steps"] > 15
    assert report["nonunique_fraction"] == 0.0


def test_compass_gait_steps_are_mostly_nonunique_and_random_coverings_reach_several():
    p = hand_compass_gait()
    report = step_uniqueness(p, 0.25, 5, n_samples=15, coverings=16)
    assert report["nonunique_fraction"] > 0.5
    assert report["mean_distinct"] >= 2
    # more than the single solution a fixed covering vector would give
    assert report["random_coverage"] > 1.0 / report["mean_distinct"]


def test_distinct_velocities_all_dissipate():
    p = hand_compass_gait()
    V = distinct_step_velocities(p, p.v, np.array([0.25, 0.25]))
    assert len(V) >= 2
    assert np.all(p.kinetic_energy(V) <= p.kinetic_energy(p.v) * (1 + 1e-12))


def test_spatial_steps_are_searched_by_the_walk():
    from helpers import random_problem
    p = random_problem(np.random.default_rng(0), m=5, nv=8, planar=False)
    report = step_uniqueness(p, 1.0, 3, n_samples=2, coverings=4)
    assert report["method"] == "walk" and report["steps"] >= 2


def test_enumerate_choice_matches_random_where_steps_are_unique():
    from reach import sample_post_impact_set

    p = hand_rocking_block()
    e = sample_post_impact_set(p, 1024, 0.3, 10, solution_choice="enumerate", strategy="uniform")
    r = sample_post_impact_set(p, 1024, 0.3, 10, strategy="uniform")
    # same caps (index-keyed: the uniform strategy), unique steps: the same outcomes up to rounding
    np.testing.assert_allclose(e.all_velocities, r.all_velocities, atol=1e-12)


def test_enumerate_choice_covers_the_random_set_and_the_simultaneous_outcomes():
    from reach import sample_post_impact_set
    from reach.laws import simultaneous

    p = hand_compass_gait()
    e = sample_post_impact_set(p, 8192, 0.25, 5, solution_choice="enumerate")  # the container: 4x denser
    r = sample_post_impact_set(p, 2048, 0.25, 5, solution_choice="random")
    scale = np.max(np.abs(p.contact_velocities(p.v)))
    assert e.summary()["failed_samples"] == 0
    assert np.max(e.distance_to(simultaneous(p))) <= 0.01 * scale
    assert np.all(p.kinetic_energy(e.all_velocities) <= p.kinetic_energy(p.v) * (1 + 1e-12))
    # every pick of the random covering vectors is one of the enumerated solutions,
    # so the random set lies in the enumerated one (up to sampling resolution)
    assert np.quantile(e.distance_to(r.velocities), 0.99) <= 0.01 * scale


def test_enumerate_choice_refuses_large_problems():
    from helpers import random_problem
    from reach import sample_post_impact_set

    p = random_problem(np.random.default_rng(1), m=3, nv=6)
    with pytest.raises(ValueError, match="needs a step LCP of size <= 14"):
        sample_post_impact_set(p, 10, 1.0, 3, solution_choice="enumerate")


def test_random_coverings_never_reach_the_solutions_of_index_minus_one():
    """Planar steps of four contacts, enumerated by modes: Lemke's paths end at index +1 solutions only.

    A non-degenerate step with k solutions has (k - 1) / 2 of index -1 (the
    step's map has degree 1), which no covering vector reaches.
    """
    from helpers import random_problem

    rng = np.random.default_rng(104)
    reports = []
    for _ in range(12):
        p = random_problem(rng, m=4, nv=5, planar=True, mu=10.0 ** rng.uniform(0, 1.5, size=4))
        reports.append(step_uniqueness(p, 1.5 * np.abs(p.Jn @ p.v).max(), 3, n_samples=4, coverings=48, seed=1))
    nonunique = [r for r in reports if r["nonunique_fraction"] > 0]
    assert len(nonunique) >= 4
    assert sum(r["unreached_fraction"] > 0 for r in nonunique) >= 4  # solutions no covering vector reaches
    assert all(r["unreached_fraction"] < 0.5 for r in nonunique)  # fewer than half: (k - 1) / 2 of k, at most


# --- choice_check: what `reach run` says of a set drawn with random or first choice --------------------------
def test_choice_check_reports_the_outcomes_random_coverings_miss_on_the_compass_gait():
    from reach import sample_post_impact_set
    from reach.analysis.uniqueness import choice_check

    p = hand_compass_gait()
    result = sample_post_impact_set(p, 256, 0.25, 5, solution_choice="random", completeness=False)
    found = choice_check(result, n_samples=8, seed=3)
    assert found["choice"] == "random" and found["method"] == "modes" and found["exact_available"]
    assert 0 < found["nonunique_steps"] <= found["steps"]
    assert found["nonunique_fraction"] == pytest.approx(found["nonunique_steps"] / found["steps"])
    # three solutions a step, one of index -1 that no covering vector reaches: about a third unreached
    assert 0.2 < found["unreached_fraction"] < 0.5


def test_choice_check_is_silent_for_exact_choice_and_finds_nothing_where_steps_are_unique():
    from reach import sample_post_impact_set
    from reach.analysis.uniqueness import choice_check

    exact = sample_post_impact_set(hand_compass_gait(), 64, 0.25, 5, completeness=False)
    assert exact.settings.solution_choice == "exact" and choice_check(exact) is None
    block = sample_post_impact_set(hand_rocking_block(), 64, 0.3, 10, solution_choice="random", completeness=False)
    found = choice_check(block, n_samples=8)
    assert found["steps"] > 8 and found["nonunique_steps"] == 0 and found["unreached_fraction"] == 0.0
