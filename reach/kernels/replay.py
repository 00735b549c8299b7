"""Replaying Routh steps, for timing the step solver alone (``reach bench``).

:func:`solve_steps` solves recorded steps (velocity, caps, covering vector)
again, so the bench can time the solver on the steps real samples take (the
sampler's stored paths give them) and compare it with another solver on the
same inputs.
"""

from __future__ import annotations


from reach.kernels.jit import kernel
from reach.kernels.routh import routh_step_kernel

__all__ = ["solve_steps"]


@kernel
def solve_steps(data, opts, work, V_rec, lam_rec, d_rec, start, stop, V_next, status_out):
    """Solve the recorded steps ``start .. stop - 1``; fill ``V_next``, ``status_out``; return total pivots."""
    pivots = 0
    for k in range(start, stop):
        status, piv, _ = routh_step_kernel(data, V_rec[k], lam_rec[k], d_rec[k], opts, opts.lemke, work, V_next[k])
        status_out[k] = status
        pivots += piv
    return pivots
