"""Indeterminacy measures: the frictionless set collapses exactly where the normals are obtuse in the M^-1 metric."""

import numpy as np
import pytest

from reach import sample_post_impact_set
from reach.analysis.measures import contact_ranges, diameter, normal_cosines, projection_areas, spread
from reach.laws.propagative import plastic_projection
from scenarios import billiards


@pytest.mark.parametrize("theta", [np.pi / 6, 1.0, 1.5, np.pi / 2, 1.7, 2.5, 3.0])
def test_frictionless_set_collapses_exactly_where_normals_are_not_acute(theta):
    p = billiards.impact(theta)
    result = sample_post_impact_set(p, 2 ** 9, 1.0, 20, completeness=False)
    cosine = normal_cosines(p)[0, 1]
    d = diameter(p, result.velocities)
    if cosine <= 1e-12:
        assert d <= 1e-9
        np.testing.assert_allclose(result.velocities, plastic_projection(p)[None].repeat(len(result), 0), atol=1e-9)
    else:
        assert d > 1e-4 and spread(p, result.velocities) > 0


def test_measures_of_a_known_pair():
    p = billiards.impact(1.0)
    V = np.array([p.v * 0.5, p.v * 0.25])
    norm0 = np.sqrt(p.v @ p.M @ p.v)
    assert diameter(p, V) == pytest.approx(0.25 * norm0 / norm0)
    assert spread(p, V) == pytest.approx(0.125)
    ranges = contact_ranges(p, V)
    assert ranges["a"]["normal"][0] == pytest.approx(0.5 * p.normal_velocities(p.v)[0])
    assert set(projection_areas(p, V)) == {"a", "b"}
