"""One hop of Lemke's walk inside a sampled step: the solutions random covering vectors never reach.

Lemke's method ends at a solution of index +1, whatever its covering vector,
so with random covering vectors a step's solutions of index -1 never enter the
set (:mod:`reach.analysis.walk`).  ``solution_choice="walk"`` follows one hop
of that walk inside the sampler: after the step's Lemke solve (dense tableau,
:func:`reach.kernels.routh.robust_step`), z0 re-enters the final basis with a
second covering vector, drawn from its own stream, and Lemke's path is
followed to its other end.  That end is the primary ray, or another solution:
of index -1 or +1.  If it is a solution that verifies against the data and
passes the step's certificate (Theorem 7, the cone), with a v' apart from the
first solve's, the step takes it.  The hop is drawn at half the steps, so
where it lands the step takes either solution with probability 1/2.

It is a search, not an enumeration: a step with k distinct v' is not resolved
uniformly among all k, as ``solution_choice="exact"`` resolves a planar step.
What it buys is reach: every v' a hop can find has a positive probability.
On spatial problems, and on planar ones with more contacts than exact choice
can afford, it is the only choice that reaches solutions of index -1.  The
cost is a second path at half the steps (the hop is drawn at half of them:
a hash of seed, sample and step).

Not the default anywhere: a hop starts at a degenerate vertex (a solution
has many basic values at zero), and on the disk stack the path it takes
there depends on round-off, so a change of mass unit sends 0.1-0.7 % of the
samples down another branch (the same set, drawn differently; SPEC section 7
asks for the same samples up to rounding).  Tie tolerances from 1e-12 to 1e-4
and a fresh tableau did not remove it (docs/guide/model.md).

Kernels take the work arrays of :class:`reach.kernels.routh_data.StepWork`.
"""

from __future__ import annotations

from reach.kernels.jit import kernel
from reach.kernels.lcp import follow_path
from reach.kernels.routh_data import apply_impulse, certified
from reach.kernels.rng import PICK_STREAM, WALK_STREAM, hashed_uniform, log_uniform_fill, stream_state
from reach.kernels.verify import refine_and_verify, tableau_refine, verify_tableau

__all__ = ["hop_step", "SAME_RTOL"]

#: Two v' are the same where every velocity differs by at most this share of the largest of v's.
SAME_RTOL = 1e-9


@kernel
def hop_step(data, v, lam, opts, work, sample, step, v_next):
    """Hop on from a solved step; returns ``(paths, hopped, residual)``: paths followed (0 or 1), whether ``v_next`` changed, and its residual.

    Call right after a solve of this step by the dense tableau: ``work.lemke.T``
    and ``work.lemke.basis`` hold its final basis, ``work.q`` and
    ``work.lemke.qs`` its data and ``v_next`` its v'.  Where the step needed no
    impulse (``q >= 0``) there is nothing to hop from.  A tableau that the
    solve's own LU re-solve overwrote gives a hop that fails, or ends at some
    other basis; either way only a solution verified against the data (residual
    at most ``opts.lemke.verify_tol``) and :func:`certified` is taken.
    """
    lemke = work.lemke
    T, basis, qs, d = lemke.T, lemke.basis, lemke.qs, work.d
    n = qs.shape[0]
    sigma = 0.0
    for i in range(n):
        sigma = max(sigma, -qs[i])
    if not sigma > 0.0 or hashed_uniform(opts.seed, PICK_STREAM, sample, step) < 0.5:
        return 0, False, 0.0
    log_uniform_fill(d, opts.covering_ratio, stream_state(opts.seed, WALK_STREAM, sample), step * n)
    for i in range(n):  # z0's column for the new covering vector, in the final basis: -B^-1 d
        acc = 0.0
        for j in range(n):
            acc += T[i, j] * d[j]
        T[i, 2 * n] = -acc
    status, _ = follow_path(T, basis, 2 * n, sigma, opts.lemke, opts.lemke.max_pivots)
    if status != 0:
        return 1, False, 0.0
    lcp = data.lcp
    tableau_refine(lcp.MsT, qs, d, T, basis, lemke.r)  # as the solve verifies: the tableau's B^-1 first, then LU
    res = verify_tableau(lcp.MT, work.q, T, basis, work.z, work.w, lcp.row_scale, lcp.col_scale)
    if not res <= opts.lemke.verify_tol:
        res = refine_and_verify(lcp, work.q, qs, d, T[:, n:2 * n], T[:, 2 * n], T[:, 2 * n + 1], basis, work.z,
                                work.w)
    m = data.Jn.shape[0]
    if not res <= opts.lemke.verify_tol or not certified(lcp.M, work.q, work.z, work.w, m, data.Jbar.shape[0],
                                                         opts):
        return 1, False, 0.0
    other = work.distinct[0]
    apply_impulse(data.Minv_JbarT, m, work.z, v, other)
    vscale = 1e-300
    gap = 0.0
    for j in range(v.shape[0]):
        vscale = max(vscale, abs(v[j]))
        gap = max(gap, abs(other[j] - v_next[j]))
    if gap <= SAME_RTOL * vscale:
        return 1, False, 0.0
    for j in range(v.shape[0]):
        v_next[j] = other[j]
    return 1, True, res
