"""Robustness checks on a propagation: does any possible outcome violate a requirement, and which is worst?

A requirement is a ``predicate(outcome) -> bool`` (true when satisfied) and/or
a ``cost(outcome) -> float`` (larger is worse) on post-impact states
(:class:`Outcome`).  :func:`check` reports, for every impact:

* how many outcomes violate the predicate;
* the **extent** of the violating part *as covered*: the fraction of the
  set's occupied cells (the propagation's resolution) that hold a violating
  outcome, so that it does not depend on where the sampler put its samples;
* the **worst** outcome -- the costliest; or, for a requirement that
  measures its violations (:func:`requirement`), the one that violates it
  most, by its own measure and in its unit; or, for a bare predicate, the
  violating outcome farthest from every satisfying one -- with its
  **witness** (the sample index and caps of every impact on its path) and,
  optionally, its replay from the initial state, which reproduces it bit for
  bit.  Beside a cost or a violation, the worst outcome's distance from the
  satisfying outcomes is reported too (in cells of the propagation's
  resolution).

Ready-made requirements, each measuring its violations: :func:`sticks`,
:func:`within`, :func:`below`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["Outcome", "Report", "outcomes", "check", "requirement", "sticks", "within", "below"]


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


#: A replay that lands within this of the saved state (:attr:`Report.replay_gap`) reached the same outcome up to
#: rounding, as a run saved on another CPU does; farther, it reached another.
ROUNDING = 1e-9


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
        Its cost, its violation (a :func:`requirement`'s measure) or, for a
        bare predicate, its scaled distance from the satisfying outcomes.
    witness : list of (impact, branch, sample, caps)
        The lineage that reproduces the worst outcome.
    replayed : bool or None
        Whether replaying the witness gave the same state bit for bit (None: not replayed).
    replay_gap : float or None
        How far the replay landed from the saved state: the largest difference of ``q`` and of ``v``, each
        relative to the saved one's largest entry (0.0: bit for bit; None: not replayed).  A run saved on
        another CPU replays to the CPUs' rounding, not bit for bit (the flows between impacts are NumPy's
        and SciPy's): a ``compass-walker --impacts 3`` run saved under another OpenBLAS kernel replayed to
        6e-16-2e-15 of its states, and the same command's states differed by up to 4e-13 after two of the
        rocking block's impacts (``bench/trajectory-cpus.log``).
    measure : str
        What ``worst_value`` is: ``"cost"``, ``"violation (UNIT)"`` or ``"distance (cells)"``.
    distance : float or None
        The worst violator's distance from every satisfying outcome, in cells
        (inf-norm over the scaled state; inf where nothing satisfies).
    missed : dict or None
        How complete the impact's set is, by its held-out estimate (the
        largest over its branches, :meth:`reach.analysis.propagate.ImpactSet.missed`):
        ``outside_2pct``, the share of held-out outcomes farther than 2 % of
        ``|vn0|`` from the set, and ``max_fraction``, the farthest, in ``|vn0|``.
        None where no estimate was made.  A check that finds no violation
        proves nothing about outcomes the set missed.
    cover_radius : float
        How far (in cells) the states carried on to the next impact leave
        any outcome of this one; above 1, later impacts start from fewer
        states than the set holds at the propagation's resolution.
    """

    impact: int
    outcomes: int
    violating: int
    extent: float
    worst: int | None
    worst_value: float | None
    witness: list
    replayed: bool | None
    measure: str = "distance (cells)"
    distance: float | None = None
    missed: dict | None = None
    cover_radius: float = 0.0
    replay_gap: float | None = None

    def replay_verdict(self):
        """How the witness's replay went: ``"bit for bit"``, ``"rounding"`` (within :data:`ROUNDING` of the
        saved state, as on another CPU), ``"differs"``, or None where it was not replayed."""
        if self.replayed is None:
            return None
        if self.replayed:
            return "bit for bit"
        return "rounding" if self.replay_gap is not None and self.replay_gap <= ROUNDING else "differs"


def requirement(violation, *, unit, name=None):
    """A requirement that measures its violations: satisfied where ``violation(outcome) <= 0``.

    ``violation(outcome) -> float`` is how far an outcome is from acceptable,
    in ``unit`` (positive: violated by that much).  :func:`check` then calls
    the outcome of largest violation the worst.  The result is an ordinary
    predicate (``predicate(outcome) -> bool``) carrying ``violation`` and
    ``unit``.
    """
    def predicate(outcome):
        return bool(float(violation(outcome)) <= 0.0)
    predicate.violation, predicate.unit = violation, unit
    predicate.__name__ = name or getattr(violation, "__name__", "requirement")
    return predicate


