"""A spatial robot through several touchdowns, flown by MuJoCo (issue 42): valid states, bit-for-bit witnesses."""

from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

from reach.analysis.robust import check, sticks  # noqa: E402
from reach.analysis.touchdowns import propagate_touchdowns  # noqa: E402
from reach.models.mujoco import load_model  # noqa: E402
from reach.tools.cli_touchdowns import initial_state  # noqa: E402

MODEL = Path(__file__).parents[2] / "examples" / "quadruped12.xml"


@pytest.fixture(scope="module")
def dropped():
    """quadruped12 dropped 5 cm from its keyframe, moving forward, its joints held by a PD controller."""
    model = load_model(MODEL)
    qpos, qvel = initial_state(model, "stand", 0.05)
    stand = qpos.copy()
    stand[2] -= 0.05
    qvel[0] = 0.3

    def pd(t, q, v):
        return 60.0 * (stand[7:] - q[7:]) - 2.0 * v[6:]

    return propagate_touchdowns(model, qpos, qvel, controller=pd, impacts=3, budget=128, max_branches=3, t_max=1.0,
                                resolution=0.02)


def test_it_lands_and_the_rebounding_feet_touch_down_again(dropped):
    assert len(dropped.impacts) >= 2
    first, second = dropped.impacts[:2]
    assert first.t[0] == pytest.approx(np.sqrt(2 * 0.05 / 9.81), rel=0.05)  # a 5 cm drop
    assert np.all(second.t > first.t[0]) and len(first.carried) <= 3


def test_every_state_after_a_touchdown_is_valid(dropped):
    for k, record in enumerate(dropped.impacts, start=1):
        for b in range(len(record.t)):
            problem = dropped.problems[(k, b)]
            V = record.v[record.branch == b]
            scale = float(np.abs(problem.v).max())
            assert np.all(problem.normal_velocities(V) >= -1e-8 * scale)  # no contact closing
            assert np.all(problem.kinetic_energy(V) <= problem.kinetic_energy(problem.v) * (1 + 1e-9))  # none gained
        assert record.missed() is not None  # every touchdown's set says how complete it is


def test_witnesses_replay_bit_for_bit_through_mujoco(dropped):
    k = len(dropped.impacts)
    record = dropped.impacts[-1]
    carried, other = int(record.carried[0]), int(np.setdiff1d(np.arange(len(record.v)), record.carried)[0])
    for j in (carried, other):
        t, q, v = dropped.replay(k, j)
        assert np.array_equal(v, record.v[j]) and np.array_equal(q, record.q[record.branch[j]])


@pytest.fixture(scope="module")
def bounding():
    """quadruped12 dropped 5 cm from its keyframe, bounding (reach.examples.gaits.bound) through 3 touchdowns."""
    from reach.examples.gaits import bound

    model = load_model(MODEL)
    qpos, qvel = initial_state(model, "stand", 0.05)
    return propagate_touchdowns(model, qpos, qvel, controller=bound, impacts=3, budget=256, max_branches=4, t_max=1.0)


def test_the_bound_goes_through_three_touchdowns_of_two_and_four_feet_with_valid_states(bounding):
    assert len(bounding.impacts) == 3
    assert {len(names) for record in bounding.impacts for names in record.contacts} >= {2, 4}
    test_every_state_after_a_touchdown_is_valid(bounding)
    spread = [np.ptp(record.v[:, 4]) for record in bounding.impacts]  # the pitch rate's set is not a point
    assert min(spread) > 1e-3


def test_the_bounds_worst_pitch_rate_replays_bit_for_bit(bounding):
    from reach.examples.requirements import pitch_rate_limited

    reports = check(bounding, pitch_rate_limited, replay=True)
    assert [r.replayed for r in reports if r.worst is not None] and all(
        r.replayed is True for r in reports if r.worst is not None)


def test_robustness_checks_apply_per_touchdown(dropped):
    reports = check(dropped, sticks("floor|FL_foot", tol=0.05), replay=True)
    assert len(reports) == len(dropped.impacts)
    for r in reports:
        assert r.missed is not None and r.outcomes > 0
        assert r.worst is None or r.replayed is True


def test_the_same_touchdowns_on_two_workers(dropped):
    model = dropped.model
    again = propagate_touchdowns(model, dropped.q0, dropped.v0, controller=dropped.controller, impacts=2, budget=128,
                                 max_branches=3, t_max=1.0, resolution=0.02, n_jobs=2)
    for a, b in zip(dropped.impacts, again.impacts):
        assert np.array_equal(a.v, b.v) and np.array_equal(a.q, b.q)



def test_an_interrupted_touchdown_run_resumes_from_its_checkpoint_to_the_same_result(dropped, tmp_path, monkeypatch):
    """Stopped while sampling its last touchdown, the run resumes from the checkpoint of the one before."""
    from reach.analysis import touchdowns

    options = dict(controller=dropped.controller, impacts=3, budget=128, max_branches=3, t_max=1.0, resolution=0.02)
    path = tmp_path / "run.ckpt.npz"
    last = len(dropped.impacts)
    assert last >= 2
    before = sum(len(record.parents) for record in dropped.impacts[:-1])  # the sets sampled before the last
    real, calls = touchdowns.sample_post_impact_set, []

    def stopped(*args, **kwargs):
        calls.append(1)
        if len(calls) > before:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(touchdowns, "sample_post_impact_set", stopped)
    with pytest.raises(KeyboardInterrupt):
        propagate_touchdowns(dropped.model, dropped.q0, dropped.v0, checkpoint=path, **options)
    with pytest.raises(ValueError, match="exists"):
        propagate_touchdowns(dropped.model, dropped.q0, dropped.v0, checkpoint=path, **options)
    calls.clear()
    before = len(dropped.impacts[-1].parents)  # resumed, it samples the last touchdown's sets alone
    resumed = propagate_touchdowns(dropped.model, dropped.q0, dropped.v0, checkpoint=path, resume=True, **options)
    assert len(resumed.impacts) == last and len(calls) == before
    for a, b in zip(dropped.impacts, resumed.impacts):
        for name in ("t", "q", "v", "branch", "sample", "carried"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
