"""reach.laws: the baselines against closed forms and the literature."""

import numpy as np
import pytest

from helpers import hand_compass_gait, hand_rocking_block
from reach import ImpactProblem
from reach.laws import anitescu_potra_lcp, routh_single_contact, sequential, simultaneous
from reach.problem.lcp import lcp_residual


def test_routh_single_contact_point_mass_closed_form():
    """A point mass hitting the floor obliquely: slides and stops sliding (mu = 0.5) or keeps sliding."""
    for mu, vx in ((0.5, 0.3), (0.5, 1.0), (0.0, 1.0)):
        p = ImpactProblem(np.eye(2), [[0.0, 1.0]], [[1.0, 0.0]], mu, [vx, -1.0])
        v_plus, path = routh_single_contact(p)
        # the normal impulse is 1 (the normal velocity stops); friction removes at most mu of the slip
        np.testing.assert_allclose(v_plus, [max(vx - mu, 0.0), 0.0], atol=1e-12)
        assert path[0].tolist() == [vx, -1.0]


def test_simultaneous_compass_gait_has_three_outcomes():
    """Remy 2017: B lifts off, B slides, B sticks."""
    p = hand_compass_gait()
    V = simultaneous(p)
    assert len(V) == 3
    A, _ = anitescu_potra_lcp(p)
    for v in V:
        assert not p.is_colliding(v)
        assert p.kinetic_energy(v) <= p.kinetic_energy(p.v)
    b_normal = np.sort(p.contact_velocities(V)[:, 1, 0])
    assert b_normal[-1] > 1e-3 and abs(b_normal[0]) < 1e-9
    assert A.shape == (p.lcp_size - p.m,) * 2


def test_sequential_rocking_block_a_first_matches_the_closed_form():
    """A first (sticking): omega = -0.3 v0; then B: omega' = -0.21 v0, A lifting at 0.21 v0."""
    p = hand_rocking_block()
    v0 = -p.v[1]
    res = sequential(p, "A")
    assert res.terminated and res.order[:2] == [0, 1]
    np.testing.assert_allclose(res.path[1], [0.3 * v0, -0.15 * v0, -0.3 * v0], atol=1e-12)
    np.testing.assert_allclose(p.contact_velocities(res.velocity)[0, 0], 0.21 * v0, atol=1e-12)
    energies = p.kinetic_energy(res.path)
    assert np.all(np.diff(energies) <= 1e-15)


def test_anitescu_potra_solutions_solve_their_lcp():
    p = hand_compass_gait()
    A, b = anitescu_potra_lcp(p)
    for v in simultaneous(p):
        assert np.all(p.Jn @ v >= -1e-9)
    with pytest.raises(ValueError, match="`first` must be one of"):
        sequential(p, "Z")
    assert lcp_residual(A, b, np.zeros(len(b))) > 0.1  # z = 0 leaves the leading foot closing
