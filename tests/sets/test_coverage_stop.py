"""The coverage-driven stop (issue 41): the budget follows the coverage asked for, and says when it stops short."""

import numpy as np
import pytest

import scenarios
from reach.sets.build import FRONTIER_ALWAYS, _frontier_needed, sample_to_coverage
from reach.sets.frontier import FACTOR as FRONTIER_FACTOR, MAX as FRONTIER_MAX, frontier_budget
from reach.sets.completeness import closing_speed


def _check_the_rule(result, missed):
    coverage = result.metadata["coverage"]
    rounds = coverage["rounds"]
    assert [r["samples"] for r in rounds] == [rounds[0]["samples"] * 2**i for i in range(len(rounds))]
    assert all(r["upper_bound"] > missed for r in rounds[:-1])  # it went on only while the bound was too high
    assert coverage["met"] == (rounds[-1]["upper_bound"] <= missed)
    assert coverage["budget"] == rounds[-1]["samples"] and coverage["held_out_budget"] == rounds[-1]["held_out_samples"]
    # the held-out outcomes joined, and the frontier's where the estimated share of cells missed was too high, or
    # where the frontier is small (its held-out search at its floor)
    frontier = coverage["frontier_budget"]
    assert len(result.all_velocities) == coverage["budget"] + coverage["held_out_budget"] + frontier
    assert (frontier > 0) == (coverage["frontier"] == "ran")
    small = FRONTIER_FACTOR * coverage["held_out_budget"] <= FRONTIER_ALWAYS
    assert (frontier > 0) == (coverage["cells_missed"] > missed or small)
    climb = result.metadata["completeness"]["search_samples"]  # the climb to the farthest, after the last round
    drawn = sum(r["samples"] + r["held_out_samples"] for r in rounds) + climb + frontier
    assert climb > 0 and coverage["samples_drawn"] == drawn
    return coverage


def test_a_two_contact_set_stops_at_a_small_budget_and_says_why(capsys):
    s = scenarios.get("rocking-block")
    result = sample_to_coverage(s.problem, s.h, s.N, initial=1024, seed=2, progress=True)
    coverage = _check_the_rule(result, 0.01)
    last = coverage["rounds"][-1]  # each round's line says its distance in m/s
    assert (f"{last['samples']:,d} samples: {last['far']} of {last['held_out']} held-out outcomes farther than "
            f"{coverage['epsilon']:.3g} m/s") in capsys.readouterr().out
    assert coverage["met"] and coverage["stopped"] == "met" and coverage["budget"] <= 4096
    # its estimate is within the target, and its frontier ran all the same: a held-out search of 2,048 samples or
    # fewer is too small to trust below the target, and the frontier is cheap there
    assert result.metadata["completeness"]["cells_missed"] <= 0.01 and coverage["frontier"] == "ran"
    assert coverage["cells_missed"] == result.metadata["completeness"]["cells_missed"]  # both at 2 % of |vn0|
    assert coverage["epsilon"] == pytest.approx(0.02 * closing_speed(s.problem))
    assert result.metadata["completeness"]["outside_2pct"] <= 0.01


def test_the_frontier_is_decided_at_the_runs_own_resolution():
    """At --resolution 0.003 a set of 2^16 samples (too large for the small frontier) misses more than 1 % of its
    cells by that distance, where the completeness estimate (at 2 % of |vn0|) says none: the frontier runs."""
    s = scenarios.get("compass-gait")
    result = sample_to_coverage(s.problem, s.h, s.N, resolution=0.003, initial=2**16, max_samples=2**16, seed=0,
                                n_jobs=1)
    coverage = _check_the_rule(result, 0.01)
    assert FRONTIER_FACTOR * coverage["held_out_budget"] > FRONTIER_ALWAYS
    assert result.metadata["completeness"]["cells_missed"] <= 0.01 < coverage["cells_missed"]
    assert coverage["frontier"] == "ran" and coverage["cells_far"] > 0
    # over the target (8-12 %), the frontier grew past its eight held-out budgets
    grown = frontier_budget(coverage["held_out_budget"], coverage["cells_missed"], 0.01)
    assert coverage["frontier_budget"] == grown > FRONTIER_FACTOR * coverage["held_out_budget"]


def test_the_frontier_runs_where_the_estimate_is_over_the_target_or_the_frontier_is_small():
    def needed(held_out, cells_missed=0.0, time_limit=None):
        rounds = [{"samples": 8 * held_out, "held_out_samples": held_out, "seconds": 1.0}]
        return _frontier_needed(cells_missed, rounds, 0.01, True, FRONTIER_FACTOR * held_out, time_limit, 0.0)

    at_floor = FRONTIER_ALWAYS // FRONTIER_FACTOR
    assert needed(at_floor) is None and needed(2 * at_floor, cells_missed=0.02) is None
    assert needed(2 * at_floor).startswith("the estimated share of cells missed (0)")
    assert needed(at_floor, time_limit=1e-9) == "time limit"


