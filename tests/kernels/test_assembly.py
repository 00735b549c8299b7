"""The problem's derived arrays in a fixed order (reach.kernels.assembly): right, and the same on every CPU."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reach.kernels.assembly import cholesky, largest_eigenvalue, product, solve_lower, solve_lower_transposed


def _spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + 0.1 * np.eye(n)


@pytest.mark.parametrize("n, cols", [(1, 1), (3, 7), (18, 36), (40, 12)])
def test_the_factor_the_solves_and_the_products_are_numpys_to_rounding(n, cols):
    rng = np.random.default_rng(n)
    M, B = _spd(rng, n), rng.normal(size=(n, cols))
    L = np.zeros_like(M)
    assert cholesky(M, L)
    np.testing.assert_allclose(L, np.linalg.cholesky(M), rtol=1e-12, atol=1e-12 * np.abs(L).max())
    X, Z = np.empty_like(B), np.empty_like(B)
    solve_lower(L, B, X)
    solve_lower_transposed(L, X, Z)
    np.testing.assert_allclose(Z, np.linalg.solve(M, B), rtol=1e-9, atol=1e-11 * np.abs(Z).max())
    C, Ct = np.empty((n, cols)), np.empty((cols, cols))
    product(M, B, C, False)
    product(B, B, Ct, True)
    np.testing.assert_allclose(C, M @ B, rtol=1e-13, atol=1e-13 * np.abs(C).max())
    np.testing.assert_allclose(Ct, B.T @ B, rtol=1e-13, atol=1e-13 * np.abs(Ct).max())


@pytest.mark.parametrize("seed", range(4))
def test_the_largest_eigenvalue_is_numpys_to_rounding(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(int(rng.integers(5, 40)), int(rng.integers(1, 37))))
    G = A.T @ A
    assert largest_eigenvalue(G.copy()) == pytest.approx(np.linalg.eigvalsh(G)[-1], rel=1e-13)
    assert np.sqrt(largest_eigenvalue(G.copy())) == pytest.approx(np.linalg.norm(A, 2), rel=1e-13)
    # repeated eigenvalues, a diagonal, a 1 x 1
    assert largest_eigenvalue(np.diag([2.0, 5.0, 5.0, 1.0])) == 5.0
    assert largest_eigenvalue(np.array([[3.0]])) == 3.0


def test_a_matrix_that_is_not_positive_definite_has_no_factor():
    L = np.zeros((2, 2))
    assert not cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]), L)
    assert not cholesky(np.array([[0.0, 0.0], [0.0, 1.0]]), L)


_RUN = """import hashlib, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case
digest = lambda *a: hashlib.sha256(b"".join(np.ascontiguousarray(x).tobytes() for x in a)).hexdigest()[:16]
out = []
for name in ("disk-stack", "quadruped", "compass-gait"):  # (the compass gait's M is a planar model's)
    p, h, N = problem_case(name)
    s = sample_post_impact_set(p, 256, h, N, seed=3, n_jobs=1, completeness=False)
    L = np.linalg.cholesky(p.M)
    numpy_y = np.linalg.solve(L, p.Jbar.T)
    out += [digest(p.M, p.Jn, p.Jt, p.v), digest(p.W_unit, p.Minv_JbarT, p.psi, p.colliding_tol),
            digest(s.all_velocities, s.kept), "numpy:" + digest(numpy_y.T @ numpy_y, np.linalg.norm(numpy_y, 2))]
print(" ".join(out))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="OpenBLAS's x86 core types")
def test_a_problems_set_is_the_same_under_every_openblas_kernel(tmp_path):
    """OpenBLAS picks its kernels by the CPU (OPENBLAS_CORETYPE forces one): NumPy's products of a problem's arrays
    differ in their last bits between them, and so did every set (and the compass gait's M).  The fixed-order
    assembly (and the planar model's mass matrix) give one set."""
    root = str(Path(__file__).parents[2])
    runs = {}
    for core in ("", "Nehalem", "Sandybridge"):
        env = dict(os.environ, OPENBLAS_CORETYPE=core, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        done = subprocess.run([sys.executable, "-c", _RUN, root], env=env, capture_output=True, text=True,
                              cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        runs[core] = done.stdout.split()
    ours = {core: [d for d in out if not d.startswith("numpy:")] for core, out in runs.items()}
    assert len({tuple(v) for v in ours.values()}) == 1, ours  # inputs, derived arrays and sets: one answer
    if len({tuple(out) for out in runs.values()}) == 1:
        pytest.skip("this host's OpenBLAS gave NumPy's products the same bits under every core type tried")
