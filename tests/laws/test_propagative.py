"""Seghete-Murphey's propagative law: Newton's cradle, energy, the billiard break, bounded orders."""

import numpy as np
import pytest

from reach.laws.propagative import indeterminacy, plastic_projection, propagative
from reach.problem.impact import ImpactProblem
from scenarios import billiards


def _cradle(v):
    """Three equal balls on a line, touching: contacts 1-2 and 2-3 (normals along +x into the later ball)."""
    Jn = np.array([[-1.0, 1.0, 0.0], [0.0, -1.0, 1.0]])
    return ImpactProblem(np.eye(3), Jn, np.zeros((2, 3)), 0.0, v)


@pytest.mark.parametrize("v, expected", [((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                                         ((1.0, 0.0, -1.0), (-1.0, 0.0, 1.0)),
                                         ((2.0, 1.0, 0.0), (0.0, 1.0, 2.0))])
def test_newtons_cradle_has_one_outcome_whatever_the_order(v, expected):
    p = _cradle(np.array(v))
    result = propagative(p, 1.0)
    assert result.complete and len(result.velocities) == 1
    np.testing.assert_allclose(result.velocities[0], expected, atol=1e-12)
    assert p.kinetic_energy(result.velocities[0]) == pytest.approx(p.kinetic_energy(p.v))


def test_elastic_conserves_and_plastic_or_inelastic_dissipate_energy():
    for theta in (np.pi / 6, 1.2, np.pi / 2, 2.5):
        p = billiards.impact(theta)
        E0 = p.kinetic_energy(p.v)
        for v in propagative(p, 1.0).velocities:
            assert p.kinetic_energy(v) == pytest.approx(E0, rel=1e-12)
            assert np.all(p.normal_velocities(v) >= -1e-12)
        for e in (0.0, 0.5):
            for v in propagative(p, e).velocities:
                assert p.kinetic_energy(v) < E0 and np.all(p.normal_velocities(v) >= -1e-12)
        np.testing.assert_allclose(p.normal_velocities(plastic_projection(p)), 0.0, atol=1e-12)


def test_billiard_break_is_unique_at_a_right_angle():
    p = billiards.impact(np.pi / 2)
    assert indeterminacy(p, propagative(p, 1.0).velocities) <= 1e-12
    for theta in (np.pi / 6, 1.0, 2.0):
        p = billiards.impact(theta)
        result = propagative(p, 1.0)
        assert len(result.velocities) == 2 and sorted(result.sequences) == [(0, 1), (1, 0)]
        assert indeterminacy(p, result.velocities) > 1e-3


def test_orders_are_bounded_and_said_so():
    # Nearly opposed normals in the M^-1 metric take many reflections.
    Jn = np.array([[0.0, 1.0], [np.sin(0.05), -np.cos(0.05)]])
    p = ImpactProblem(np.eye(2), Jn, np.zeros((2, 2)), 0.0, [0.0, -1.0 + 0.1])
    short = propagative(p, 1.0, max_reflections=3)
    assert not short.complete
    full = propagative(p, 1.0, max_reflections=200)
    assert full.complete and len(full.velocities) >= 1
    with pytest.raises(ValueError, match="restitution"):
        propagative(p, 1.5)
