"""reach.analysis.walk: walking on from Lemke's solution finds the solutions no covering vector reaches."""

import numpy as np

from helpers import random_problem
from reach.analysis.walk import walk_solutions
from reach.problem.lcp import LCPStatus
from reach.problem.step import kernel_data, mode_velocities, routh_step


def _steps(m, cases, seed):
    """Random planar steps with high friction, one velocity more than contacts: often non-unique."""
    rng = np.random.default_rng(seed)
    for case in range(cases):
        p = random_problem(rng, m=m, nv=m + 1, planar=True, mu=10.0 ** rng.uniform(0, 1.5, size=m))
        lam = rng.uniform(0.2, 2, size=m) * np.abs(p.Jn @ p.v).max() / p.mass_scale
        yield case, p, lam, mode_velocities(p, p.v, lam, sample=case)[0]


def _match(p, A, B):
    """For each row of A, whether B holds the same outcome (contact velocities within 1e-6 of the scale)."""
    scale = np.abs(p.contact_velocities(p.v)).max()
    a, b = (p.contact_velocities(X).reshape(len(X), -1) for X in (A, B))
    return np.abs(a[:, None] - b[None]).max(axis=2).min(axis=1) <= 1e-6 * scale


def test_the_walk_finds_only_solutions_and_more_than_random_coverings():
    rng = np.random.default_rng(5)
    walked = covered = total = complete = nonunique = 0
    for case, p, lam, enumerated in _steps(4, 80, 104):
        if len(enumerated) < 2:
            continue
        nonunique += 1
        V = walk_solutions(p, p.v, lam, hops=32, seed=case)
        assert len(V) >= 1 and _match(p, V, enumerated).all(), f"case {case}: the walk returned a non-solution"
        assert np.all(p.kinetic_energy(V) <= p.kinetic_energy(p.v) * (1 + 1e-9))
        data = kernel_data(p)
        R = []
        for _ in range(32):
            d = np.exp(np.log(1e3) * rng.uniform(-1, 1, size=p.lcp_size))
            v_next, _, status, _ = routh_step(p, p.v, lam, covering=d, data=data)
            if status == LCPStatus.SOLVED:
                R.append(v_next)
        walked += _match(p, enumerated, V).sum()
        covered += _match(p, enumerated, np.array(R)).sum() if R else 0
        total += len(enumerated)
        complete += _match(p, enumerated, V).all()
    assert nonunique >= 5
    # random covering vectors end only at index +1 solutions; the walk reaches the others too
    assert walked > covered
    assert complete >= nonunique // 2


def test_a_unique_step_walks_to_its_one_solution():
    for case, p, lam, enumerated in _steps(3, 30, 7):
        if len(enumerated) == 1:
            V = walk_solutions(p, p.v, lam, hops=8, seed=case)
            assert len(V) == 1 and _match(p, V, enumerated).all()
            return
    raise AssertionError("no unique step among the cases")
