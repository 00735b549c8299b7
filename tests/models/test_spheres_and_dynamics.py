"""The spatial balls model and the planar model's dynamics: Jacobians and forces against finite differences."""

import numpy as np
import pytest

import scenarios
from reach.models.spheres import SphereSystem, quaternion_multiply, rotation_quaternion


def _balls():
    system = SphereSystem(3, radius=[0.1, 0.15, 0.12], mass=[1.0, 2.0, 1.5], mu=0.4)
    q, v = system.state([[0.0, 0.0, 0.1], [0.2, 0.1, 0.3], [0.5, -0.2, 0.12]])
    rng = np.random.default_rng(0)
    return system, q, rng.normal(size=system.nv)


def test_sphere_normal_rows_are_the_rate_of_the_signed_distance():
    system, q, v = _balls()
    eps = 1e-6
    dphi = (system.contacts(system.integrate(q, v, eps)).phi - system.contacts(system.integrate(q, v, -eps)).phi)
    np.testing.assert_allclose(system.contacts(q).Jn @ v, dphi / (2 * eps), rtol=1e-6, atol=1e-9)


def test_sphere_rows_are_contact_point_velocities():
    system, q, v = _balls()
    contacts = system.contacts(q)
    points, normals, tangents = system.frames(q)
    u = v.reshape(3, 6)
    c = system.centers(q)
    k = system.contact_names.index("ball2|ball1")
    # Velocity of ball 2's nearest material point minus ball 1's (they are one point when touching).
    n = normals[k]
    assert np.allclose(points[k], c[0] + 0.1 * n)
    a, b = -0.15 * n, 0.1 * n
    rel = (u[1, :3] + np.cross(u[1, 3:], a)) - (u[0, :3] + np.cross(u[0, 3:], b))
    assert contacts.Jn[k] @ v == pytest.approx(normals[k] @ rel)
    np.testing.assert_allclose(contacts.Jt[k] @ v, tangents[k] @ rel, atol=1e-12)
    frame = np.vstack([normals[k], tangents[k]])
    np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-12)


def test_rotation_integration_and_displacement_are_inverse():
    system, q, v = _balls()
    q1 = system.integrate(q, v, 0.01)
    np.testing.assert_allclose(system.displacement(q, q1), 0.01 * v, atol=1e-12)
    quats = q1[9:].reshape(3, 4)
    np.testing.assert_allclose(np.linalg.norm(quats, axis=1), 1.0)
    a, b = rotation_quaternion(np.array([0.1, 0.2, 0.3])), rotation_quaternion(np.array([-0.1, -0.2, -0.3]))
    np.testing.assert_allclose(quaternion_multiply(a, b), [1.0, 0.0, 0.0, 0.0], atol=1e-15)


def test_sphere_input_is_checked():
    with pytest.raises(ValueError, match="radius"):
        SphereSystem(2, radius=[0.1, -1.0], mass=1.0)
    with pytest.raises(ValueError, match="n_balls"):
        SphereSystem(0, radius=0.1, mass=1.0)


@pytest.mark.parametrize("name", ["compass-gait", "ramone"])
def test_planar_gravity_is_minus_the_potential_gradient(name):
    system = scenarios.lookup(name, "simulation").system
    q = np.asarray(scenarios.get(name).q) + 0.05
    grad = np.array([(system.potential_energy(q + e) - system.potential_energy(q - e)) / 2e-6
                     for e in 1e-6 * np.eye(system.nq)])
    np.testing.assert_allclose(system.gravity_force(q), -grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["compass-gait", "ramone"])
def test_velocity_forces_do_no_work(name):
    # The power of the Coriolis and centrifugal forces is -v^T Mdot v / 2, so that T is conserved.
    system = scenarios.lookup(name, "simulation").system
    rng = np.random.default_rng(1)
    q = np.asarray(scenarios.get(name).q) + 0.05 * rng.normal(size=system.nq)
    v = rng.normal(size=system.nv)
    eps = 1e-5
    Mdot = (system.mass_matrix(q + eps * v) - system.mass_matrix(q - eps * v)) / (2 * eps)
    assert v @ system.velocity_force(q, v) == pytest.approx(-0.5 * v @ Mdot @ v, rel=1e-5, abs=1e-9)
    assert np.any(np.abs(system.velocity_force(q, v)) > 1e-3)


