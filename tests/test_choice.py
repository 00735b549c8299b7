"""What solution_choice="auto" picks: exact where a count-based estimate says it is cheap, else random."""

import numpy as np
import pytest

import scenarios
from helpers import random_problem
from reach import sample_post_impact_set
from reach.choice import (AUTO_ESTIMATED_CONTACTS, EXACT_COST_LIMIT, exact_choice_estimate, resolve_choice)
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
    assert resolve_choice(s.problem, "auto", s.h, s.N) == "random"


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
    assert resolve_choice(disc_row(AUTO_ESTIMATED_CONTACTS + 1)[0], "auto", h, N) == "random"
    assert resolve_choice(p, "first", h, N) == "first"
    with pytest.raises(ValueError, match="h"):
        sample_post_impact_set(p, 64, -1.0, N)
