"""Recording and replaying Routh steps, for timing the step solver alone (``reach bench``).

:func:`record_steps` runs Algorithm 1 as the sampler does (same caps, same
covering vectors) and records every step's inputs; :func:`solve_steps`
solves recorded steps again, so the bench can time the solver on the steps
real samples take, and compare it with another solver on the same inputs.
"""

from __future__ import annotations

import numba as nb

from reach.kernels.routh import CHOICE_RANDOM, colliding, fill_covering, routh_step_kernel

__all__ = ["record_steps", "solve_steps"]


@nb.njit(cache=True)
def record_steps(data, opts, P, work, V_rec, lam_rec, d_rec):
    """Run Algorithm 1 on the caps ``P`` (S, N, m) and record every step's inputs.

    Each step uses the covering vector the sampler's first try would use
    (random choice, keyed by the seed, sample and step).  Fills ``V_rec``
    (K, nv), ``lam_rec`` (K, m) (caps in velocity units) and ``d_rec`` (K, n)
    until full; returns the number of steps recorded.
    """
    m = data.Jn.shape[0]
    v, v_next, lam, d = work.v, work.v_next, work.lam, work.d
    k = 0
    for s in range(P.shape[0]):
        v[:] = data.v0
        step = 0
        while step < P.shape[1] and colliding(data.Jn, v, opts.colliding_tol):
            if k >= V_rec.shape[0]:
                return k
            for i in range(m):
                lam[i] = opts.h * P[s, step, i]
            fill_covering(d, CHOICE_RANDOM, opts.covering_ratio, opts.seed, s, step, 0)
            V_rec[k] = v
            lam_rec[k] = lam
            d_rec[k] = d
            k += 1
            status, _, _ = routh_step_kernel(data, v, lam, d, opts, work, v_next)
            if status != 0:
                break
            v[:] = v_next
            step += 1
    return k


@nb.njit(cache=True)
def solve_steps(data, opts, work, V_rec, lam_rec, d_rec, start, stop, V_next, status_out):
    """Solve the recorded steps ``start .. stop - 1``; fill ``V_next``, ``status_out``; return total pivots."""
    pivots = 0
    for k in range(start, stop):
        status, piv, _ = routh_step_kernel(data, V_rec[k], lam_rec[k], d_rec[k], opts, work, V_next[k])
        status_out[k] = status
        pivots += piv
    return pivots