def _cells(propagation, k):
    record, s = propagation.impacts[k - 1], propagation.settings
    z = np.hstack([record.q[record.branch] / s.resolution_q, record.v / s.resolution])
    # cells centred on zero, as the completeness estimate's: a velocity that is zero up to round-off of
    # either sign (a contact at rest) stays in one cell, whatever the units
    _, cell = np.unique(np.floor(z + 0.5).astype(np.int64), axis=0, return_inverse=True)
    return z, cell.ravel()


def _distance(z, bad, j):
    """Point ``j``'s distance (inf-norm, scaled) from every satisfying point (inf if none)."""
    good = z[~bad]
    return float(np.min(np.max(np.abs(good - z[j]), axis=1))) if len(good) else float("inf")


def _deepest(z, bad):
    """The violating point farthest (inf-norm, scaled) from every satisfying one, and that distance."""
    best, where = -1.0, None
    for j in np.flatnonzero(bad):
        d = _distance(z, bad, j)
        if d > best:
            best, where = d, int(j)
    return where, best


def _worst(items, bad, z, predicate, cost):
    """``(worst index, its value, what the value measures)`` of one impact (see :func:`check`)."""
    if cost is not None:
        values = np.array([float(cost(o)) for o in items])
        pool = np.flatnonzero(bad) if bad.any() else np.arange(len(items))
        worst = int(pool[np.argmax(values[pool])])
        return worst, float(values[worst]), "cost"
    if not bad.any():
        return None, None, "distance (cells)"
    violation = getattr(predicate, "violation", None)
    if violation is None:
        return (*_deepest(z, bad), "distance (cells)")
    pool = np.flatnonzero(bad)
    values = np.array([float(violation(items[j])) for j in pool])
    worst = int(pool[np.argmax(values)])
    return worst, float(values.max()), f"violation ({predicate.unit})"


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
        worst, value, measure = _worst(items, bad, z, predicate, cost)
        distance = _distance(z, bad, worst) if worst is not None and bad[worst] else None
        witness, replayed, gap = [], None, None
        if worst is not None:
            witness = propagation.lineage(k, worst)
            if replay:
                t, q, v = propagation.replay(k, worst)
                replayed = bool(np.array_equal(v, items[worst].v) and np.array_equal(q, items[worst].q))
                gap = 0.0 if replayed else max(_relative_gap(q, items[worst].q), _relative_gap(v, items[worst].v))
        record = propagation.impacts[k - 1]
        reports.append(Report(k, len(items), int(bad.sum()), float(extent), worst, value, witness, replayed,
                              measure, distance, record.missed(), float(record.radius), gap))
    return reports


def _relative_gap(replayed, saved):
    """The largest difference of two states, relative to the saved one's largest entry (inf: another shape)."""
    replayed, saved = np.asarray(replayed, float), np.asarray(saved, float)
    if replayed.shape != saved.shape:
        return math.inf
    return float(np.abs(replayed - saved).max() / max(np.abs(saved).max(), np.finfo(float).tiny))


def sticks(name, *, tol=1e-6):
    """Requirement: contact ``name`` neither lifts nor slides after the impact (within tol of ``max |v_pre|``).

    Its violation: the contact's largest velocity component beyond that tolerance (m/s).
    """
    def violation(outcome):
        scale = max(float(np.max(np.abs(outcome.v_pre))), 1e-12)
        return float(np.max(np.abs(outcome.contact(name)))) - tol * scale
    return requirement(violation, unit="m/s", name=f"sticks({name!r})")


def within(v_assumed, radius):
    """Requirement: ``|v - v_assumed|_2 < radius`` after the impact; its violation: ``|v - v_assumed| - radius``."""
    v_assumed = np.asarray(v_assumed, dtype=float)

    def predicate(outcome):
        return bool(np.linalg.norm(outcome.v - v_assumed) < radius)
    predicate.violation = lambda outcome: float(np.linalg.norm(outcome.v - v_assumed) - radius)
    predicate.unit = "velocity units"
    predicate.__name__ = f"within({radius:g})"
    return predicate


def below(function, level):
    """Requirement: ``function(q, v) <= level`` after the impact (e.g. a Lyapunov function).

    Its violation: ``function(q, v) - level``, in the function's unit.
    """
    def violation(outcome):
        return float(function(outcome.q, outcome.v)) - level
    return requirement(violation, unit="the function's unit",
                       name=f"below({getattr(function, '__name__', 'V')}, {level:g})")
