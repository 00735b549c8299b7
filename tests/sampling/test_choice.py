"""What solution_choice="auto" picks: exact where a count-based estimate says it is cheap; else first where
random covering vectors reach nothing more on a probe, random where they do."""

import numpy as np
import pytest

import reach.sampling.choice as choice_module
import scenarios
from helpers import random_problem
from reach import ImpactProblem, sample_post_impact_set
from reach.sampling.choice import (AUTO_ESTIMATED_CONTACTS, EXACT_COST_LIMIT, auto_choice, clopper_pearson_upper,
                                   covering_probe, exact_choice_estimate, resolve_choice)
from reach.tools.scaling import disc_row


def test_four_discs_whose_steps_are_all_certified_get_exact_choice_without_a_pilot():
    p, h, N = disc_row(4)
    estimate = exact_choice_estimate(p, h, N)
    assert estimate["certified"] and estimate["pieces"] == 0 and estimate["steps"] == 0
    assert estimate["ratio"] == 1.0
    result = sample_post_impact_set(p, 256, h, N, completeness=False)
    assert result.settings.solution_choice == "exact" and result.success


def test_five_discs_get_exact_choice_from_a_pilot_that_finds_no_step_to_enumerate():
    p, h, N = disc_row(5)
    estimate = exact_choice_estimate(p, h, N)
    assert 0 < estimate["pieces"] and estimate["steps"] > 128  # every pilot trajectory takes a step or more
    assert estimate["flagged"] == 0 and estimate["ratio"] <= EXACT_COST_LIMIT
    assert estimate == exact_choice_estimate(p, h, N)  # counts, not timings: the same every time
    assert resolve_choice(p, "auto", h, N) == "exact"


def test_the_disk_stack_keeps_random_choice_its_certificate_alone_costs_too_much():
    s = scenarios.get("disk-stack")
    estimate = exact_choice_estimate(s.problem, s.h, s.N)
    assert estimate["pieces"] > 1000 and estimate["steps"] == 0  # no pilot was needed
    assert estimate["ratio"] > EXACT_COST_LIMIT
    choice, why = auto_choice(s.problem, "auto", s.h, s.N)
    assert choice == "random" and why["probe"]["split"] > 0  # random covering vectors reach other v' there


@pytest.mark.parametrize("m", [4, 5])
def test_problems_the_certificate_cannot_serve_keep_random_choice(m):
    rng = np.random.default_rng(100 + m)
    p = random_problem(rng, m=m, nv=m + 1, planar=True, mu=10.0 ** rng.uniform(0, 1.5, size=m))
    h = np.abs(p.Jn @ p.v).max() / p.mass_scale
    estimate = exact_choice_estimate(p, h, 10)
    assert estimate["ratio"] > EXACT_COST_LIMIT
    assert resolve_choice(p, "auto", h, 10) == "random"


def test_auto_without_a_usable_h_or_beyond_the_estimated_sizes_is_random():
    p, h, N = disc_row(4)
    for bad_h, bad_n in ((None, N), (h, None), (-1.0, N), (float("nan"), N), (h, 0), (h, 2.5), ("x", N)):
        assert resolve_choice(p, "auto", bad_h, bad_n) == "random"
    assert resolve_choice(disc_row(AUTO_ESTIMATED_CONTACTS + 1)[0], "auto") == "random"
    assert resolve_choice(p, "first", h, N) == "first"
    with pytest.raises(ValueError, match="h"):
        sample_post_impact_set(p, 64, -1.0, N)


def lifted(problem, k=4):
    """``problem`` made spatial: one more coordinate (unit mass) each contact can slide along, at rest."""
    nv, m = problem.nv, problem.m
    M = np.zeros((nv + 1, nv + 1))
    M[:nv, :nv], M[nv, nv] = problem.M, 1.0
    Jt = np.zeros((2 * m, nv + 1))
    Jt[0::2, :nv], Jt[1::2, nv] = problem.Jt, 1.0
    return ImpactProblem(M, np.hstack([problem.Jn, np.zeros((m, 1))]), Jt, problem.mu, np.append(problem.v, 0.0),
                         friction_directions=k)