def _every_joint():
    """A floating trunk, a revolute leg with masses off its axis, a prismatic foot on it and a revolute tail."""
    from reach.models.planar import PlanarModel
    from reach.models.planar.dynamics import PlanarDynamics
    model = PlanarModel("every joint")
    model.add_body("trunk")
    model.add_mass("trunk", 3.0, inertia=0.2, offset=(0.1, -0.05))
    model.add_body("leg", joint="revolute", parent="trunk", origin=(0.2, -0.1))
    model.add_mass("leg", 1.0, inertia=0.05, offset=(0.05, -0.4))
    model.add_body("foot", joint="prismatic", parent="leg", origin=(0.0, -0.5), axis=(0.6, -0.8))
    model.add_mass("foot", 0.5, offset=(0.03, 0.02))
    model.add_point("foot", "toe")
    model.add_body("tail", joint="revolute", parent="world", origin=(1.0, 0.5))
    model.add_mass("tail", 0.7, offset=(0.3, 0.0))
    model.add_wall("floor", (0.0, 1.0))
    return PlanarDynamics(model, 0.5)


@pytest.mark.parametrize("name", ["compass-gait", "ramone", "every joint"])
def test_velocity_forces_are_the_lagrangian_terms(name):
    # -Mdot v + grad_q(v^T M v) / 2, by central differences of M (exact to about 1e-9 here), against the
    # exact terms of every joint kind: floating, revolute (masses off the axis) and prismatic
    system = _every_joint() if name == "every joint" else scenarios.lookup(name, "simulation").system
    rng = np.random.default_rng(2)
    for _ in range(4):
        q, v = rng.normal(size=system.nq), rng.normal(size=system.nv)
        eps = 1e-6
        Mdot_v = (system.mass_matrix(q + eps * v) - system.mass_matrix(q - eps * v)) @ v / (2 * eps)
        grad = [v @ (system.mass_matrix(q + e) - system.mass_matrix(q - e)) @ v / (2 * eps)
                for e in eps * np.eye(system.nq)]
        expected = -Mdot_v + 0.5 * np.array(grad)
        assert np.max(np.abs(system.velocity_force(q, v) - expected)) <= 1e-7 * np.max(np.abs(expected))
        np.testing.assert_array_equal(system.velocity_force(q, np.zeros(system.nv)), 0.0)


@pytest.mark.parametrize("name", ["compass-gait", "ramone", "disk-stack", "every joint"])
def test_contact_rates_are_the_rows_rates(name):
    # d/dt (Jn v) and d/dt (Jt v) at dv/dt = 0, against central differences of the rows along v: walls
    # (vertices and discs) and disc pairs, whose normal turns
    from reach.models.planar.dynamics import PlanarDynamics
    if name == "every joint":
        system = _every_joint()
    elif name == "disk-stack":  # each disc pair named the other way round too (its normal flipped)
        names = list(scenarios.get(name).model.contact_names())
        system = PlanarDynamics(scenarios.get(name).model, 0.5,
                                contacts=names + ["|".join(n.split("|")[::-1]) for n in names if "floor" not in n])
    else:
        system = scenarios.lookup(name, "simulation").system
    rng = np.random.default_rng(3)
    q0 = np.asarray(scenarios.get(name).q, dtype=float) if name != "every joint" else np.zeros(system.nq)
    for _ in range(4):
        q, v = q0 + 0.1 * rng.normal(size=system.nq), rng.normal(size=system.nv)
        eps = 1e-6
        plus, minus = system.contacts(q + eps * v), system.contacts(q - eps * v)
        normal, tangent = system.contact_rates(q, v)
        for exact, ahead, behind in ((normal, plus.Jn, minus.Jn), (tangent, plus.Jt[:, 0], minus.Jt[:, 0])):
            expected = (ahead - behind) @ v / (2 * eps)
            np.testing.assert_allclose(exact, expected, rtol=1e-6, atol=1e-7 * np.max(np.abs(expected)))
        assert np.any(np.abs(normal) > 1e-3)


