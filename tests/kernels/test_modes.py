"""reach.kernels.modes: exact choice at planar steps equals full basis enumeration, at a fraction of its cost."""

import numpy as np
import pytest

import scenarios
from helpers import random_problem
from reach import sample_post_impact_set
from reach.analysis.uniqueness import distinct_step_velocities
from reach.kernels.modes import mode_step
from reach.kernels.routh import make_step_work
from reach.step import kernel_data


def distinct_by_modes(p, v, lam, sample=0, step=0):
    work = make_step_work(p.lcp_size, p.m, p.nv)
    count = mode_step(kernel_data(p), np.ascontiguousarray(v, dtype=float), lam * p.mass_scale, 0, sample, step,
                      work, np.empty(p.nv))
    return work.distinct[:count].copy()


def same_sets(p, a, b):
    if len(a) != len(b) or len(a) == 0:
        return False
    cv = lambda V: p.contact_velocities(V).reshape(len(V), -1)  # noqa: E731
    d = np.abs(cv(a)[:, None] - cv(b)[None]).max(axis=2)
    scale = np.abs(p.contact_velocities(p.v)).max()
    return d.min(axis=1).max() <= 1e-6 * scale and d.min(axis=0).max() <= 1e-6 * scale


@pytest.mark.parametrize("m, cases", [(1, 300), (2, 1500), (3, 60)])
def test_every_distinct_velocity_of_random_steps_is_found(m, cases):
    rng = np.random.default_rng(m)
    nonunique = 0
    for t in range(cases):
        p = random_problem(rng, m=m, planar=True)
        natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
        lam = rng.uniform(0, 2, size=m) * (rng.random(m) > 0.1) * natural
        ref = distinct_step_velocities(p, p.v, lam)
        assert same_sets(p, distinct_by_modes(p, p.v, lam, t), ref), t
        nonunique += len(ref) > 1
    if m > 1:
        assert nonunique > 0  # the cases include non-unique steps


@pytest.mark.parametrize("name", ["compass-gait", "ramone"])
def test_non_unique_scenario_steps_match_enumeration_along_trajectories(name):
    s = scenarios.get(name)
    p = s.problem
    rng = np.random.default_rng(7)
    v, checked = p.v.copy(), 0
    for k in range(40):
        if not p.is_colliding(v):
            v = p.v.copy()
        lam = s.h * rng.random(p.m)
        ref = distinct_step_velocities(p, v, lam)
        assert same_sets(p, distinct_by_modes(p, v, lam, k), ref)
        checked += len(ref) > 1
        v = ref[rng.integers(len(ref))]
    assert checked >= 10


@pytest.mark.parametrize("name, contact, fractions", [
    ("compass-gait", "B", ("lift_off", "slide", "stick")),
    ("ramone", "B", ("lift_off", "slide", "stick")),
])
def test_outcome_fractions_agree_with_uniform_choice_among_all_solutions(name, contact, fractions):
    """'exact' and 'enumerate' both pick uniformly among the distinct v' of each step."""
    s = scenarios.get(name)
    common = dict(strategy="uniform", caps="uniform", completeness=False)
    exact = sample_post_impact_set(s.problem, 4096, s.h, s.N, solution_choice="exact", seed=1, **common)
    enum = sample_post_impact_set(s.problem, 4096, s.h, s.N, solution_choice="enumerate", seed=2, **common)
    a, b = exact.summary()["contacts"][contact], enum.summary()["contacts"][contact]
    for key in fractions:
        assert abs(a[key] - b[key]) < 0.03, (key, a[key], b[key])
    assert a["slide"] > 0.25  # the trailing foot slides in about a third of the outcomes


def test_exact_refuses_what_it_cannot_do():
    pytest.importorskip("mujoco")
    from reach.models.mujoco import problem_from_mjcf
    from reach.models.mujoco_model import block_mjcf

    spatial = problem_from_mjcf(*block_mjcf(spatial=True))
    with pytest.raises(ValueError, match="needs a planar problem with at most 3 contacts"):
        sample_post_impact_set(spatial, 16, 0.3, 10, solution_choice="exact")
    s = scenarios.get("disk-stack")
    with pytest.raises(ValueError, match="planar with 5"):
        sample_post_impact_set(s.problem, 16, s.h, s.N, solution_choice="exact")
