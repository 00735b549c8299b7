"""Tests of reach.tools.scaling: the problems of the scaling bench, and the peer harness solves the same LCPs."""

from types import SimpleNamespace

import numpy as np
import pytest

from reach.tools.bench import Recorded
from reach.kernels.lcp import AUTO, REVISED, TABLEAU
from reach.tools.scaling import _quantecon, _reach_forms, disc_row, format_scaling


@pytest.mark.parametrize("m", [1, 2, 5, 8])
def test_disc_row_has_m_colliding_contacts(m):
    problem, h, N = disc_row(m)
    assert problem.m == m and problem.lcp_size == 5 * m and problem.planar
    assert np.all(problem.normal_velocities(problem.v) < 0)


def test_quantecon_is_given_the_lcps_reach_solves():
    pytest.importorskip("quantecon", reason="QuantEcon (the bench's optional peer) is not installed")
    problem, h, N = disc_row(3)
    rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), 60)
    ((ours, V),) = _reach_forms(rec, 1, 30, (AUTO,))
    theirs, V_qe = _quantecon(problem, rec, passes=1, batch=30)
    assert ours["solved"] == 1.0 and 0.0 < theirs["solved"] <= 1.0
    # wherever QuantEcon succeeds its answer is a Routh step of the same problem: it never gains energy,
    # and on the many unique steps it is our v'
    g = problem.mass_scale
    energy = lambda v: 0.5 * v @ problem.M @ v  # noqa: E731
    ok = np.isfinite(V_qe).all(axis=1)
    for k in np.flatnonzero(ok):
        assert energy(V_qe[k]) <= energy(rec.V[k]) * (1 + 1e-9) + 1e-12
    same = np.abs(V_qe[ok] - V[ok]).max(axis=1) <= 1e-6 * np.abs(rec.V).max()
    assert same.mean() > 0.5
    assert rec.lam.max() <= h * g * (1 + 1e-12)


def test_format_names_every_problem():
    machine = dict(cpu="cpu", cores=2, load_average_1min=0.5)
    row = dict(problem="planar, m = 1", family="planar", n=5, m=1, steps=10,
               reach=dict(wall_us=1.0, cpu_us=1.0, pivots=3.0, solved=1.0),
               tableau=dict(wall_us=3.0, cpu_us=3.0, pivots=3.0, solved=1.0),
               sampling=dict(samples_per_s_wall=10.0, samples_per_s_cpu=10.0, lcps_per_sample=2.0),
               quantecon=dict(wall_us=2.0, cpu_us=2.0, pivots=4.0, solved=0.5))
    text = format_scaling(dict(mode="quick", machine=machine, rows=[row]))
    assert "| planar, m = 1 | 5 |" in text and "2.00×" in text and "50.0 %" in text and "3.00×" in text


def test_both_lemke_forms_are_timed_on_the_same_steps():
    problem, h, N = disc_row(6)  # n = 30: AUTO takes the revised form
    rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), 80)
    (revised, V_r), (tableau, V_t) = _reach_forms(rec, 1, 40, (REVISED, TABLEAU))
    assert revised["solved"] == tableau["solved"] == 1.0
    assert revised["cpu_us"] > 0 and tableau["cpu_us"] > 0
    same = np.abs(V_r - V_t).max(axis=1) <= 1e-8 * np.abs(rec.V).max()
    assert same.mean() >= 0.95


def test_issue_14_targets_are_judged_on_the_rows_measured():
    machine = dict(cpu="cpu", cores=2, load_average_1min=0.5)
    row = lambda name, us, peer_us, rate: dict(  # noqa: E731
        problem=name, family="planar", n=10, m=2, steps=10, reach=dict(wall_us=us, cpu_us=us, pivots=3.0, solved=1.0),
        sampling=dict(samples_per_s_wall=rate, samples_per_s_cpu=rate, lcps_per_sample=2.0),
        quantecon=dict(wall_us=peer_us, cpu_us=peer_us, pivots=4.0, solved=1.0))
    rows = [row("planar, m = 2", 0.5, 1.0, 1e5), row("quadruped touchdown, k = 8", 20.0, 40.0, 9e3)]
    text = format_scaling(dict(mode="quick", machine=machine, rows=rows))
    assert "[met] planar, m = 2: 0.50 µs" in text  # ≤ 0.7 µs
    assert "[met] planar, m = 2: 2.00× faster" in text  # ≥ 1.5× at n = 10
    assert "[MISSED] quadruped touchdown, k = 8: 9,000 samples/s" in text
    assert "[MISSED] quadruped touchdown, k = 8: 2.00× faster" in text  # < 3× at n = 44
    assert "3-D block" not in text  # not measured: not judged