def test_the_kept_state_serves_only_its_own_state():
    """The forces and the contact rates share the last state's kinematics: a new state (q or v) gets its own."""
    from reach.models.planar.dynamics import PlanarDynamics
    model = scenarios.get("ramone").model
    kept = PlanarDynamics(model, 0.5)
    rng = np.random.default_rng(4)
    q0 = np.asarray(scenarios.get("ramone").q, dtype=float)
    q, v = q0 + 0.1 * rng.normal(size=kept.nq), rng.normal(size=kept.nv)
    for a, b in ((q, v), (q, 2.0 * v), (q + 0.01, 2.0 * v), (q + 0.01, 2.0 * v)):
        forces, rates = kept.velocity_force(a, b), kept.contact_rates(a, b)
        fresh = PlanarDynamics(model, 0.5)
        np.testing.assert_array_equal(forces, fresh.velocity_force(a, b))
        fresh = PlanarDynamics(model, 0.5)  # the rates first, then the forces
        got = fresh.contact_rates(a, b)
        np.testing.assert_array_equal(rates[0], got[0])
        np.testing.assert_array_equal(rates[1], got[1])
    with pytest.raises(ValueError, match="read-only"):
        kept._origin_bias(a, b)[-1][0, 0] = 1.0


def test_planar_dynamics_input_is_checked():
    model = scenarios.get("rocking-block").model
    from reach.models.planar.dynamics import PlanarDynamics
    with pytest.raises(ValueError, match="unknown"):
        PlanarDynamics(model, {"nope|floor": 0.5})
    with pytest.raises(ValueError, match="unknown contacts"):
        PlanarDynamics(model, 0.5, contacts=["nope"])
    with pytest.raises(TypeError, match="callable"):
        PlanarDynamics(model, 0.5, force=3.0)
    pushed = PlanarDynamics(model, 0.5, force=lambda t, q, v: np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(pushed.forces(0.0, np.zeros(3), np.zeros(3)) - pushed.gravity_force(np.zeros(3)),
                               [1.0, 0.0, 0.0])


def test_a_pushed_ball_gains_exactly_the_work_of_the_push():
    from reach.laws.trajectory import simulate
    push = np.zeros(6)
    push[0] = 2.0
    system = SphereSystem(1, radius=0.1, mass=1.0, mu=0.5, force=lambda t, q, v: push)
    q, v = system.state([[0.0, 0.0, 0.1]])
    trajectory = simulate(system, q, v, 0.01, 0.5)
    assert np.all(trajectory.work > 0)
    # Rolling from rest under a horizontal push at the centre: all the work becomes energy, less O(h).
    excess = trajectory.energy_excess()
    assert excess.max() <= 1e-12 and -excess.sum() <= 0.05 * trajectory.work.sum()
    # Rolling without slipping: the contact point does not slide (mu = 0.5 holds a 2 N push on 1 kg).
    u = trajectory.v[-1]
    assert u[0] > 0 and abs(u[0] - 0.1 * u[4]) <= 1e-9


def test_cross3_is_numpys_cross_bit_for_bit():
    from reach.models.spatial import cross3

    rng = np.random.default_rng(3)
    vectors = list(rng.normal(size=(200, 3)) * 10.0 ** rng.integers(-8, 8, size=(200, 1)))
    vectors += [np.zeros(3), -np.zeros(3), np.array([1.0, -0.0, np.inf]), np.array([np.nan, 2.0, 0.0]), np.eye(3)[1]]
    for a in vectors:
        for b in vectors[::7]:
            with np.errstate(invalid="ignore"):
                expected, got = np.cross(a, b), cross3(a, b)
            assert got.dtype == np.float64 and got.shape == (3,)
            assert np.array_equal(got.view(np.int64), expected.view(np.int64))  # the same bits, signs of zeros too
