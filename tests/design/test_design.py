"""Design sweeps are deterministic across workers, and the minimiser finds the billiard's right angle."""

import numpy as np
import pytest

from reach.design import minimize, sweep
from scenarios import billiards


def _build(params):
    return billiards.impact(params["theta"])


def test_sweep_is_the_same_for_any_number_of_workers():
    grid = {"theta": np.linspace(np.pi / 6, 2.6, 5)}
    one = sweep(_build, grid, ("diameter", "xi"), budget=2 ** 8, n_jobs=1)
    two = sweep(_build, grid, ("diameter", "xi"), budget=2 ** 8, n_jobs=2)
    assert one.names == ("theta",) and len(one.params) == 5
    for m in ("diameter", "xi"):
        assert np.array_equal(one.values[m], two.values[m])
    assert one.table().shape == (5, 3)
    with pytest.raises(ValueError, match="unknown measures"):
        sweep(_build, grid, ("size",))


def test_minimiser_finds_the_unique_billiard_break():
    best = minimize(_build, {"theta": 1.0}, {"theta": (np.pi / 6, 2.5)}, "xi", budget=2 ** 6)
    assert best.params["theta"] == pytest.approx(np.pi / 2, abs=1e-3)
    assert best.value < 1e-3 < best.start_value
    assert len(best.result.velocities) > 0 and len(best.start_result.velocities) > 0
