"""Why contact modes miss v' on the disk stack: the pieces those v' lie on are singular.

    PYTHONPATH=. python3 bench/modes_singular.py [COUNT]

For the steps of the choice probe's pilot (as bench/modes_gap.py), each v' that the
walk of reach.analysis.walk finds and the contact modes do not (up to COUNT, default
12): its impulses (from the walk's verified LCP solution), every contact mode
consistent with them (tolerance 1e-7), the rank of each such piece's equations
(2 m of them), and how far a unit impulse along the piece's null vector moves v'.
A rank below 2 m with a null vector that moves v' means a line of solutions whose
v' vary: a segment of outcomes, which the enumeration (it skips singular pieces,
reach.kernels.planar.piece_holds) never reaches.
"""
import itertools
import sys

import numpy as np

import reach.analysis.walk as walk
import scenarios
from reach.problem.step import kernel_data, mode_velocities
from reach.sampling.choice import _pilot_steps

count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
s = scenarios.get("disk-stack")
p, m, g = s.problem, s.problem.m, s.problem.mass_scale
data = kernel_data(p)
V, L = _pilot_steps(p, data, s.h, s.N, 128)
scale = np.abs(p.contact_velocities(p.v)).max()
Minv, Jn, Jt, nb = np.linalg.inv(p.M), p.Jn, p.Jt, p.Jbar.shape[0]
Wnn, Wnt, Wtn, Wtt = Jn @ Minv @ Jn.T, Jn @ Minv @ Jt.T, Jt @ Minv @ Jn.T, Jt @ Minv @ Jt.T
sign = np.array([[1.0 if np.allclose(p.Jbar[r], Jt[i]) else -1.0 if np.allclose(p.Jbar[r], -Jt[i]) else 0.0
                  for r in range(m, nb)] for i in range(m)])  # friction rows of Jbar -> tangential impulse

solutions = []  # every basis solution the walk re-solves (scaled), recorded beside its own use
_solution = walk._solution


def recording(T, Ms, qs, basis):
    z = _solution(T, Ms, qs, basis)
    solutions.append(None if z is None else data.lcp.col_scale * z)
    return z


walk._solution = recording


def modes_of(ln, lt, vn, vt, cap, mu, tol=1e-7):
    """The modes (0 none; 1-3 capped, 4-6 free; stick, slide +, slide -) consistent with one contact's state."""
    out = [0] if abs(ln) <= tol * cap and abs(lt) <= tol * cap and vn >= -tol * scale else []
    for base, normal in ((1, abs(ln - cap) <= tol * cap and vn <= tol * scale),
                         (4, abs(vn) <= tol * scale and -tol * cap <= ln <= cap * (1 + tol))):
        if normal:
            out += [base] if abs(vt) <= tol * scale and abs(lt) <= mu * ln + tol * cap else []
            out += [base + 1] if abs(lt + mu * ln) <= tol * cap and vt >= -tol * scale else []
            out += [base + 2] if abs(lt - mu * ln) <= tol * cap and vt <= tol * scale else []
    return out


def piece(modes, cap, vn0, vt0, mu):
    """The piece's equations ``A (lambda_n, lambda_t) = b`` (impulses, kg m/s)."""
    A, b = np.zeros((2 * m, 2 * m)), np.zeros(2 * m)
    for i, mode in enumerate(modes):
        if mode == 0:
            A[i, i] = A[m + i, m + i] = 1.0
            continue
        if mode <= 3:
            A[i, i], b[i] = 1.0, cap[i]
        else:
            A[i, :m], A[i, m:], b[i] = Wnn[i], Wnt[i], -vn0[i]
        kind = (mode - 1) % 3
        if kind == 0:
            A[m + i, :m], A[m + i, m:], b[m + i] = Wtn[i], Wtt[i], -vt0[i]
        else:
            A[m + i, m + i], A[m + i, i] = 1.0, mu[i] if kind == 1 else -mu[i]
    return A, b


shown = 0
for k, (v, lam) in enumerate(zip(V, L)):
    caps = lam / g
    found = mode_velocities(p, v, caps)[0]
    solutions.clear()
    walked = walk.walk_solutions(p, v, caps, hops=64, seed=k)
    if len(found) == 0:
        continue
    cm = p.contact_velocities(found).reshape(len(found), -1)
    c0 = p.contact_velocities(v)
    for u in walked:
        cu = p.contact_velocities(u).reshape(-1)
        if np.abs(cm - cu).max(axis=1).min() <= 1e-6 * scale:
            continue
        for z in solutions:
            lb = None if z is None else z[m:m + nb] / g
            if lb is not None and np.abs(p.contact_velocities(v + p.Minv_JbarT @ lb).reshape(-1) - cu).max() <= 1e-6 * scale:
                break
        ln, lt = lb[:m], sign @ lb[m:]
        cv = p.contact_velocities(u)
        options = [modes_of(ln[i], lt[i], cv[i, 0], cv[i, 1], caps[i], p.mu[i]) for i in range(m)]
        rows = []
        for modes in itertools.product(*options):
            A, b = piece(modes, caps, c0[:, 0], c0[:, 1], p.mu)
            rank = np.linalg.matrix_rank(A, tol=1e-9 * np.abs(A).max())
            null = np.linalg.svd(A)[2][-1]
            moves = np.abs(Minv @ (Jn.T @ null[:m] + Jt.T @ null[m:])).max()
            rows.append(f"modes {modes}: rank {rank} of {2 * m}, residual {np.abs(A @ np.concatenate([ln, lt]) - b).max():.1e}, "
                        f"null vector moves v' by {moves:.2e} m/s per kg m/s")
        print(f"step {k}: lambda_n / cap {np.round(ln / caps, 3)}; " + "; ".join(rows), flush=True)
        shown += 1
    if shown >= count:
        break