def test_a_spatial_problem_whose_probed_steps_do_not_split_gets_first_choice_and_the_same_set():
    s = scenarios.get("rocking-block")
    p = lifted(s.problem)
    choice, why = auto_choice(p, "auto", s.h, s.N)
    assert choice == "first" and why["probe"]["steps"] > 128 and why["probe"]["split"] == 0
    assert why == choice_module._decide(p, s.h, s.N)[1]  # a fixed probe: the same answer every time, not cached
    assert why["probe"]["split_upper"] == pytest.approx(1 - 0.05 ** (1 / why["probe"]["steps"]))  # 95 % bound, none
    common = dict(strategy="uniform", completeness=False, seed=3)
    auto = sample_post_impact_set(p, 1024, s.h, s.N, **common)
    drawn = sample_post_impact_set(p, 1024, s.h, s.N, solution_choice="random", **common)
    assert auto.settings.solution_choice == "first" and auto.metadata["auto_choice"]["rule"] == "no probed step splits"
    assert np.array_equal(auto.kept, drawn.kept)
    # every step has one v': the covering vector of ones gives random choice's set, sample by sample
    scale = np.abs(p.v).max()
    assert np.abs(auto.all_velocities - drawn.all_velocities).max() <= 1e-12 * scale
    assert np.abs(auto.all_velocities[:, -1]).max() <= 1e-12 * scale  # nothing slides sideways


def test_a_spatial_problem_with_steps_of_several_solutions_keeps_random_choice():
    s = scenarios.get("compass-gait")
    p = lifted(s.problem)
    probe = covering_probe(p, s.h, s.N)
    assert probe["split"] > 0.5 * probe["steps"]  # the compass gait's steps have three v' (docs/guide/model.md)
    assert probe["split"] / probe["steps"] < probe["split_upper"] < 1
    assert resolve_choice(p, "auto", s.h, s.N) == "random"


def test_a_row_of_six_discs_is_probed_and_gets_first_choice():
    p, h, N = disc_row(AUTO_ESTIMATED_CONTACTS + 1)
    choice, why = auto_choice(p, "auto", h, N)
    assert choice == "first" and "estimate" not in why and why["probe"]["split"] == 0


def test_first_choice_retries_a_failed_step_with_random_choice_covering_vector():
    """A quadruped step whose vertex for the covering vector of ones does not verify (residual 1e-8).

    First choice then tries the sample's random covering vector (it used to try ones again, and then
    the retry streams, which lost this sample); the set keeps the sample, with random choice's outcome.
    """
    pytest.importorskip("mujoco")
    from reach.sampling.caps import draw_caps_at
    from reach.problem.step import kernel_data, routh_step
    from reach.tools.scaling import quadruped

    p, h, N = quadruped()
    P = draw_caps_at(p.m, N, np.array([515]), seed=2, sequence="sobol", caps="mixed")[0]
    data = kernel_data(p)
    v_next, _, status, _ = routh_step(p, p.v, h * P[0], data=data)
    assert status == 0
    ones_fails = routh_step(p, v_next, h * P[1], data=data)[2] != 0  # here (x86-64, numba 0.68): residual 1.2e-8
    common = dict(strategy="uniform", completeness=False, seed=2)
    first = sample_post_impact_set(p, 516, h, N, solution_choice="first", **common)
    drawn = sample_post_impact_set(p, 516, h, N, solution_choice="random", **common)
    assert first.kept[515] and first.sample_status[515] == 0
    assert np.abs(first.all_velocities[515] - drawn.all_velocities[515]).max() <= 1e-9 * np.abs(p.v).max()
    if ones_fails:  # where rounding lets ones verify, the step needs no retry; the outcome above still holds
        assert first.lcp_solves[515] > drawn.lcp_solves[515]  # the retry was taken


def test_the_probe_solves_at_most_its_step_budget_whatever_n():
    from reach.sampling.choice import PROBE_MAX_STEPS

    p, h, N = disc_row(2)
    probe = covering_probe(p, h / 100, 20)  # small caps: every pilot trajectory takes all 20 steps
    assert probe["steps"] == PROBE_MAX_STEPS and probe["split"] <= probe["steps"]


