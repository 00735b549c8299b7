"""Lemke's method: peer problems (Siconos), textbook cases, and agreement with basis enumeration."""

import functools
from pathlib import Path

import numpy as np
import pytest

from helpers import assert_lcp_solution, random_problem
from reach.laws import anitescu_potra_lcp
from reach.problem.lcp import all_solutions
from reach.problem.lcp import LCPStatus, lemke
from reach.problem.lcp import lemke as reach_lemke

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer-lcp" / "siconos"
if not PEER.is_dir():
    PEER = Path("/work/shared/peer-lcp/siconos")

SOLVES = ["CPS_1", "CPS_2", "CPS_4", "CPS_4bis", "CPS_5", "deudeu", "ortiz", "trivial", "exp_murty",
          "exp_murty2", "mmc", "enum_fails", "Pang_isolated_sol", "inf_sol_perturbed", "tobenna"]
RAYS = ["CPS_3", "Pang_isolated_sol_perturbed"]


def read_peer(name):
    """Read a Siconos dense LCP file (format in shared/peer-lcp/README.md)."""
    tokens = (PEER / f"lcp_{name}.dat").read_text().split()
    values = []
    for tok in tokens:
        try:
            values.append(float(tok))
        except ValueError:
            break
    n = int(values[0])
    data = values[6:]
    M = np.array(data[:n * n]).reshape(n, n, order="F")
    q = np.array(data[n * n:n * n + n])
    return M, q


@pytest.fixture(autouse=True, params=["tableau", "revised"])
def method(request, monkeypatch):
    """Every test here runs with both of Lemke's forms: ``lemke`` is bound to one of them."""
    monkeypatch.setitem(globals(), "lemke", functools.partial(reach_lemke, method=request.param))
    return request.param


needs_peer = pytest.mark.skipif(not PEER.is_dir(), reason="shared/peer-lcp is not present")


@needs_peer
@pytest.mark.parametrize("name", SOLVES)
def test_peer_problem_solves(name):
    M, q = read_peer(name)
    res = lemke(M, q)
    assert res.status == LCPStatus.SOLVED, res.message
    # Siconos's own acceptance test
    w = M @ res.z + q
    error = np.linalg.norm(res.z - np.maximum(0, res.z - w)) / np.linalg.norm(q)
    assert error <= 1e-6
    assert_lcp_solution(M, q, res.z, tol=1e-9)


@needs_peer
@pytest.mark.parametrize("name", RAYS)
def test_peer_problem_ends_on_ray(name):
    M, q = read_peer(name)
    res = lemke(M, q)
    assert res.status == LCPStatus.RAY
    assert not res.success


@needs_peer
@pytest.mark.parametrize("name, expected", [("CPS_2", [0, 1, 3]), ("deudeu", [4 / 3, 7 / 3])])
def test_peer_known_solutions(name, expected):
    M, q = read_peer(name)
    np.testing.assert_allclose(lemke(M, q).z, expected, atol=1e-12)


@needs_peer
def test_peer_trivial_solution_is_reciprocals():
    M, q = read_peer("trivial")
    z = lemke(M, q).z
    np.testing.assert_allclose(z, all_solutions(M, q)[0], atol=1e-12)


# --------------------------------------------------------------------------- textbook cases
def test_murty_example_2_8_solves():
    # Murty, Linear Complementarity, Linear and Nonlinear Programming, Example 2.8
    M = np.array([[1, -1, -1, -1], [-1, 1, -1, -1], [1, 1, 2, 0], [1, 1, 0, 2]], float)
    q = np.array([3, 5, -9, -5], float)
    res = lemke(M, q)
    assert res.success
    assert_lcp_solution(M, q, res.z)


def test_murty_example_2_9_ends_on_ray():
    M = np.array([[-1, 0, -3], [1, -2, -5], [-2, -1, -2]], float)
    res = lemke(M, [-3, -2, -1])
    assert res.status == LCPStatus.RAY


def test_murty_example_2_11_depends_on_covering_vector():
    M = np.array([[-1.5, 2], [-4, 4]])
    q = np.array([-5.0, 17.0])
    # with covering vector d = (5, 16) in the original coordinates Lemke ends on a ray;
    # in our equilibrated coordinates that is d_scaled = R d
    from reach.problem.lcp import LemkeWorkspace
    ws = LemkeWorkspace(M)
    assert lemke(M, q, covering=ws.lcp.row_scale * np.array([5.0, 16.0]), workspace=ws).status == LCPStatus.RAY
    res = lemke(M, q)
    assert res.success
    assert_lcp_solution(M, q, res.z)


def test_kostreva_cycling_example_1_solves():
    # Kostreva (1979): cycles without careful tie-breaking; q has a three-way tie.
    M = np.array([[1, 2, 0], [0, 1, 2], [2, 0, 1]], float)
    q = -np.ones(3)
    res = lemke(M, q)
    assert res.success and res.pivots < 20
    np.testing.assert_allclose(res.z, [1 / 3, 1 / 3, 1 / 3], atol=1e-12)


def test_kostreva_cycling_example_2_ends_on_ray():
    M = np.array([[1, -1, 3], [2, -1, 3], [-1, -2, 0]], float)
    res = lemke(M, -np.ones(3))
    assert res.status == LCPStatus.RAY and res.pivots < 20


