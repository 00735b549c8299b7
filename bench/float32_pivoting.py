"""Float32 pivoting, measured without a device: does Lemke's path in single precision end where float64's does?

Issue 40 (item 3) asks whether float32 pivoting, refined and verified in
float64, could keep the CPU's sets on a GPU.  Refinement can only polish the
basis a path ends on, so the question is whether the float32 path ends on
float64's basis, or on one with the same post-impact velocity.  This runs the
CPU's revised Lemke kernel (``reach.kernels.warp.cpu_lemke_batch``) on each
case's recorded Routh-step LCPs, once with float64 arrays (the sampler's) and
once with every float array in float32 (Numba compiles the kernel again for
them: each stored value is rounded to single precision), with float64's
tolerances and with tolerances scaled for single precision; and, for scale,
float64 with other ratio-tie tolerances.  For each: the share solved, the
share ending on float64's basis, and ``|v' - v'_64| / max|v'_64|`` after the
best refinement there is, the final basis solved again in float64 by LU
(``v' = v + M^-1 Jbar^T lambda``; the Delassus block is singular from two
contacts on, so two bases can give the same ``v'``); a basis whose float64
values are negative beyond 1e-9 of their largest counts as failed.

    PYTHONPATH=. python bench/float32_pivoting.py [--lcps 4096]
"""

import argparse
from types import SimpleNamespace

import numpy as np

from reach.kernels.lcp import LemkeWork, make_work
from reach.kernels.routh_data import fill_q
from reach.kernels.warp import cpu_lemke_batch
from reach.tools.bench import Recorded
from reach.tools.bench_gpu import problem_case


def recorded(label, count):
    """A case's recorded steps: (problem, data, V, Q scaled, D, Lemke's options)."""
    problem, h, N = problem_case(label)
    rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), count)
    Q = np.empty((rec.V.shape[0], rec.n))
    for k, (v, lam) in enumerate(zip(rec.V, rec.lam)):
        fill_q(rec.data.Jbar, problem.m, v, lam, Q[k])
        Q[k] *= rec.data.lcp.row_scale
    return problem, rec.data, rec.V, Q, np.ascontiguousarray(rec.d), rec.options.lemke


def solve(data, Q, D, opts, dtype):
    """(status, basis, z) of each LCP with every float array in ``dtype``."""
    K, n = Q.shape
    work = LemkeWork(*[a.astype(dtype) if a.dtype == np.float64 else a for a in make_work(n)])
    status, pivots = np.empty(K, np.int64), np.empty(K, np.int64)
    X, B = np.empty((K, n), dtype), np.empty((K, n), np.int64)
    cpu_lemke_batch(data.lcp.MsT.astype(dtype), Q.astype(dtype), D.astype(dtype), opts, work, np.empty(n, dtype),
                    status, pivots, X, B)
    return status, np.sort(B, axis=1), resolved(data, Q, D, B)


def resolved(data, Q, D, B):
    """``z`` (K, n) of each final basis ``B`` solved again in float64 by LU, NaN where its values are negative."""
    K, n = Q.shape
    Ms = data.lcp.MsT.T
    columns = np.concatenate([np.eye(n), -Ms], axis=1)  # the columns of w and z; z0's is -d, per LCP
    basis = np.where(B < 2 * n, B, 0)
    mats = np.transpose(columns[:, basis], (1, 0, 2))  # mats[k][:, c]: the column of basic variable B[k, c]
    rows, cols = np.nonzero(B == 2 * n)
    mats[rows, :, cols] = -D[rows]
    x = np.full((K, n), np.nan)
    for k in range(K):
        try:
            x[k] = np.linalg.solve(mats[k], Q[k])
        except np.linalg.LinAlgError:  # a singular basis (an unsolved path)
            pass
    bad = ~(x >= -1e-9 * np.abs(x).max(axis=1, keepdims=True)).all(axis=1)
    Z = np.zeros((K, n))
    rows, cols = np.nonzero((B >= n) & (B < 2 * n))
    Z[rows, B[rows, cols] - n] = x[rows, cols] * data.lcp.col_scale[B[rows, cols] - n]
    Z[bad] = np.nan
    return Z


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lcps", type=int, default=4096)
    args = parser.parse_args()
    single = dict(pivot_tol=1e-5, tie_tol=1e-4, zero_tol=1e-6)
    for label in ("rocking-block", "disk-stack", "quadruped"):
        problem, data, V, Q, D, opts = recorded(label, args.lcps)
        m, nb = problem.m, data.Jbar.shape[0]
        status64, basis64, Z64 = solve(data, Q, D, opts, np.float64)
        v64 = V + Z64[:, m:m + nb] @ data.Minv_JbarT.T
        scale = np.abs(v64).max(axis=1)
        print(f"{label}: n = {Q.shape[1]}, {len(Q):,d} recorded LCPs, float64 solved {np.mean(status64 == 0):.4f}")
        variants = [("float64, ties 1e-9", np.float64, opts._replace(tie_tol=1e-9)),
                    ("float64, ties 1e-12", np.float64, opts._replace(tie_tol=1e-12)),
                    ("float32, float64's tolerances", np.float32, opts),
                    ("float32, tolerances 1e-5/1e-4/1e-6", np.float32, opts._replace(**single))]
        for name, dtype, o in variants:
            status, basis, Z = solve(data, Q, D, o, dtype)
            gap = np.abs(V + Z[:, m:m + nb] @ data.Minv_JbarT.T - v64).max(axis=1) / scale
            gap[(status != 0) | np.isnan(gap)] = np.inf  # unsolved, or a basis no refinement makes feasible
            q = np.quantile(gap[np.isfinite(gap)], [0.5, 0.99, 1.0])
            same_basis = np.mean((basis == basis64).all(axis=1))
            print(f"  {name:36s} solved {np.mean(status == 0):.4f}, float64's basis {same_basis:.4f}, "
                  f"refined v' within 1e-12 {np.mean(gap <= 1e-12):.4f} (of the feasible: median {q[0]:.1e}, "
                  f"99th {q[1]:.1e}, max {q[2]:.1e})", flush=True)


if __name__ == "__main__":
    main()
