"""The Routh step's LCP matrix: how much of it is zero, and the Delassus block's rank (issue 40, item 3).

For each case: the LCP size n, the contacts m, the Delassus block's size nb
(normal and friction directions) and its rank, beside the velocities nv,
and the share of nonzero entries of W (as the kernel stores it, equilibrated)
and of its Delassus block.  Skipping W's zeros can only save work where W is
read (loading an entering column, the residual's ``W z``); the eta file's
vectors, where the revised method spends a solve, are dense.  With ``p``
pivots a solve loads ``p`` columns (``n p`` entries) and its FTRANs pass
about ``n p^2 / 2`` eta entries, so the column loads are about ``2 / p`` of
that work; the table gives the mean pivots of 4,096 recorded LCPs (the CPU's
revised Lemke) and that bound on what skipping W's zeros could save,
``(1 - nonzero share) * 2 / p``.

    PYTHONPATH=. python bench/routh_structure.py
"""

from types import SimpleNamespace

import numpy as np

from reach.kernels.lcp import make_work
from reach.kernels.warp import cpu_lemke_batch
from reach.tools.bench import Recorded
from reach.tools.bench_gpu import problem_case, recorded_lcps

print("| case | n | m | nb | nv | rank of the Delassus block | nonzero in W | nonzero in the Delassus block "
      "| pivots a solve | skipping W's zeros saves at most |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for label in ("rocking-block", "disk-stack", "quadruped"):
    problem, h, N = problem_case(label)
    rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), 64)
    W = rec.data.lcp.MsT.T
    n, m, nb = W.shape[0], problem.m, rec.data.Jbar.shape[0]
    G = W[m:m + nb, m:m + nb]
    lcp, Q, D, opts = recorded_lcps(label, 4096)
    K = len(Q)
    status, pivots = np.empty(K, np.int64), np.empty(K, np.int64)
    cpu_lemke_batch(lcp.MsT, Q, D, opts, make_work(n), np.empty(n), status, pivots, np.empty((K, n)),
                    np.empty((K, n), np.int64))
    p, dense = float(pivots.mean()), np.count_nonzero(W) / W.size
    print(f"| {label} | {n} | {m} | {nb} | {problem.nv} | {np.linalg.matrix_rank(G)} | "
          f"{dense:.0%} | {np.count_nonzero(G) / G.size:.0%} | {p:.1f} | {(1 - dense) * 2 / p:.1%} |")