def test_the_probe_does_not_depend_on_units():
    s = scenarios.get("compass-gait")
    p = lifted(s.problem)
    base = covering_probe(p, s.h, s.N)
    for mass, speed in ((1e8, 1.0), (1e-8, 1.0), (1.0, 1e8)):
        q = ImpactProblem(p.M * mass, p.Jn, p.Jt, p.mu, p.v * speed, friction_directions=p.k)
        assert covering_probe(q, s.h * mass * speed, s.N) == base


def test_adaptive_sampling_resolves_auto_once_and_records_why():
    from reach.sets.build import sample_adaptive

    s = scenarios.get("rocking-block")
    p = lifted(s.problem)
    result = sample_adaptive(p, s.h, s.N, epsilon=0.5 * np.abs(p.v).max(), initial=512, max_samples=1024)
    assert result.settings.solution_choice == "first"
    assert result.metadata["auto_choice"]["probe"]["split"] == 0 and result.metadata["adaptive"]


def test_auto_choice_is_decided_once_per_problem_h_and_n_in_a_process(monkeypatch):
    """Adaptive rounds, propagation replays and repeated notebook runs of one problem probe it once."""
    monkeypatch.setattr(choice_module, "_AUTO_CACHE", {})
    calls, decide = [], choice_module._decide

    def counted(problem, h, max_steps):
        calls.append((h, max_steps))
        return decide(problem, h, max_steps)

    monkeypatch.setattr(choice_module, "_decide", counted)
    s = scenarios.get("rocking-block")
    p = lifted(s.problem)
    choice, why = auto_choice(p, "auto", s.h, s.N)
    why["rule"] = "changed by the caller"  # a copy: the kept answer is not touched
    assert auto_choice(p, "auto", s.h, s.N) == (choice, {**why, "rule": "no probed step splits"})
    assert len(calls) == 1
    auto_choice(p, "auto", s.h / 2, s.N)  # another h: decided again
    moved = ImpactProblem(p.M, p.Jn, p.Jt, p.mu, 2 * p.v, friction_directions=p.k)
    auto_choice(moved, "auto", s.h, s.N)  # another problem (its fingerprint differs): decided again
    assert len(calls) == 3
    monkeypatch.setattr(choice_module, "AUTO_CACHE_SIZE", 2)
    auto_choice(p, "auto", s.h, s.N + 1)  # a full store drops its oldest answer
    assert len(choice_module._AUTO_CACHE) == 2 and len(calls) == 4


@pytest.mark.parametrize("n", [1, 2, 7, 128, 1929, 2**20])
def test_the_clopper_pearson_bound_is_scipys_beta_quantile_and_leaves_the_chance_it_names(n):
    from scipy.stats import beta, binom

    for k in sorted({0, min(1, n - 1), n // 3, n - 1}):
        for confidence in (0.9, 0.95, 0.99):
            upper = clopper_pearson_upper(k, n, confidence)
            # the textbook's quantile (bit for bit on SciPy 1.17; another SciPy may round its last bits otherwise)
            assert upper == pytest.approx(float(beta.ppf(confidence, k + 1, n - k)), rel=1e-12, abs=0)
            assert k / n < upper < 1
            # at the bound, k or fewer of n happens with the chance 1 - confidence (to SciPy's accuracy at 2^20)
            assert binom.cdf(k, n, upper) == pytest.approx(1 - confidence, rel=1e-5)
    assert clopper_pearson_upper(n, n, 0.95) == 1.0


def test_importing_reach_and_its_command_line_leaves_scipy_stats_and_the_plots_out():
    import subprocess
    import sys

    # scipy.stats took 1.0 s of every command's 1.7 s start-up (python -X importtime), the plotting package 0.2 s
    # (it pulls in scipy.integrate); a command that draws imports them itself
    code = ("import sys, reach, reach.tools.cli; "
            "print([name for name in ('scipy.stats', 'reach.plotting', 'matplotlib') if name in sys.modules])")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() \
        == "[]"
