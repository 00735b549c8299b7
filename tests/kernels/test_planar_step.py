"""reach.kernels.planar: planar steps solved on their contact modes agree with Lemke and with full enumeration."""

import numpy as np
import pytest

from helpers import assert_energy_non_increasing, random_problem
from reach.kernels.jit import kernel_array
from reach.kernels.planar import piece_step
from reach.kernels.routh_data import make_step_work
from reach.problem.lcp import LCPStatus
from reach.problem.step import kernel_data, mode_velocities, routh_step, step_options


def untabled(data):
    """The same kernel data without the pieces' table: every piece solved and tested as before."""
    m = data.Jn.shape[0]
    return data._replace(piece_rows=np.zeros((0, 5 * m, 3 * m)), piece_nrows=np.zeros(0, dtype=np.int64),
                         piece_cond=np.zeros((0, 5 * m), dtype=np.int64), piece_mask=np.zeros(0, dtype=np.int64))


def random_caps(rng, p):
    natural = np.abs(p.Jn @ p.v).max() / p.mass_scale
    lam = rng.uniform(0, 2, size=p.m) * (rng.random(p.m) > 0.1) * natural
    if rng.random() < 0.25:
        lam[rng.integers(p.m)] = natural * rng.integers(0, 2)  # snapped: exactly 0, or equal caps
    return lam


def random_steps(seed, m, cases, certified=False):
    """``cases`` random planar problems with ``m`` contacts, as (case, problem, kernel data, caps)."""
    rng = np.random.default_rng(seed)
    for t in range(cases):
        p = random_problem(rng, m=m, planar=True)
        data = kernel_data(p, certificate=True)
        if certified and not data.certified:
            continue
        yield t, p, data, random_caps(rng, p)


def same_sets(p, a, b, rtol=1e-7):
    if len(a) != len(b):
        return False
    if len(a) == 0:
        return True
    cv = lambda V: p.contact_velocities(V).reshape(len(V), -1)  # noqa: E731
    d = np.abs(cv(a)[:, None] - cv(b)[None]).max(axis=2)
    scale = np.abs(p.contact_velocities(p.v)).max()
    return d.min(axis=1).max() <= rtol * scale and d.min(axis=0).max() <= rtol * scale


@pytest.mark.parametrize("m, cases", [(1, 300), (2, 1000), (3, 200), (4, 30)])
def test_tabled_pieces_find_every_distinct_velocity(m, cases):
    """The table of the pieces' inequalities finds the same distinct v' as solving and testing every piece."""
    several = 0
    for t, p, data, lam in random_steps(7 + m, m, cases):
        assert data.piece_nrows.shape == (7**m,)
        tabled, drawn = mode_velocities(p, p.v, lam, data=data, sample=t)
        solved, _ = mode_velocities(p, p.v, lam, data=untabled(data), sample=t)
        assert same_sets(p, tabled, solved), (t, len(tabled), len(solved))
        several += len(tabled) > 1
        if len(tabled):
            assert drawn is not None, f"case {t}: the drawn v' failed verification"
            assert_energy_non_increasing(p, p.v, drawn)
            gaps = np.abs(p.contact_velocities(tabled) - p.contact_velocities(drawn)).reshape(len(tabled), -1)
            assert gaps.max(axis=1).min() <= 1e-9 * np.abs(p.contact_velocities(p.v)).max()
    if m > 1:
        assert several > 0  # the comparison met non-unique steps


@pytest.mark.parametrize("m, cases", [(1, 300), (2, 1500), (3, 300), (4, 40)])
def test_piece_step_is_lemkes_answer_on_certified_steps(m, cases):
    """Where the certificate proves one solution, the piece search and Lemke's method give the same v'."""
    from reach.kernels.modes import certified_unique

    compared = 0
    for t, p, data, lam in random_steps(70 + m, m, cases, certified=True):
        work = make_step_work(p.lcp_size, p.m, p.nv)
        v, lam_k = kernel_array(p.v), kernel_array(lam * p.mass_scale)  # as the library's: one compile
        if not certified_unique(data, v, lam_k, work):
            continue
        lemke, _, status, _ = routh_step(p, p.v, lam, data=data)
        if status != LCPStatus.SOLVED:
            continue
        v_next = np.empty(p.nv)
        code, res = piece_step(data, v, lam_k, step_options(p), work, v_next)
        assert code == 0, f"case {t}: no piece held a verified solution (residual {res:.1e})"
        assert res <= 1e-9
        scale = np.abs(p.contact_velocities(p.v)).max()
        gap = np.abs(p.contact_velocities(v_next) - p.contact_velocities(lemke)).max()
        assert gap <= 1e-7 * scale, f"case {t}: piece step and Lemke differ by {gap / scale:.1e} of the scale"
        assert_energy_non_increasing(p, p.v, v_next)
        compared += 1
    assert compared >= cases // 4, compared


def test_four_contacts_certified_steps_take_lemkes_method_and_give_the_same_set():
    """Above PIECE_STEP_MAX_CONTACTS a certified step is solved by Lemke's method: the exact set is random choice's.

    Every step of this row of discs is certified unique (its certificate holds no negative or singular
    piece), so exact and random choice must reach the same outcomes, sample by sample.
    """
    from reach import sample_post_impact_set
    from reach.kernels.planar import PIECE_STEP_MAX_CONTACTS
    from reach.tools.scaling import disc_row

    p, h, N = disc_row(PIECE_STEP_MAX_CONTACTS + 1)
    runs = {choice: sample_post_impact_set(p, 512, h, N, solution_choice=choice, completeness=False)
            for choice in ("exact", "random")}
    assert runs["exact"].settings.solution_choice == "exact" and runs["exact"].success
    scale = np.abs(p.contact_velocities(p.v)).max()
    gap = np.abs(runs["exact"].contact_velocities() - runs["random"].contact_velocities()).max()
    assert gap <= 1e-9 * scale
    assert_energy_non_increasing(p, p.v, runs["exact"].velocities)
