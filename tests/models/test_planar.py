"""Tests of reach.models.planar: kinematics, mass matrices, contact Jacobians and bad models."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import reach.models.planar
import reach.models.planar.model
import scenarios
from reach.models.planar import PlanarModel, bounding_box, outlines, wall_segment
from reach.problem.impact import ImpactProblem

SCENARIOS = scenarios.names()
FD_STEP = 1e-6


def random_configurations(scenario, rng, count=4, spread=0.3):
    """Configurations near the scenario's impact state (angles and positions perturbed)."""
    return [scenario.q + spread * rng.normal(size=scenario.q.shape) for _ in range(count)]


def central_difference(f, q, step=FD_STEP):
    """Central-difference Jacobian of f: (nq,) -> (...) as an array (..., nq)."""
    columns = []
    for i in range(q.size):
        e = np.zeros_like(q)
        e[i] = step
        columns.append((np.asarray(f(q + e)) - np.asarray(f(q - e))) / (2 * step))
    return np.stack(columns, axis=-1)


# ---------------------------------------------------------------------- kinematics


def random_tree():
    """A tree exercising every joint type, non-zero origins, a slanted prismatic axis and branching."""
    model = PlanarModel("tree")
    model.add_body("base", joint="floating", origin=(0.3, -0.2))
    model.add_body("arm", joint="revolute", parent="base", origin=(0.4, 0.1))
    model.add_body("slider", joint="prismatic", parent="arm", origin=(0.2, -0.3), axis=(1.0, 2.0))
    model.add_body("tip", joint="revolute", parent="slider", origin=(-0.1, 0.25))
    model.add_body("side", joint="revolute", parent="base", origin=(-0.5, 0.0))
    model.add_body("free", joint="floating", parent="side", origin=(0.1, 0.2))
    for i, body in enumerate(model.bodies):
        model.add_mass(body, 1.0 + i, inertia=0.1 * (i + 1), offset=(0.05 * i, -0.1))
    model.add_box("tip", "tip_box", 0.3, 0.2, offset=(0.1, 0.0), angle=0.4)
    model.add_disc("free", "free_disc", 0.15, offset=(0.05, 0.02))
    model.add_disc("arm", "arm_disc", 0.1, offset=(0.3, 0.0))
    model.add_rod("side", "side_rod", (0.0, 0.0), (0.0, -0.6))
    model.add_wall("floor", normal=(0.0, 1.0), offset=-1.0)
    model.add_wall("slope", normal=(1.0, 1.0), offset=-2.0)
    return model


def test_body_jacobians_match_finite_differences_of_poses_for_every_joint_type():
    model = random_tree()
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.normal(size=model.nq)
        positions, angles, Jp, Jw = model.body_jacobians(q)
        p0, a0 = model.body_poses(q)
        np.testing.assert_allclose(positions, p0, atol=1e-14)
        np.testing.assert_allclose(angles, a0, atol=1e-14)
        np.testing.assert_allclose(Jp, central_difference(lambda qq: model.body_poses(qq)[0], q), atol=1e-8)
        np.testing.assert_allclose(Jw, central_difference(lambda qq: model.body_poses(qq)[1], q), atol=1e-8)


def test_kept_jacobians_are_read_only_and_follow_the_tree():
    model = PlanarModel()
    model.add_body("arm", joint="revolute")
    positions, angles, Jp, Jw = model.body_jacobians([0.3])
    assert model.body_jacobians([0.3])[2] is Jp  # the same q: handed out again
    with pytest.raises(ValueError, match="read-only"):
        Jp[0, 0, 0] = 1.0
    assert model.body_jacobians([0.4])[2] is not Jp
    model.add_body("slider", joint="prismatic", parent="arm", origin=(1.0, 0.0))
    positions, angles, Jp, Jw = model.body_jacobians([0.3, 0.2])
    assert Jp.shape == (2, 2, 2) and np.allclose(positions[1], [np.cos(0.3) * 1.2, np.sin(0.3) * 1.2])


