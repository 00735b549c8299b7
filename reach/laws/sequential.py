"""Sequential resolution: one contact at a time with the single-contact law (paper §2.2.2).

:func:`sequential` cycles i, i+1, ... from a given first contact, resolving
each colliding contact alone with Anitescu & Potra's law restricted to it,
until the velocity is non-colliding (at most 10 rounds).  The paper plots the
A-first and B-first paths against the set.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.laws.simultaneous import anitescu_potra_lcp, velocity_from
from reach.problem.lcp import lemke

__all__ = ["sequential", "SequentialResult"]


class SequentialResult(NamedTuple):
    """Outcome of :func:`sequential`.

    Attributes
    ----------
    velocity : ndarray, shape (nv,)
        Final velocity.
    path : ndarray, shape (k + 1, nv)
        Pre-impact velocity and the velocity after each single-contact impact.
    order : list of int
        The contact resolved at each impact.
    terminated : bool
        Whether the final velocity is non-colliding (false if the 10-round
        cap was hit).
    """

    velocity: np.ndarray
    path: np.ndarray
    order: list
    terminated: bool


def sequential(problem, first=0, *, max_rounds=10):
    """Resolve contacts one at a time, cycling ``first, first + 1, ...``, until non-colliding.

    Each single impact applies the Anitescu-Potra law restricted to that
    contact (paper §2.2.2); a contact that is not colliding at its turn is
    skipped.  Each round visits every contact once.

    Parameters
    ----------
    problem : ImpactProblem
    first : int or str
        Index or name of the contact resolved first.
    max_rounds : int

    Returns
    -------
    SequentialResult
    """
    if isinstance(first, str):
        if first not in problem.contact_names:
            raise ValueError(f"`first` must be one of {list(problem.contact_names)}; got {first!r}.")
        first = problem.contact_names.index(first)
    if not 0 <= int(first) < problem.m:
        raise ValueError(f"`first` must be a contact index in [0, {problem.m}); got {first!r}.")
    singles = [problem.restricted_to([i]) for i in range(problem.m)]
    v = problem.v.copy()
    path, order = [v.copy()], []
    tol = problem.colliding_tol
    for _ in range(max_rounds):
        for offset in range(problem.m):
            i = (int(first) + offset) % problem.m
            if problem.Jn[i] @ v >= -tol:
                continue
            single = singles[i]
            A, b = anitescu_potra_lcp(single, v)
            res = lemke(A, b)
            if not res.success:
                raise RuntimeError(f"single-contact impact LCP at contact {i} failed: {res.message}")
            v = velocity_from(single, v, res.z[:single.Jbar.shape[0]])
            path.append(v.copy())
            order.append(i)
        if not problem.is_colliding(v):
            break
    return SequentialResult(v, np.array(path), order, not bool(problem.is_colliding(v)))