def test_the_frontier_grows_with_the_estimates_excess_over_the_target_up_to_its_cap():
    base = FRONTIER_FACTOR * 2048
    assert frontier_budget(2048, 0.01, 0.01) == base and frontier_budget(2048, float("nan"), 0.01) == base
    assert frontier_budget(2048, 0.0101, 0.01) == 2 * base and frontier_budget(2048, 0.03, 0.01) == 4 * base
    assert frontier_budget(2048, 0.5, 0.01) == FRONTIER_MAX  # (64 budgets asked, the cap)
    large = FRONTIER_MAX  # a frontier of eight budgets over the cap keeps its size
    assert frontier_budget(large // FRONTIER_FACTOR * 2, 0.5, 0.01) == 2 * large


def test_a_set_that_needs_more_doubles_and_stops_at_the_cap_or_the_clock():
    s = scenarios.get("disk-stack")
    capped = sample_to_coverage(s.problem, s.h, s.N, resolution=0.002, missed=0.001, initial=256, max_samples=1024,
                                seed=2)
    coverage = _check_the_rule(capped, 0.001)
    assert len(coverage["rounds"]) == 3 and not coverage["met"] and coverage["stopped"] == "sample cap"
    clock = sample_to_coverage(s.problem, s.h, s.N, resolution=0.002, missed=0.001, initial=256, time_limit=1e-3,
                               seed=2)
    assert clock.metadata["coverage"]["stopped"] == "time limit" and len(clock.metadata["coverage"]["rounds"]) == 1
    # the last round's set is the one a fixed budget gives
    from reach import sample_post_impact_set

    fixed = sample_post_impact_set(s.problem, 1024, s.h, s.N, seed=2, completeness=False,
                                   solution_choice=capped.settings.solution_choice)
    assert np.array_equal(fixed.all_velocities, capped.all_velocities[:1024])


def test_bad_targets_are_refused():
    s = scenarios.get("rocking-block")
    for bad in (dict(resolution=0.0), dict(missed=-1.0), dict(missed=1.5), dict(confidence=1.0), dict(time_limit=0.0)):
        with pytest.raises(ValueError):
            sample_to_coverage(s.problem, s.h, s.N, **bad)


def test_the_held_out_outcomes_join_the_set_and_every_sample_replays_with_its_own_runs_settings():
    from reach.sets.witness import replay_outcome, source_of

    s = scenarios.get("disk-stack")
    result = sample_to_coverage(s.problem, s.h, s.N, initial=1024, max_samples=2048, seed=4)
    coverage = result.metadata["coverage"]
    n, m, f = coverage["budget"], coverage["held_out_budget"], coverage["frontier_budget"]
    assert coverage["with_held_out"] and f > 0 and len(result.all_velocities) == n + m + f and result.metadata["union"]
    held_settings, local = source_of(result, n + 5)
    assert local == 5 and held_settings.seed != result.settings.seed  # the held-out search's own settings
    frontier_settings, local = source_of(result, n + m + 5)
    assert local == 5 and frontier_settings.seed not in (held_settings.seed, result.settings.seed)
    # the first batch and a directed child of each run, and the frontier's first and last: bit for bit, kept too
    for index in (3, n - 1, n + 5, n + m - 1, n + m, n + m + f - 1):
        v, kept = replay_outcome(result, index)
        assert np.array_equal(v, result.all_velocities[index]) and kept == result.kept[index], index
    del result.frontier_caps  # as a set read from a file: the frontier runs again from the set it was built for
    v, kept = replay_outcome(result, n + m + f // 2)
    assert np.array_equal(v, result.all_velocities[n + m + f // 2]) and kept == result.kept[n + m + f // 2]
    alone = sample_to_coverage(s.problem, s.h, s.N, initial=1024, max_samples=2048, seed=4, with_held_out=False)
    assert len(alone.all_velocities) == n and np.array_equal(alone.all_velocities, result.all_velocities[:n])


def test_the_frontiers_outcomes_are_outcomes_energy_does_not_rise_and_no_contact_closes():
    """Every kept frontier child (reach.sets.frontier) is a post-impact velocity: kinetic energy at most the
    pre-impact one, and no contact approaching (normal velocity >= 0 up to round-off)."""
    s = scenarios.get("disk-stack")
    result = sample_to_coverage(s.problem, s.h, s.N, initial=1024, max_samples=1024, seed=5)
    coverage = result.metadata["coverage"]
    assert coverage["frontier"] == "ran"
    first = coverage["budget"] + coverage["held_out_budget"]
    frontier = result.all_velocities[first:][result.kept[first:]]
    assert len(frontier) > 0.9 * coverage["frontier_budget"]
    p, scale = s.problem, closing_speed(s.problem)
    assert np.all(p.kinetic_energy(frontier) <= p.kinetic_energy(p.v) * (1 + 1e-9))
    assert np.all(p.contact_velocities(frontier)[:, :, 0] >= -1e-9 * scale)
