"""Tests of reach.analysis.compare.drake (Drake's SAP against the set) and reach.tools.simulators."""

import numpy as np
import pytest

pytest.importorskip("pydrake", reason="Drake is not installed (pip install 'reach[drake]')")

from reach import sample_post_impact_set  # noqa: E402
from reach.analysis.compare.drake import SapSettings, simulate_sap, sweep  # noqa: E402
from reach.models.block import RigidBlock  # noqa: E402
from reach.models.drake import block_sdf, impact_from_drake, load_plant  # noqa: E402


@pytest.fixture(scope="module")
def block():
    sdf, q, v = block_sdf()
    system = load_plant(sdf)
    impact = impact_from_drake(system.plant, system.context(q, v))
    result = sample_post_impact_set(impact.problem, 2**11, 0.3, 10, completeness=False)
    return impact, result, (lambda props: block_sdf(proximity=props)[0])


def test_sap_impacts_end_non_colliding_and_lose_energy(block):
    impact, _, writer = block
    for options in (dict(), dict(tilt=np.deg2rad(0.01)), dict(stiffness=[100.0, 1.0]),
                    dict(settings=SapSettings(contact_model="hydroelastic"))):
        run = simulate_sap(writer, impact.problem, impact.q, impact.v, **options)
        assert run.ended and not run.colliding, options
        assert 0.0 <= run.energy_ratio < 1.0, options
        assert run.peak_force > 0


def test_sap_lands_in_the_set_and_a_tilt_picks_a_pivot(block):
    impact, result, writer = block
    scale = float(np.max(np.abs(impact.problem.Jn @ impact.problem.v)))
    flat = simulate_sap(writer, impact.problem, impact.q, impact.v)
    assert result.distance_to(flat.v) < 0.01 * scale
    assert np.all(np.abs(flat.contact_velocities[:, 0]) < 0.01 * scale)  # both corners stop: rest
    tilted = simulate_sap(writer, impact.problem, impact.q, impact.v, tilt=np.deg2rad(0.01),
                          settings=SapSettings(time_step=1e-5))
    vn = tilted.contact_velocities[:, 0]
    assert vn.max() > 0.15 * scale and abs(vn.min()) < 0.01 * scale  # one corner pivots, the other lifts
    assert result.distance_to(tilted.v) < 0.01 * scale


def test_sweep_reports_distances_and_named_outcomes(block):
    impact, result, writer = block
    runs = sweep(writer, impact, result, tilts_deg=(0.01,), stiffness_ratios=(100.0,), relaxation_times=(1e-3,),
                 time_steps=(1e-5,))
    assert list(runs.kind) == ["tilt", "stiffness", "dissipation", "time step"]
    scale = float(np.max(np.abs(impact.problem.Jn @ impact.problem.v)))
    assert np.allclose(runs.fractions, runs.distances / scale) and np.all(runs.fractions < 0.02)
    assert all(name.count("|floor") == 2 for name in runs.outcomes)
    assert "lifts" in runs.outcomes[0]
    with pytest.raises(ValueError, match="different problem"):
        other = sample_post_impact_set(block_problem_other(), 64, 0.3, 10, completeness=False)
        sweep(writer, impact, other)


def block_problem_other():
    sdf, q, v = block_sdf(RigidBlock(mu=0.5))
    system = load_plant(sdf)
    return impact_from_drake(system.plant, system.context(q, v)).problem


def test_settings_are_checked():
    with pytest.raises(ValueError, match="contact_model"):
        SapSettings(contact_model="soft")
    with pytest.raises(ValueError, match="time_step"):
        SapSettings(time_step=0.0)
    with pytest.raises(ValueError, match="relaxation_time"):
        SapSettings(relaxation_time=-1.0)


def test_simulator_table_is_computed_and_names_what_each_reaches():
    pytest.importorskip("mujoco", reason="MuJoCo is not installed")
    from reach.tools.simulators import compare_simulators, comparison_markdown, modes

    assert modes([[0.0, 0.0], [0.5, 0.0]], 1.0, "AB") == "A sticks, B lifts"
    assert modes([[0.0, 0.0], [0.0, 0.0]], 1.0, "AB") == "rest"
    comparisons = compare_simulators(quick=True, log=lambda message: None)
    planar = comparisons[0]
    assert [s.simulator for s in planar.simulated] == ["MuJoCo", "Drake SAP", "Kelvin–Voigt"]
    for s in planar.simulated:
        assert np.all(s.fractions < 0.02), s.simulator  # every simulator lands (near) in the set
        assert np.all(s.energy_ratios <= 1.0 + 1e-9), s.simulator
    assert {"A sticks, B lifts", "A lifts, B sticks", "rest"} <= set(planar.set_names)
    text = comparison_markdown(comparisons)
    assert "| rest |" in text and "Drake SAP" in text and "quadruped touchdown" in text