def test_prismatic_joint_slides_along_its_axis_in_the_parent_frame():
    model = PlanarModel()
    model.add_body("arm", joint="revolute")
    model.add_body("slider", joint="prismatic", parent="arm", origin=(1.0, 0.0), axis=(0.0, 2.0))
    positions, angles = model.body_poses([np.pi / 2, 0.5])
    # The arm points along +y; the slider's axis (parent +y, normalized) points along world -x.
    np.testing.assert_allclose(positions[1], [-0.5, 1.0], atol=1e-15)
    np.testing.assert_allclose(angles, [np.pi / 2, np.pi / 2])


def test_coordinate_names_default_and_custom():
    model = PlanarModel()
    model.add_body("a")
    model.add_body("b", joint="revolute", parent="a")
    model.add_body("c", joint="prismatic", parent="b", coordinates=("slide",))
    assert model.coordinate_names == ("a.x", "a.y", "a.theta", "b.angle", "slide")
    assert model.nq == model.nv == 5


# ---------------------------------------------------------------------- mass matrices


def test_block_mass_matrix_is_diag_m_m_inertia_at_any_configuration():
    block = scenarios.get("rocking-block")
    rng = np.random.default_rng(1)
    m, w, h = 1.0, 1.0, 2.0
    for q in random_configurations(block, rng, spread=2.0):
        np.testing.assert_allclose(block.model.mass_matrix(q), np.diag([m, m, m * (w**2 + h**2) / 12]),
                                   atol=1e-15)


def test_compass_gait_mass_matrix_matches_hand_derivation():
    # Masses m at hip + s (sin th_i, -cos th_i): d/dth_i = s (cos th_i, sin th_i), so with
    # q = [x, y, th_l, th_t]:
    #   M = [[2m, 0, m s cos th_l, m s cos th_t],
    #        [0, 2m, m s sin th_l, m s sin th_t],
    #        [m s cos th_l, m s sin th_l, m s^2, 0],
    #        [m s cos th_t, m s sin th_t, 0, m s^2]]
    gait = scenarios.get("compass-gait")
    m, s = 1.0, 0.5
    rng = np.random.default_rng(2)
    for q in [gait.q] + random_configurations(gait, rng, spread=1.0):
        cl, sl, ct, st = np.cos(q[2]), np.sin(q[2]), np.cos(q[3]), np.sin(q[3])
        hand = np.array([[2 * m, 0, m * s * cl, m * s * ct],
                         [0, 2 * m, m * s * sl, m * s * st],
                         [m * s * cl, m * s * sl, m * s**2, 0],
                         [m * s * ct, m * s * st, 0, m * s**2]])
        np.testing.assert_allclose(gait.model.mass_matrix(q), hand, atol=1e-15)


@pytest.mark.parametrize("name", SCENARIOS)
def test_mass_matrix_is_symmetric_positive_definite_at_random_configurations(name):
    scenario = scenarios.get(name)
    rng = np.random.default_rng(3)
    for q in random_configurations(scenario, rng, count=8, spread=1.5):
        M = scenario.model.mass_matrix(q)
        np.testing.assert_array_equal(M, M.T)
        assert np.linalg.eigvalsh(M)[0] > 1e-8 * np.linalg.eigvalsh(M)[-1]


def test_ramone_mass_matrix_is_the_hessian_of_kinetic_energy_from_finite_difference_velocities():
    # Kinetic energy from point-mass velocities obtained by central differences of positions
    # (and body angles) along v, independently of the analytic Jacobians; M is its Hessian,
    # recovered by polarization: M_ij = T(e_i + e_j) - T(e_i) - T(e_j).
    ramone = scenarios.get("ramone")
    model = ramone.model
    rng = np.random.default_rng(4)

    def kinetic_energy(q, v):
        def state(qq):
            positions, angles = model.body_poses(qq)
            points = []
            for pm in model.masses:
                b = model.body_index(pm.body)
                points.append(positions[b] + reach.models.planar.rotation(angles[b]) @ pm.offset)
            return np.array(points), angles
        (p_plus, a_plus), (p_minus, a_minus) = state(q + FD_STEP * v), state(q - FD_STEP * v)
        velocities = (p_plus - p_minus) / (2 * FD_STEP)
        rates = (a_plus - a_minus) / (2 * FD_STEP)
        total = 0.0
        for pm, vel in zip(model.masses, velocities):
            rate = rates[model.body_index(pm.body)]
            total += 0.5 * pm.mass * vel @ vel + 0.5 * pm.inertia * rate**2
        return total

    for q in [ramone.q] + random_configurations(ramone, rng, count=3):
        eye = np.eye(model.nv)
        T = [kinetic_energy(q, e) for e in eye]
        hessian = np.array([[kinetic_energy(q, eye[i] + eye[j]) - T[i] - T[j] for j in range(model.nv)]
                            for i in range(model.nv)])
        np.testing.assert_allclose(model.mass_matrix(q), hessian, atol=1e-8)
        v = rng.normal(size=model.nv)
        assert model.kinetic_energy(q, v) == pytest.approx(kinetic_energy(q, v), rel=1e-8)


