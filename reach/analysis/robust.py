"""Robustness checks on a propagation: does any possible outcome violate a requirement, and which is worst?

A requirement is a ``predicate(outcome) -> bool`` (true when satisfied) and/or
a ``cost(outcome) -> float`` (larger is worse) on post-impact states
(:class:`Outcome`).  :func:`check` reports, for every impact:

* how many outcomes violate the predicate;
* the **extent** of the violating part *as covered*: the fraction of the
  set's occupied cells (the propagation's resolution) that hold a violating
  outcome, so that it does not depend on where the sampler put its samples;
* the **worst** outcome -- the costliest, or without a cost the violating
  outcome farthest from every satisfying one -- with its **witness** (the
  sample index and caps of every impact on its path) and, optionally, its
  replay from the initial state, which reproduces it bit for bit.

Ready-made requirements: :func:`sticks`, :func:`within`, :func:`below`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Outcome", "Report", "outcomes", "check", "sticks", "within", "below"]


class Outcome(NamedTuple):
    """One possible post-impact state of a propagation.

    Attributes
    ----------
    impact, index : int
        Impact number (1-based) and the outcome's index there.
    t : float
    q, v, v_pre : ndarray
        Configuration, post- and pre-impact velocity.
    contact_names : tuple of str
        Every contact candidate of the system.
    contact_velocities : ndarray (p, 2) or (p, 3)
        Normal and tangential velocity (one or two tangent components) of each
        candidate after the impact.
    touching : ndarray of bool (p,)
        Candidates in the impact.
    """

    impact: int
    index: int
    t: float
    q: np.ndarray
    v: np.ndarray
    v_pre: np.ndarray
    contact_names: tuple
    contact_velocities: np.ndarray
    touching: np.ndarray

    def contact(self, name):
        """``(normal, tangential)`` velocity of contact ``name`` after the impact."""
        return self.contact_velocities[self.contact_names.index(name)]


def outcomes(propagation, k):
    """Every :class:`Outcome` of impact k."""
    record = propagation.impacts[k - 1]
    for j in range(len(record.v)):
        b = int(record.branch[j])
        names, cv, touching = propagation.contact_state(k, b, record.v[j])
        yield Outcome(k, j, float(record.t[b]), record.q[b], record.v[j], record.v_pre[b], names, cv, touching)


class Report(NamedTuple):
    """What :func:`check` found at one impact.

    Attributes
    ----------
    impact, outcomes, violating : int
    extent : float
        Fraction of the set's occupied cells holding a violating outcome.
    worst : int or None
        Index of the worst outcome (None: nothing violates and no cost was given).
    worst_value : float or None
        Its cost (or, for a predicate alone, its scaled distance from the satisfying outcomes).
    witness : list of (impact, branch, sample, caps)
        The lineage that reproduces the worst outcome.
    replayed : bool or None
        Whether replaying the witness gave the same state bit for bit (None: not replayed).
    """

    impact: int
    outcomes: int
    violating: int
    extent: float
    worst: int | None
    worst_value: float | None
    witness: list
    replayed: bool | None


def _cells(propagation, k):
    record, s = propagation.impacts[k - 1], propagation.settings
    z = np.hstack([record.q[record.branch] / s.resolution_q, record.v / s.resolution])
    _, cell = np.unique(np.floor(z).astype(np.int64), axis=0, return_inverse=True)
    return z, cell.ravel()


def _deepest(z, bad):
    """The violating point farthest (inf-norm, scaled) from every satisfying one, and that distance."""
    good = z[~bad]
    if not len(good):
        return int(np.flatnonzero(bad)[0]), float("inf")
    best, where = -1.0, None
    for j in np.flatnonzero(bad):
        d = float(np.min(np.max(np.abs(good - z[j]), axis=1)))
        if d > best:
            best, where = d, int(j)
    return where, best


def _verdict(predicate, outcome):
    """``predicate(outcome)``, refused unless it is a boolean (``None`` or a number is not an answer)."""
    answer = predicate(outcome)
    if not isinstance(answer, (bool, np.bool_)):
        name = getattr(predicate, "__name__", repr(predicate))
        raise TypeError(f"the predicate {name} returned {answer!r} ({type(answer).__name__}); "
                        "it must return True (satisfied) or False.")
    return bool(answer)


def check(propagation, predicate=None, cost=None, *, replay=True):
    """Check every impact of ``propagation`` against ``predicate`` and/or ``cost``; a list of :class:`Report`.

    ``predicate(outcome)`` must return a boolean (a TypeError otherwise: an
    answer of ``None`` must not count as a violation).
    """
    if predicate is None and cost is None:
        raise ValueError("give a `predicate` (true when satisfied), a `cost` (larger is worse), or both.")
    reports = []
    for k in range(1, len(propagation.impacts) + 1):
        items = list(outcomes(propagation, k))
        ok = np.array([_verdict(predicate, o) for o in items]) if predicate is not None else np.ones(len(items), bool)
        bad = ~ok
        z, cell = _cells(propagation, k)
        extent = len(np.unique(cell[bad])) / max(len(np.unique(cell)), 1)
        worst, value = None, None
        if cost is not None:
            values = np.array([float(cost(o)) for o in items])
            pool = np.flatnonzero(bad) if bad.any() else np.arange(len(items))
            worst = int(pool[np.argmax(values[pool])])
            value = float(values[worst])
        elif bad.any():
            worst, value = _deepest(z, bad)
        witness, replayed = [], None
        if worst is not None:
            witness = propagation.lineage(k, worst)
            if replay:
                t, q, v = propagation.replay(k, worst)
                replayed = bool(np.array_equal(v, items[worst].v) and np.array_equal(q, items[worst].q))
        reports.append(Report(k, len(items), int(bad.sum()), float(extent), worst, value, witness, replayed))
    return reports


def sticks(name, *, tol=1e-6):
    """Requirement: contact ``name`` neither lifts nor slides after the impact (within tol of ``|v_pre|``)."""
    def predicate(outcome):
        scale = max(float(np.max(np.abs(outcome.v_pre))), 1e-12)
        return bool(np.all(np.abs(outcome.contact(name)) <= tol * scale))
    predicate.__name__ = f"sticks({name!r})"
    return predicate


def within(v_assumed, radius):
    """Requirement: ``|v - v_assumed|_2 < radius`` after the impact."""
    v_assumed = np.asarray(v_assumed, dtype=float)

    def predicate(outcome):
        return bool(np.linalg.norm(outcome.v - v_assumed) < radius)
    predicate.__name__ = f"within({radius:g})"
    return predicate


def below(function, level):
    """Requirement: ``function(q, v) <= level`` after the impact (e.g. a Lyapunov function)."""
    def predicate(outcome):
        return bool(function(outcome.q, outcome.v) <= level)
    predicate.__name__ = f"below({getattr(function, '__name__', 'V')}, {level:g})"
    return predicate
