"""Where the Stewart-Trinkle time-stepper lands in the sets of the paper's impacts."""

import numpy as np
import pytest

import scenarios
from reach import sample_post_impact_set
from reach.analysis.landing import landing, name_outcome, one_step_outcome, stepped_outcome


@pytest.fixture(scope="module")
def gait():
    s = scenarios.get("compass-gait")
    result = sample_post_impact_set(s.problem, 2 ** 12, s.h, s.N, n_jobs=1, completeness=False)
    return s, result, scenarios.lookup("compass-gait", "simulation", gravity=0.0).system


def test_rocking_block_stepper_comes_to_rest():
    s = scenarios.get("rocking-block")
    system = scenarios.lookup("rocking-block", "simulation", gravity=0.0).system
    for v in (one_step_outcome(system, s.q, s.v, 1e-3), stepped_outcome(system, s.q, s.v, 1e-3)[0]):
        np.testing.assert_allclose(v, 0.0, atol=1e-12)
    assert name_outcome(s.problem, np.zeros(3)) == "A sticks, B sticks"


def test_compass_gait_stepper_outcome_converges_into_the_set(gait):
    s, result, system = gait
    scale = float(np.max(np.abs(s.problem.normal_velocities(s.v))))
    lands = {}
    for h in (1e-2, 1e-3, 1e-4):
        for kind, v in (("one", one_step_outcome(system, s.q, s.v, h)), ("run", stepped_outcome(system, s.q, s.v, h)[0])):
            land = landing(result, v)
            lands[h, kind] = land
            assert land.energy_ratio <= 1.0 + 1e-9      # no impact outcome gains energy
            assert land.approach <= 2 * h * 10          # what is left approaching is O(h)
            assert land.outcome == "A sticks, B lifts"
    for kind in ("one", "run"):
        # First order in h: ten times smaller steps land about ten times closer.
        assert lands[1e-4, kind].distance < lands[1e-2, kind].distance / 30
        assert lands[1e-4, kind].fraction < 1e-3
    assert lands[1e-4, "one"].distance <= 1e-3 * scale


def test_stepped_outcome_needs_an_impact(gait):
    s, _, system = gait
    with pytest.raises(RuntimeError, match="not over"):
        stepped_outcome(system, s.q, -s.v, 1e-3, max_steps=5)
