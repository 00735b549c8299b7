"""Seghete & Murphey's propagative model of simultaneous impact: one outcome per order of reflections.

A simultaneous impact is resolved as a sequence of single-contact impacts,
each against one contact normal ``u`` (a row of ``Jn``), in the kinetic-energy
metric (their eq. 7, with a coefficient of restitution ``e``):

    ``v <- v - (1 + e) (u . v) / (u M^-1 u^T) M^-1 u^T``

(``e = 1``: their reflection ``Gamma(u)``, elastic, energy conserved; ``0 < e < 1``:
inelastic).  At each stage any contact that still approaches (``u . v < 0``)
may be resolved next; the sequence stops when none approaches (their
minimality condition: nothing is applied to a feasible momentum, and no
contact twice in a row).  Every such order is followed, depth first, up to
``max_reflections`` reflections; the distinct final velocities are the
model's outcomes (eq. 14).  The perfectly plastic impact (``e = 0``) is their
eq. 11, unique: the M-orthogonal projection of v onto ``Jn v = 0``.

Friction is not part of this model (the paper treats frictionless impacts);
only ``Jn`` and ``M`` of the problem are used.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["propagative", "PropagativeResult", "indeterminacy", "plastic_projection"]


class PropagativeResult(NamedTuple):
    """The outcomes of the propagative model.

    Attributes
    ----------
    velocities : ndarray (k, nv)
        The distinct outcomes.
    sequences : list of tuple of int
        For each outcome, one order of contacts that produces it (contact indices).
    orders : int
        Orders followed to their end.
    complete : bool
        False when some order was cut at ``max_reflections`` (its outcome is not included).
    """

    velocities: np.ndarray
    sequences: list
    orders: int
    complete: bool


def plastic_projection(problem):
    """The perfectly plastic outcome (their eq. 11): v minus its M-orthogonal component along the normals."""
    Jn = problem.Jn
    Minv_JnT = np.linalg.solve(problem.M, Jn.T)
    impulse = np.linalg.lstsq(Jn @ Minv_JnT, -Jn @ problem.v, rcond=None)[0]
    return problem.v + Minv_JnT @ impulse


def propagative(problem, restitution=1.0, *, max_reflections=64, tol=1e-12, max_orders=100_000):
    """Every outcome of the propagative model for ``problem`` (see the module docstring).

    Parameters
    ----------
    problem : ImpactProblem
    restitution : float
        Coefficient of restitution e in [0, 1]; 0 gives the unique plastic outcome.
    max_reflections : int
        Longest order followed; longer ones are cut (``complete`` is then False).
    tol : float
        A contact approaches if ``Jn v < -tol |vn0|``.
    max_orders : int
        Most orders followed (a guard against exponential blow-up); exceeding it raises.

    Returns
    -------
    PropagativeResult
    """
    e = float(restitution)
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"`restitution` must be in [0, 1]; got {restitution!r}.")
    if e == 0.0:
        return PropagativeResult(plastic_projection(problem)[None], [tuple(range(problem.m))], 1, True)
    Jn = problem.Jn
    Minv_JnT = np.linalg.solve(problem.M, Jn.T)
    g = np.einsum("ij,ji->i", Jn, Minv_JnT)
    scale = float(np.max(np.abs(Jn @ problem.v)))
    threshold = -tol * max(scale, 1e-300)
    outcomes, sequences, orders, complete = [], [], 0, True
    stack = [(problem.v.copy(), ())]
    while stack:
        v, order = stack.pop()
        vn = Jn @ v
        closing = [i for i in np.flatnonzero(vn < threshold) if not order or i != order[-1]]
        if not closing:
            orders += 1
            if orders > max_orders:
                raise ValueError(f"more than {max_orders:,} reflection orders; lower `max_reflections`.")
            if not any(np.max(np.abs(v - w)) <= 1e-9 * max(scale, 1.0) for w in outcomes):
                outcomes.append(v)
                sequences.append(order)
            continue
        if len(order) >= max_reflections:
            complete = False
            continue
        for i in reversed(closing):
            stack.append((v - (1.0 + e) * vn[i] / g[i] * Minv_JnT[:, i], order + (int(i),)))
    return PropagativeResult(np.array(outcomes).reshape(-1, problem.nv), sequences, orders, complete)


def indeterminacy(problem, outcomes):
    """Their xi: the largest KE-metric distance between two outcomes over the pre-impact momentum's norm.

    ``xi = |p_1 - p_2|_g / |p_0|_g`` with ``|p|_g^2 = p M^-1 p^T = v^T M v`` (0 for a single outcome).
    """
    V = np.asarray(outcomes, dtype=float).reshape(-1, problem.nv)
    if len(V) < 2:
        return 0.0
    L = np.linalg.cholesky(problem.M)
    W = V @ L
    diffs = W[:, None, :] - W[None, :, :]
    return float(np.sqrt(np.max(np.einsum("ijk,ijk->ij", diffs, diffs))) / np.sqrt(problem.v @ problem.M @ problem.v))