# ---------------------------------------------------------------------- contact Jacobians


@pytest.mark.parametrize("name", SCENARIOS)
def test_contact_jacobians_match_finite_differences_at_random_configurations(name):
    """Jn against FD of phi and of the contact's material points; Jt against FD of material points.

    For each contact the material contact points are held fixed in their body frames
    (``body_point``, ``other_point``) and moved with q; central differences of their world
    positions give the material-point velocities (of a rolling disc's lowest point, not the
    derivative of the geometric contact point, which slides along the floor as the disc
    rolls).  Their relative velocity projected on the contact's t (and n) must equal Jt
    (and Jn).  Jn must also equal the gradient of phi.  Every candidate is checked, active or
    not, including RAMone's foot discs and the disk stack's disc-disc pairs.
    """
    scenario = scenarios.get(name)
    model = scenario.model
    names = model.contact_names()
    rng = np.random.default_rng(5)
    kinds = set()
    for q in [scenario.q] + random_configurations(scenario, rng):
        phi_gradient = central_difference(model.signed_distances, q)
        for i, c in enumerate(model.contacts(q)):
            kinds.add(c.kind)

            def material_gap(qq, c=c):
                p = model.point_position(qq, c.body, c.body_point)
                if c.other_point is not None:
                    p = p - model.point_position(qq, c.other, c.other_point)
                return p

            velocity_map = central_difference(material_gap, q)  # (2, nv)
            np.testing.assert_allclose(c.Jn, phi_gradient[i], atol=1e-8, err_msg=f"{names[i]}: Jn vs d phi/dq")
            np.testing.assert_allclose(c.Jn, c.normal @ velocity_map, atol=1e-8, err_msg=f"{names[i]}: Jn")
            np.testing.assert_allclose(c.Jt, c.tangent @ velocity_map, atol=1e-8, err_msg=f"{names[i]}: Jt")
            if c.kind == "vertex|wall":  # a vertex is its own material point: FD of the contact point
                point_map = central_difference(lambda qq: model.contacts(qq, [c.name])[0].point, q)
                np.testing.assert_allclose(np.vstack([c.normal, c.tangent]) @ point_map,
                                           np.vstack([c.Jn, c.Jt]), atol=1e-8)
    expected = {"rocking-block": {"vertex|wall"}, "box-wall": {"vertex|wall"}, "compass-gait": {"vertex|wall"},
                "ramone": {"disc|wall", "disc|disc"}, "disk-stack": {"disc|wall", "disc|disc"}}[name]
    assert kinds == expected


def test_contact_frames_normal_tangent_convention():
    stack = scenarios.get("disk-stack")
    for c in stack.model.contacts(stack.q):
        assert np.linalg.norm(c.normal) == pytest.approx(1.0)
        np.testing.assert_array_equal(c.tangent, [c.normal[1], -c.normal[0]])
    top_left = stack.model.contacts(stack.q, ["top|left"])[0]
    np.testing.assert_allclose(top_left.normal, [0.5, np.sqrt(3) / 2])  # from left into top
    left_top = stack.model.contacts(stack.q, ["left|top"])[0]  # either order; normal into the first
    np.testing.assert_allclose(left_top.normal, -top_left.normal)
    # n and the relative velocity both flip, so the normal and tangential velocities do not.
    np.testing.assert_allclose(left_top.Jn, top_left.Jn)
    np.testing.assert_allclose(left_top.Jt, top_left.Jt)


