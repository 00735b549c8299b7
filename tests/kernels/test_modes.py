"""reach.kernels.modes: exact choice at planar steps equals full basis enumeration, at a fraction of its cost."""

import numpy as np
import pytest

import scenarios
from helpers import random_problem
from reach import sample_post_impact_set
from reach.analysis.uniqueness import distinct_step_velocities
from reach.kernels.jit import kernel_array
from reach.kernels.modes import certified_unique
from reach.kernels.routh_data import make_step_work
from reach.sampling.choice import resolve_choice
from reach.problem.step import kernel_data, mode_velocities, routh_step


def distinct_by_modes(p, v, lam, sample=0, step=0):
    return mode_velocities(p, v, lam, sample=sample, step=step)[0]


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
    rng = np.random.default_rng(3)
    seven = random_problem(rng, m=7, nv=9, planar=True)
    with pytest.raises(ValueError, match="needs a planar problem with at most 6 contacts"):
        sample_post_impact_set(seven, 16, 0.3, 10, solution_choice="exact")
    spatial = random_problem(rng, m=2, planar=False)
    with pytest.raises(ValueError, match="spatial with 2"):
        sample_post_impact_set(spatial, 16, 0.3, 10, solution_choice="exact")


def test_auto_choice_is_exact_where_it_is_cheap_and_recorded():
    rng = np.random.default_rng(4)
    assert resolve_choice(scenarios.get("compass-gait").problem, "auto") == "exact"
    assert resolve_choice(scenarios.get("disk-stack").problem, "auto") == "random"
    assert resolve_choice(random_problem(rng, m=2, planar=False), "auto") == "random"
    assert resolve_choice(scenarios.get("compass-gait").problem, "first") == "first"
    s = scenarios.get("ramone")
    assert sample_post_impact_set(s.problem, 64, s.h, s.N, completeness=False).settings.solution_choice == "exact"


# --- the uniqueness certificate ------------------------------------------------------------------------------

def certificate_says_unique(p, data, v, lam):
    work = make_step_work(p.lcp_size, p.m, p.nv)
    return certified_unique(data, kernel_array(v), kernel_array(lam * p.mass_scale), work)


@pytest.mark.parametrize("m, cases", [(1, 300), (2, 2000), (3, 400), (4, 60)])
def test_certificate_never_calls_a_non_unique_step_unique(m, cases):
    """Degree theory: a step with no solution in a negative piece has one solution; checked by enumeration.

    Random problems include frictionless and mu = 1e5 contacts, zero caps,
    equal caps and (without a certificate) redundant contacts (2m > nv).
    """
    rng = np.random.default_rng(100 + m)
    certified = unique = nonunique = problems = 0
    for t in range(cases):
        p = random_problem(rng, m=m, planar=True)
        data = kernel_data(p, certificate=True)
        natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
        lam = rng.uniform(0, 2, size=m) * (rng.random(m) > 0.1) * natural
        if t % 4 == 3:
            lam[rng.integers(m)] = natural * rng.integers(0, 2)  # snapped caps: exactly 0 or equal ones
        if not data.certified:
            assert 2 * m > p.nv or np.any(p.mu == 0)  # singular pieces need redundant or frictionless contacts
            continue
        problems += 1
        ref = distinct_by_modes(p, p.v, lam, t)
        says = certificate_says_unique(p, data, p.v, lam)
        if len(ref) > 1:
            nonunique += 1
            assert not says, (t, len(ref))
        else:
            unique += 1
            certified += says
            if says:  # and the certified step is Lemke's, which is the only solution
                v_next = routh_step(p, p.v, lam)[0]
                assert same_sets(p, v_next[None], ref), t
    assert problems >= cases // 4
    assert certified >= 0.9 * unique  # the certificate spares the enumeration on almost every unique step
    if m > 1:
        assert nonunique > 0


@pytest.mark.parametrize("name, nonunique_at_least", [("compass-gait", 20), ("ramone", 20), ("rocking-block", 0),
                                                     ("box-wall", 0), ("disk-stack", 20)])
def test_certificate_along_scenario_trajectories(name, nonunique_at_least):
    """Certified steps are unique by full enumeration, and Lemke's v' is that solution; every non-unique step is flagged.

    The rocking block, the box against the wall and the disk stack have
    redundant contacts (singular pieces): a step is certified only where no
    singular piece holds a solution either.
    """
    s = scenarios.get(name)
    p = s.problem
    data = kernel_data(p, certificate=True)
    assert data.certified
    scale = np.abs(p.contact_velocities(p.v)).max()
    rng = np.random.default_rng(11)
    v, nonunique, certified = p.v.copy(), 0, 0
    for k in range(400):
        if not p.is_colliding(v):
            v = p.v.copy()
        lam = s.h * rng.random(p.m) * (rng.random(p.m) > 0.1)
        ref = distinct_by_modes(p, v, lam, k)
        says = certificate_says_unique(p, data, v, lam)
        assert not (says and len(ref) > 1), k
        if says:
            v_next = routh_step(p, v, lam)[0]
            assert np.abs(p.contact_velocities(v_next) - p.contact_velocities(ref[0])).max() <= 1e-6 * scale, k
        nonunique += len(ref) > 1
        certified += says
        v = ref[rng.integers(len(ref))]
    assert nonunique >= nonunique_at_least and certified >= 40


def test_singular_pieces_are_tested_not_trusted():
    """Disk-stack steps with several solutions that only a singular piece reveals are not certified.

    With the singular pieces removed from the certificate, some non-unique
    steps would be certified: the degree argument alone does not see
    solutions there.
    """
    s = scenarios.get("disk-stack")
    p = s.problem
    data = kernel_data(p, certificate=True)
    singular = ~np.isnan(data.piece_null[:, 0, 0])
    assert singular.any() and (~singular).any()
    blind = data._replace(piece_modes=data.piece_modes[~singular], piece_inv=data.piece_inv[~singular],
                          piece_null=data.piece_null[~singular])
    rng = np.random.default_rng(11)
    v, caught = p.v.copy(), 0
    for k in range(400):
        if not p.is_colliding(v):
            v = p.v.copy()
        lam = s.h * rng.random(p.m) * (rng.random(p.m) > 0.1)
        ref = distinct_by_modes(p, v, lam, k)
        caught += len(ref) > 1 and certificate_says_unique(p, blind, v, lam) and \
            not certificate_says_unique(p, data, v, lam)
        v = ref[rng.integers(len(ref))]
    assert caught > 0
