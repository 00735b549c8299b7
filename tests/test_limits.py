"""Limits the set must respect (issue 6): frictionless collapse, Newton's cradle, baselines in the set."""

import numpy as np
import pytest

import scenarios
from reach import ImpactProblem, sample_post_impact_set
from reach.laws import sequential, simultaneous


def frictionless_pair(rng, sign):
    """Two frictionless contacts whose normals have M^-1 inner product of the given sign."""
    while True:
        A = rng.normal(size=(4, 4))
        M = A @ A.T + np.eye(4)
        Jn = rng.normal(size=(2, 4))
        G = Jn @ np.linalg.solve(M, Jn.T)
        if np.sign(G[0, 1]) == sign and abs(G[0, 1]) > 0.1 * np.sqrt(G[0, 0] * G[1, 1]):
            break
    v = -np.linalg.solve(M, Jn.T) @ np.linalg.solve(G, np.ones(2))  # Jn v = (-1, -1)
    v += rng.normal(size=4) * 0.01
    problem = ImpactProblem(M, Jn, rng.normal(size=(2, 4)), 0.0, v)
    assert np.all(problem.normal_velocities(v) < 0)
    plastic = v - np.linalg.solve(M, Jn.T) @ np.linalg.solve(G, Jn @ v)
    return problem, plastic


@pytest.mark.parametrize("seed", range(3))
def test_frictionless_obtuse_normals_collapse_to_the_plastic_projection(seed):
    p, plastic = frictionless_pair(np.random.default_rng(seed), -1)
    # caps of the order of the plastic impulses, enough steps for strongly coupled contacts
    impulses = np.linalg.solve(p.delassus[:2, :2], -p.normal_velocities(p.v))
    r = sample_post_impact_set(p, 2048, h=2 * impulses.max(), max_steps=200, sequence="uniform")
    assert len(r) == 2048
    scale = np.max(np.abs(p.v))
    np.testing.assert_allclose(r.velocities, np.tile(plastic, (2048, 1)), atol=1e-9 * scale)
    np.testing.assert_allclose(p.normal_velocities(plastic), 0.0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_frictionless_acute_normals_give_a_set_with_width(seed):
    p, plastic = frictionless_pair(np.random.default_rng(seed + 10), +1)
    r = sample_post_impact_set(p, 2048, h=0.5, max_steps=40, sequence="uniform")
    cv = r.contact_velocities()[:, :, 0]
    scale = np.max(np.abs(p.contact_velocities(p.v)))
    spread = np.max(np.linalg.norm(cv - cv.mean(axis=0), axis=1))
    assert spread > 0.05 * scale
    # and every outcome dissipates
    assert np.all(p.kinetic_energy(r.velocities) <= p.kinetic_energy(p.v) * (1 + 1e-12))


def test_newtons_cradle_is_unique_all_at_a_third():
    v0 = 1.0
    # three equal balls on a line; contacts 1-2 and 2-3; ball 1 moving at v0
    p = ImpactProblem(np.eye(3), [[-1, 1, 0], [0, -1, 1]], np.zeros((2, 3)), 0.0, [v0, 0, 0])
    for h in (1.0, 0.3):
        r = sample_post_impact_set(p, 4096, h=h, max_steps=20)
        assert len(r) == 4096
        np.testing.assert_allclose(r.velocities, v0 / 3, atol=1e-12)
    np.testing.assert_allclose(simultaneous(p), [[v0 / 3] * 3], atol=1e-12)


@pytest.mark.parametrize("name, samples", [("rocking-block", 2**16), ("box-wall", 2**15), ("compass-gait", 2**16)])
def test_simultaneous_and_sequential_outcomes_lie_in_the_set(name, samples):
    s = scenarios.get(name)
    p = s.problem
    r = sample_post_impact_set(p, samples, s.h, s.N)
    scale = np.max(np.abs(p.contact_velocities(p.v)))
    baseline = list(simultaneous(p)) + [sequential(p, first).velocity for first in range(p.m)]
    distances = r.distance_to(np.array(baseline))
    print(f"{name}: largest distance of a baseline outcome to the set = {distances.max():.2e} m/s "
          f"({distances.max() / scale:.2%} of the pre-impact contact speed)")
    assert distances.max() <= 0.02 * scale