def test_rolling_disc_contact_point_has_zero_velocity_when_rolling():
    model = PlanarModel("wheel")
    model.add_body("wheel")
    model.add_disc("wheel", "wheel", 0.5, mass=2.0)
    model.add_wall("floor", normal=(0.0, 1.0))
    (contact,) = model.contacts([0.0, 0.5, 0.3])
    rolling = np.array([0.5 * 2.0, 0.0, -2.0])  # x' = r * (-theta')
    assert contact.Jn @ rolling == pytest.approx(0.0)
    assert contact.Jt @ rolling == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(contact.point, [0.0, 0.0], atol=1e-15)


# ---------------------------------------------------------------------- contacts and problems


def test_active_contacts_and_impact_problem_defaults():
    model = PlanarModel("rod")
    model.add_body("rod")
    model.add_rod("rod", "rod", (-0.5, 0.0), (0.5, 0.0), mass=1.0)
    model.add_wall("floor", normal=(0.0, 1.0))
    q = [0.0, 0.0, 0.0]
    assert [c.name for c in model.active_contacts(q)] == ["rod.start|floor", "rod.end|floor"]
    assert model.active_contacts([0.0, 0.1, 0.0]) == []
    problem = model.impact_problem(q, [0.0, -1.0, 0.0], 0.5)
    assert isinstance(problem, ImpactProblem)
    assert problem.contact_names == ("rod.start|floor", "rod.end|floor")
    np.testing.assert_allclose(problem.Jn, [[0.0, 1.0, -0.5], [0.0, 1.0, 0.5]])
    np.testing.assert_allclose(problem.Jt, [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(problem.M, np.diag([1.0, 1.0, 1.0 / 12]))
    labelled = model.impact_problem(q, [0.0, -1.0, 0.0], 0.5, contacts=["rod.end|floor"], names=["B"])
    assert labelled.contact_names == ("B",)


def test_impact_problem_rejects_inactive_named_contacts_and_empty_states():
    model = PlanarModel("rod")
    model.add_body("rod")
    model.add_rod("rod", "rod", (-0.5, 0.0), (0.5, 0.0), mass=1.0)
    model.add_wall("floor", normal=(0.0, 1.0))
    with pytest.raises(ValueError, match="not active"):
        model.impact_problem([0.0, 0.0, 0.1], [0.0, -1.0, 0.0], 0.5, contacts=["rod.end|floor"])
    problem = model.impact_problem([0.0, 0.0, 0.1], [0.0, -1.0, 0.0], 0.5, contacts=["rod.end|floor"],
                                   check_active=False)
    assert problem.m == 1
    with pytest.raises(ValueError, match="no active contact"):
        model.impact_problem([0.0, 1.0, 0.0], [0.0, -1.0, 0.0], 0.5)
    with pytest.raises(ValueError, match="has no contact 'rod.middle|floor'"):
        model.contacts([0.0, 0.0, 0.0], ["rod.middle|floor"])
    with pytest.raises(ValueError, match=r"`q` must have shape \(3,\)"):
        model.mass_matrix([0.0, 0.0])


def test_outlines_and_wall_segment_geometry():
    block = scenarios.get("box-wall")
    items = outlines(block.model, block.q)
    box = next(item for item in items if item.kind == "box")
    assert box.points.shape == (5, 2)
    np.testing.assert_array_equal(box.points[0], box.points[-1])
    xmin, xmax, ymin, ymax = bounding_box(items)
    assert xmax == pytest.approx(0.0, abs=1e-12) and ymin == pytest.approx(0.0, abs=1e-12)
    floor, wall = block.model.walls
    np.testing.assert_allclose(wall_segment(floor, (-2, 1, -1, 3)), [[-2, 0], [1, 0]])
    np.testing.assert_allclose(np.sort(wall_segment(wall, (-2, 1, -1, 3))[:, 1]), [-1, 3])
    assert wall_segment(floor, (-2, 1, 1, 3)) is None
    disc = next(item for item in outlines(scenarios.get("disk-stack").model, scenarios.get("disk-stack").q)
                if item.kind == "disc")
    assert disc.radius == 1.0


def test_docstring_examples_run():
    for module in (reach.models.planar, reach.models.planar.model):
        failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert attempted > 0 and failed == 0


# ---------------------------------------------------------------------- bad models


def test_bad_models_raise_clear_errors():
    model = PlanarModel("bad")
    model.add_body("a")
    with pytest.raises(ValueError, match="body 'b': joint has unknown parent 'nowhere'"):
        model.add_body("b", joint="revolute", parent="nowhere")
    with pytest.raises(ValueError, match="unknown joint type 'ball'"):
        model.add_body("b", joint="ball", parent="a")
    with pytest.raises(ValueError, match="body name 'a' is already taken"):
        model.add_body("a")
    with pytest.raises(ValueError, match="mass 'heavy': `mass` must be a finite number >= 0; got -1.0"):
        model.add_mass("a", -1.0, name="heavy")
    with pytest.raises(ValueError, match="`inertia` must be a finite number >= 0"):
        model.add_mass("a", 1.0, inertia=-0.1)
    with pytest.raises(ValueError, match="box 'flat': `height` must be positive; got 0.0"):
        model.add_box("a", "flat", 1.0, 0.0)
    with pytest.raises(ValueError, match="box 'thin': `width` must be positive"):
        model.add_box("a", "thin", -1.0, 1.0)
    with pytest.raises(ValueError, match="disc 'dot': `radius` must be positive; got 0.0"):
        model.add_disc("a", "dot", 0.0)
    with pytest.raises(ValueError, match="rod 'stub' has zero length"):
        model.add_rod("a", "stub", (0.0, 0.0), (0.0, 0.0))
    with pytest.raises(ValueError, match="disc 'ghost': unknown body 'nobody'"):
        model.add_disc("nobody", "ghost", 1.0)
    with pytest.raises(ValueError, match="wall 'floor': `normal` must be non-zero"):
        model.add_wall("floor", normal=(0.0, 0.0))
    with pytest.raises(ValueError, match="prismatic joint `axis` must be non-zero"):
        model.add_body("s", joint="prismatic", parent="a", axis=(0.0, 0.0))
    with pytest.raises(ValueError, match="`origin` must be a pair of numbers"):
        model.add_body("s", joint="revolute", parent="a", origin=(1.0, 2.0, 3.0))


def test_massless_degrees_of_freedom_are_reported_by_name():
    model = PlanarModel("arm")
    model.add_body("base")
    model.add_box("base", "base", 1.0, 1.0, mass=1.0)
    model.add_body("link", joint="revolute", parent="base", coordinates=("elbow",))
    model.add_rod("link", "link", (0.0, 0.0), (1.0, 0.0))  # massless: the elbow moves nothing
    with pytest.raises(ValueError, match=r"singular mass matrix: the coordinates \['elbow'\] can move"):
        model.mass_matrix([0.0, 0.0, 0.0, 0.0])
    assert model.mass_matrix([0.0, 0.0, 0.0, 0.0], check=False)[3, 3] == 0.0
    model.add_mass("link", 0.5, offset=(1.0, 0.0))
    assert np.linalg.eigvalsh(model.mass_matrix([0.0, 0.0, 0.0, 0.0]))[0] > 0


def test_user_example_runs(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[2] / "examples" / "user_planar_system.py"
    import os

    env = dict(os.environ, PYTHONPATH=str(script.parents[1]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env=env)
    assert "ImpactProblem(m=2, nv=3, planar, contacts=['A', 'B'])" in out.stdout


def test_the_frames_fast_paths_give_the_same_bits():
    """perp of one vector and outer (the flows' hot path, without np.stack's and np.outer's overhead) give the
    general forms' values exactly, so a flow through impacts is the same, bit for bit."""
    from reach.models.planar.frames import outer, perp

    rng = np.random.default_rng(3)
    for _ in range(50):
        r, a, b = rng.normal(size=2) * 10.0 ** rng.uniform(-8, 8), rng.normal(size=2), rng.normal(size=5)
        assert perp(r).tobytes() == perp(r[None, :])[0].tobytes() == np.array([-r[1], r[0]]).tobytes()
        assert outer(a, b).tobytes() == np.outer(a, b).tobytes()
    assert perp(np.array([0.0, -0.0])).tobytes() == np.array([0.0, 0.0]).tobytes()  # -(-0.0), 0.0
