"""Tests of the paper's scenarios: registry, parameters, derived initial states and mirror maps."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from helpers import hand_compass_gait, hand_rocking_block
from reach.models.planar import outlines
from scenarios import Scenario

SCENARIOS = scenarios.names()


@pytest.fixture(scope="module")
def built():
    return {name: scenarios.get(name) for name in SCENARIOS}


# ---------------------------------------------------------------------- registry


def test_registry_names_and_lookup():
    assert scenarios.names() == ["rocking-block", "box-wall", "compass-gait", "ramone", "disk-stack"]
    assert scenarios.get("compass_gait").name == "compass-gait"
    assert scenarios.get("Disk-Stack").name == "disk-stack"
    with pytest.raises(ValueError, match="unknown scenario 'pendulum'; valid names are rocking-block, box-wall"):
        scenarios.get("pendulum")


@pytest.mark.parametrize("name, m, h, N, n_samples, mu", [
    ("rocking-block", 2, 0.3, 10, 2**14, 1.0),
    ("box-wall", 2, 2.0, 5, 2**18, 1.0),
    ("compass-gait", 2, 0.25, 5, 2**20, 5.0),
    ("ramone", 2, 1.0, 10, 2**20, 1e5),
    ("disk-stack", 5, 1.0, 10, 2**20, np.sqrt(3.0)),
])
def test_paper_parameters(built, name, m, h, N, n_samples, mu):
    s = built[name]
    assert isinstance(s, Scenario)
    assert (s.m, s.h, s.N, s.n_samples) == (m, h, N, n_samples)
    np.testing.assert_allclose(s.mu, mu)
    np.testing.assert_allclose(s.problem.mu, mu)
    assert s.contact_labels == tuple("ABCDE"[:m]) == s.problem.contact_names
    assert s.description and "\n" not in s.description and s.title and s.notes
    np.testing.assert_array_equal(s.problem.v, s.v)
    np.testing.assert_allclose(s.problem.M, s.model.mass_matrix(s.q))


@pytest.mark.parametrize("name", SCENARIOS)
def test_intended_contacts_touch_and_nothing_penetrates(built, name):
    s = built[name]
    frames = s.contact_frames()
    assert [c.name for c in frames] == list(s.contacts)
    for c in frames:
        assert abs(c.phi) < 1e-9, c.name
    # No candidate penetrates, and no drawn shape (including contact-free links) is inside a wall.
    assert np.all(s.model.signed_distances(s.q) > -1e-9)
    for item in outlines(s.model, s.q):
        for wall in s.model.walls:
            clearance = wall.distance(item.points) - (item.radius if item.kind == "disc" else 0.0)
            if item.kind == "disc":
                clearance = clearance[:1]
            assert np.all(clearance > -1e-9), (item.name, wall.name)
    # The impact is an impact: some contact collides.
    assert np.any(s.problem.normal_velocities(s.v) < -s.problem.colliding_tol)


# ---------------------------------------------------------------------- each scenario


def test_rocking_block_state(built):
    s = built["rocking-block"]
    v0 = np.sqrt(2 * 9.81 * 0.01)
    assert v0 == pytest.approx(0.4429, abs=1e-4)
    np.testing.assert_allclose(s.v, [0.0, -v0, 0.0])
    np.testing.assert_allclose([c.point for c in s.contact_frames()], [[-0.5, 0.0], [0.5, 0.0]])
    hand = hand_rocking_block()
    for attr in ("M", "Jn", "Jt", "v"):
        np.testing.assert_allclose(getattr(s.problem, attr), getattr(hand, attr), atol=1e-15)


def test_box_wall_state(built):
    s = built["box-wall"]
    A, B = s.contact_frames()
    assert A.other == "floor" and B.other == "wall"
    np.testing.assert_allclose(A.normal, [0.0, 1.0])
    np.testing.assert_allclose(B.normal, [-1.0, 0.0])
    np.testing.assert_allclose(s.v, [1.0, 0.0, 0.0])
    assert s.q[2] == pytest.approx(np.deg2rad(80.0))
    # A is the lowest corner (on y = 0), B the rightmost (on x = 0); the box moves toward the wall.
    corners = next(item for item in outlines(s.model, s.q) if item.kind == "box").points[:4]
    assert A.point[1] == pytest.approx(corners[:, 1].min(), abs=1e-15) and abs(A.point[1]) < 1e-12
    assert B.point[0] == pytest.approx(corners[:, 0].max(), abs=1e-15) and abs(B.point[0]) < 1e-12
    np.testing.assert_allclose(s.problem.contact_velocities(s.v), [[0.0, 1.0], [-1.0, 0.0]], atol=1e-15)
    # One side makes 10 degrees with the floor.
    sides = np.diff(corners[[0, 1, 2, 3, 0]], axis=0)
    slopes = np.rad2deg(np.abs(np.arctan2(sides[:, 1], sides[:, 0])))
    assert np.min(np.minimum(slopes, 180 - slopes)) == pytest.approx(10.0)


def test_compass_gait_state(built):
    s = built["compass-gait"]
    omega, th = 0.25, np.deg2rad(78.0)
    np.testing.assert_allclose(s.q, [-np.sin(th), np.cos(th), -th, th], atol=1e-15)
    np.testing.assert_allclose(s.v, [-np.cos(th) * omega, -np.sin(th) * omega, omega, omega], atol=1e-15)
    A, B = s.problem.contact_velocities(s.v)
    assert np.all(np.abs(B) < 1e-12), "trailing foot B must be at rest"
    assert A[0] < -0.1, "leading foot A must strike the floor"
    np.testing.assert_allclose([c.point for c in s.contact_frames()], [[-2 * np.sin(th), 0.0], [0.0, 0.0]],
                               atol=1e-15)
    hand = hand_compass_gait(omega)
    for attr in ("M", "Jn", "Jt", "v"):
        np.testing.assert_allclose(getattr(s.problem, attr), getattr(hand, attr), atol=1e-15)


def test_ramone_derived_initial_state(built):
    s = built["ramone"]
    x, y, theta, alpha_l, beta_l, alpha_t, beta_t = s.q
    np.testing.assert_allclose(np.rad2deg([theta, alpha_l, beta_l, alpha_t]), [16.0, -70.0, -2.0, 70.0])
    assert np.rad2deg(beta_t) == pytest.approx(-92.48, abs=0.01)
    # Closed form (Remy 2017 / published code): leg height from the leading leg, then the
    # trailing shank's angle from the trailing knee height.
    l2, l3, s1, r = 0.2, 0.2385, 0.137675, 0.02815
    leg = l3 * np.cos(theta + alpha_l + beta_l) + l2 * np.cos(theta + alpha_l)
    assert y == pytest.approx(leg + s1 * np.cos(theta) + r, abs=1e-12)
    knee = leg - l2 * np.cos(theta + alpha_t)
    assert beta_t == pytest.approx(-alpha_t - theta + np.arcsin(knee / l3) - np.pi / 2, abs=1e-12)
    np.testing.assert_allclose(s.v[:2], [-0.4114, -0.2105], atol=1e-3)
    np.testing.assert_array_equal(s.v[2:], [1.0, 0, 0, 0, 0])
    A, B = s.problem.contact_velocities(s.v)
    assert np.all(np.abs(B) < 1e-12), "trailing foot B must be at rest"
    assert A[0] < -0.1, "leading foot A must strike the floor"
    feet = s.contact_frames()
    assert feet[0].point[0] < feet[1].point[0], "the leading foot is ahead (toward -x)"


def test_disk_stack_state(built):
    s = built["disk-stack"]
    active = s.model.active_contacts(s.q, tol=1e-9)
    assert len(active) == 5
    assert {c.name for c in active} == {"left|floor", "right|floor", "top|left", "top|right", "right|left"}
    assert s.contacts == ("left|floor", "right|floor", "top|left", "top|right", "left|right")
    cv = s.problem.contact_velocities(s.v)
    assert cv[2, 0] < -0.5 and cv[3, 0] < -0.5, "the top disc strikes both lower discs"
    np.testing.assert_allclose(cv[[0, 1, 4]], 0.0, atol=1e-15)
    np.testing.assert_allclose(s.v, [0, 0, 0, 0, 0, 0, 0, -1.0, 0])
    np.testing.assert_allclose(np.diag(s.problem.M), [1, 1, 0.5] * 3)


# ---------------------------------------------------------------------- mirror maps


@pytest.mark.parametrize("name", ["rocking-block", "disk-stack"])
def test_mirror_map_preserves_energy_and_maps_contact_velocities(built, name):
    s = built[name]
    S, perm = s.mirror, list(s.mirror_contacts)
    M = s.problem.M
    np.testing.assert_allclose(S @ S, np.eye(s.nv), atol=1e-15)
    np.testing.assert_allclose(S.T @ M @ S, M, atol=1e-14)
    np.testing.assert_allclose(S @ s.v, s.v, atol=1e-15)  # the pre-impact state is symmetric
    assert sorted(perm) == list(range(s.m))
    rng = np.random.default_rng(6)
    V = rng.normal(size=(20, s.nv))
    mirrored = s.problem.contact_velocities(s.mirrored(V))  # (20, m, 2)
    original = s.problem.contact_velocities(V)
    # Contact i of V is contact perm[i] of S V: same normal velocity, opposite tangential.
    np.testing.assert_allclose(mirrored[:, perm, 0], original[:, :, 0], atol=1e-13)
    np.testing.assert_allclose(mirrored[:, perm, 1], -original[:, :, 1], atol=1e-13)


def test_scenarios_without_symmetry_say_so(built):
    for name in ("box-wall", "compass-gait", "ramone"):
        assert built[name].mirror is None
        with pytest.raises(ValueError, match="no mirror symmetry"):
            built[name].mirrored(built[name].v)


def test_one_registry_every_name_reach_list_prints_resolves(capsys):
    """`reach list` prints the registry; every name of every kind resolves through the one lookup."""
    import re

    from reach.tools.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    impacts = [line.split()[0] for line in out.split("\n\n")[0].splitlines()]
    assert impacts == scenarios.names()
    listed = {"simulation": re.search(r"reach simulate:\s+(.*), or any", out).group(1).split(", "),
              "trajectory": re.search(r"reach trajectory:\s+(.*)", out).group(1).split(", "),
              "design": re.findall(r"(\S+) \(", re.search(r"reach sweep:\s+(.*)", out).group(1))}
    records = {"impact": scenarios.Scenario, "simulation": scenarios.Simulation, "trajectory": scenarios.Through,
               "design": scenarios.Design}
    for kind, record in records.items():
        for name in listed.get(kind, impacts):
            assert name in scenarios.names(kind)
        for name in scenarios.names(kind):
            assert isinstance(scenarios.lookup(name.upper().replace("-", "_"), kind), record), (kind, name)
    with pytest.raises(ValueError, match="unknown multi-impact example 'nope'; valid names are rimless-wheel"):
        scenarios.lookup("nope", "trajectory")
    with pytest.raises(ValueError, match="unknown kind 'robot'"):
        scenarios.names("robot")