def test_murty_exponential_example_lexicographic():
    # Murty's example (lower triangular, 1 on the diagonal, 2 below): with q = -1 the initial
    # ratio test has an n-way tie; the lexicographic rule picks the last row and finishes fast.
    n = 8
    M = np.eye(n) + 2 * np.tril(np.ones((n, n)), -1)
    q = -np.ones(n)
    res = lemke(M, q)
    assert res.success
    assert_lcp_solution(M, q, res.z)
    assert len(all_solutions(M, q)) == 1  # a P-matrix: the solution is unique
    np.testing.assert_allclose(res.z, all_solutions(M, q)[0], atol=1e-12)


def test_trivial_when_q_nonnegative():
    res = lemke(np.array([[1.0, 2.0], [3.0, 4.0]]), [0.0, 1.0])
    assert res.success and res.pivots == 0 and np.all(res.z == 0)


def test_badly_scaled_problem_is_solved():
    # Delassus-like scales of 1e-7 next to friction rows of 1e5: relative tolerances matter.
    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 4))
    G = (A @ A.T + 0.1 * np.eye(4)) * 1e-7
    q = rng.normal(size=4) * 1e-6
    res = lemke(G, q)
    assert res.success
    assert_lcp_solution(G, q, res.z, tol=1e-9)
    # G is positive definite, so the solution is unique: enumeration must agree
    np.testing.assert_allclose(res.z, all_solutions(G, q)[0], rtol=1e-8, atol=1e-12 * np.max(np.abs(res.z)))


def test_bad_input_messages():
    with pytest.raises(ValueError, match="`M` must be a non-empty square matrix"):
        lemke(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match=r"`q` must have shape \(2,\)"):
        lemke(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        lemke(np.eye(2), [np.nan, 1.0])
    with pytest.raises(ValueError, match="`covering` must be a positive, finite vector"):
        lemke(np.eye(2), [-1.0, 1.0], covering=[1.0, 0.0])


# --------------------------------------------------------------------------- against enumeration
def _lemke_answer_is_enumerated(A, b):
    res = lemke(A, b)
    assert res.success, res.message
    assert_lcp_solution(A, b, res.z)
    sols = all_solutions(A, b)
    scale = max(1.0, np.max(np.abs(res.z)))
    # the answer is one of the enumerated solutions, or (degenerate LCP) solves it all the same
    close = np.min(np.max(np.abs(sols - res.z), axis=1)) if len(sols) else np.inf
    return close <= 1e-7 * scale


@pytest.mark.parametrize("seed", range(4))
def test_lemke_matches_enumeration_on_random_routh_and_anitescu_lcps(seed):
    rng = np.random.default_rng(seed)
    matched = total = 0
    for _ in range(300):
        p = random_problem(rng, m=int(rng.integers(1, 3)))
        lam = rng.uniform(0, 2, size=p.m) * (rng.random(p.m) > 0.1)
        for A, b in ((p.W, p.routh_w(p.v, lam)), anitescu_potra_lcp(p)):
            total += 1
            matched += _lemke_answer_is_enumerated(np.ascontiguousarray(A), b)
    # Degenerate LCPs (e.g. mu = 0 with a free friction direction) have solutions on singular
    # bases that enumeration skips; the answer still solves the LCP (checked above).
    assert matched >= 0.97 * total, f"{matched}/{total}"


def test_all_solutions_finds_every_solution_of_a_nonunique_lcp():
    # M = [[1, 2], [2, 1]], q = [-1, -1]: z = (1, 0) and (0, 1) (one contact takes it all, w = (0, 1)),
    # and the interior z = (1/3, 1/3) with w = 0.
    M = np.array([[1.0, 2.0], [2.0, 1.0]])
    q = np.array([-1.0, -1.0])
    sols = all_solutions(M, q)
    expected = [[1.0, 0.0], [0.0, 1.0], [1 / 3, 1 / 3]]
    assert len(sols) == 3
    for e in expected:
        assert np.min(np.max(np.abs(sols - e), axis=1)) < 1e-12


def test_copositive_routh_matrix_with_rounding_noise_does_not_end_on_a_false_ray():
    # A single sticking contact at the end of an impact: q carries 1e-16 noise on the friction
    # rows.  W is copositive but not copositive-plus; a naive degenerate pivot ends on a ray
    # although z0 is already zero.
    W = np.array([[0, -1, 0, 0, 0], [1, 69.592, -108.71, 108.71, 0], [0, -108.71, 827.89, -827.89, 1],
                  [0, 108.71, -827.89, 827.89, 1], [0, 66820, -1, -1, 0]], float)
    q = np.array([1.7124, 2.1889e-16, 9.5623e-16, -9.5623e-16, 0])
    res = lemke(W, q)
    assert res.success, res.message
    assert_lcp_solution(W, q, res.z, tol=1e-12)


def test_residual_is_not_fooled_by_one_huge_entry():
    # Regression: a wrong disk-stack step had one entry of z near 2e12 (a friction multiplier);
    # measuring rows against their activity and z against max(z) made an O(1) violation elsewhere
    # look like 6e-10, so an energy-raising step passed.  The residual must stay O(1) here.
    from reach.problem.lcp import lcp_residual
    M = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    q = np.array([1.43, -1.0, 0.0])
    wrong = np.array([1e12, 1.0, 0.0])       # z_0 > 0 while w_0 = 1.43 > 0
    right = np.array([0.0, 1.0, 0.0])
    assert lcp_residual(M, q, wrong) > 0.1
    assert lcp_residual(M, q, right) == 0.0
