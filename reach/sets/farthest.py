"""The farthest outcome a set misses: a search that climbs toward it, for a lower bound that undershoots less.

The held-out search (:mod:`reach.sets.completeness`) draws outcomes as a
sampler does, so its farthest one from the set is a sample of the set's far
side, not its end: on the disk stack it stayed at half of what a reference
16-256 times the set held (docs/guide/complete-sets.md).  This search climbs.
Its first parents are the held-out outcomes farthest from the set; each round
perturbs their caps as directed sampling does (Gaussian noise of scale
``SIGMA * DECAY^r``, each coordinate snapped to 0 or 1 with probability
``SNAP``), runs the children, and keeps the :data:`PARENTS` outcomes farthest
from the set, parents and children together, as the next parents.

Every child's caps are a point of ``[0, 1]^(m N)``, so every child is an
outcome of the same set (SPEC section 7), and the farthest distance it finds
is a distance the set really misses: a lower bound, never an overestimate.
The random numbers are keyed by the held-out search's seed and the round,
and the parents follow from the outcomes, so the same seed gives the same
answer for any workers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.kernels.select import perturbed_caps
from reach.sampling.directed import BLOCK_NUMBERS, QUANT, schedule
from reach.sampling.engine import Plan, caps_of, execute
from reach.sampling.executors import make_executor

__all__ = ["farthest_search", "Climb", "climb_executor", "ROUNDS", "PARENTS", "SIGMA", "DECAY", "SNAP"]

#: Rounds of the climb; each runs an equal share of the budget.
ROUNDS = 8
#: Outcomes farthest from the set kept as the next round's parents.
PARENTS = 8
#: Perturbation scale of round 0, and its factor per round (slower than directed sampling's 0.5: a climb).
SIGMA, DECAY = 0.3, 0.7
#: Probability that a child's cap coordinate is snapped to 0 or 1.
SNAP = 0.1
#: Mixed into the held-out seed for this search's random numbers.
_STREAM = 0xFA27E57


def _caps(held, indices):
    """The held-out run's caps (k, N, m) of samples ``indices``: drawn by index, or a directed child's stored caps
    (``held.child_caps``: it must be run with ``keep_caps=True``)."""
    s = held.settings
    n0, rounds = schedule(s.n_samples)
    children = s.strategy != "uniform" and rounds and np.any(np.asarray(indices) >= n0)
    if children and not hasattr(held, "child_caps"):
        raise ValueError("the held-out search's directed caps were not kept: run it with keep_caps=True.")
    return caps_of(Plan(held.problem, s), indices, held.child_caps if children else [])


def _run(plan, start, Q, executor, keep=None):
    """Run the children of caps ``Q`` (count, N, m) uint16 from sample index ``start``: (velocities, kept).

    ``keep``: an :class:`~reach.sampling.engine.Accumulator` each finished chunk is also added to.
    """
    n = len(Q)
    size = max(1, -(-n // max(1, executor.workers)))
    todo = [(start + a, min(size, n - a), Q[a:a + size]) for a in range(0, n, size)]
    velocities, kept = np.empty((n, plan.problem.nv)), np.empty(n, dtype=bool)
    for chunk in execute(plan, todo, executor):
        a = chunk["start"] - start
        velocities[a:a + len(chunk["kept"])] = chunk["velocities"]
        kept[a:a + len(chunk["kept"])] = chunk["kept"]
        if keep is not None:
            keep.add(chunk)
    return velocities, kept


def farthest_search(result, held, budget, *, executor=None, n_jobs=1, backend="loky", scheduler=None, distances=None):
    """Climb from ``held``'s outcomes farthest from ``result`` toward the farthest outcome the set misses.

    Parameters
    ----------
    result : PostImpactSet
        The set.
    held : PostImpactSet
        Its held-out search, run with ``keep_caps=True`` (:func:`reach.sets.run.run_sampling`).
    budget : int
        Children in all, split evenly over :data:`ROUNDS` rounds.
    executor, n_jobs, backend, scheduler
        As for :func:`reach.sample_post_impact_set` (``n_jobs="auto"``: the held-out search's workers).
    distances : ndarray, optional
        The distance of each of ``held.velocities`` to the set, if measured
        already (:func:`reach.sets.completeness.held_out_distances`).

    Returns
    -------
    dict
        ``samples`` (children run), ``max`` (m/s: the farthest distance from
        the set of any held-out outcome or child) and ``rounds`` (that
        distance after each round, m/s).
    """
    executor = climb_executor(held, budget, executor, n_jobs, backend, scheduler)
    climb = Climb(ROUNDS, PARENTS, SIGMA, DECAY, SNAP, _STREAM)
    return climb.run(result, held, budget, Plan(held.problem, held.settings), held.settings.n_samples, executor,
                     distances=distances)


def climb_executor(held, budget, executor, n_jobs, backend, scheduler):
    """``executor``, or one made for ``budget`` samples (``n_jobs="auto"``: the held-out search's workers)."""
    if executor is not None:
        return executor
    if n_jobs == "auto":  # as many workers as the held-out search took ("auto" chose them for its budget)
        n_jobs = int(held.metadata.get("workers", 1))
    return make_executor(n_jobs, backend, scheduler, limit=budget)


class Climb(NamedTuple):
    """Rounds of perturbed caps from the outcomes farthest from a set: the farthest search, and the frontier
    (:mod:`reach.sets.frontier`) with more parents and its own stream."""

    rounds: int     # rounds, each an equal share of the budget
    parents: int    # outcomes farthest from the set kept as the next round's parents
    sigma: float    # perturbation scale of round 0 ...
    decay: float    # ... and its factor per round
    snap: float     # probability that a cap coordinate is snapped to 0 or 1
    stream: int     # mixed into the held-out seed for the random numbers

    def run(self, result, held, budget, plan, start, executor, keep=None, distances=None):
        """Run the climb's children under ``plan`` from sample index ``start``: a dict as :func:`farthest_search`'s.

        ``keep``: an :class:`~reach.sampling.engine.Accumulator` for ``plan``'s
        settings, indexed from ``start``, that every child's chunk is added to;
        the dict then also holds ``caps``: each round's ``(first index, quantized caps)``.
        ``distances``: those of ``held.velocities`` to the set, if measured already.
        """
        kept = np.flatnonzero(held.kept)
        if len(kept) == 0 or len(result) == 0:
            return {"samples": 0, "max": float("nan"), "rounds": []}
        cores = executor.cores  # the workers are idle while the distances are measured
        if distances is None:
            distances = result.distance_to(held.all_velocities[kept], workers=cores)
        distance = np.atleast_1d(distances)
        top = np.argsort(-distance, kind="stable")[:self.parents]
        caps, distance = _caps(held, kept[top]), distance[top]
        per_round = max(1, int(budget) // self.rounds)
        shape = (held.settings.max_steps, held.problem.m)
        rounds, stored = [], []
        block = max(1, BLOCK_NUMBERS // (shape[0] * shape[1]))  # random numbers drawn a block at a time
        for r in range(self.rounds):
            rng = np.random.default_rng([held.settings.seed, self.stream, r])
            which = rng.integers(0, len(caps), per_round).astype(np.int64)
            Q = np.empty((per_round,) + shape, dtype=np.uint16)
            for a in range(0, per_round, block):
                noise = rng.normal(size=(min(block, per_round - a),) + shape)
                Q[a:a + len(noise)] = perturbed_caps(caps, which[a:a + len(noise)], noise, rng.random(noise.shape),
                                                     self.sigma * self.decay**r, self.snap, float(QUANT))
            velocities, ok = _run(plan, start, Q, executor, keep)
            if keep is not None:
                stored.append((start, Q))
            start += per_round
            # a child nearer than every parent cannot be a parent next (the sort keeps the parents first on a tie):
            # only the others' distances are measured (-inf: not kept, or nearer)
            floor = distance.min() if len(distance) >= self.parents else -np.inf
            d = np.full(per_round, -np.inf)
            if ok.any():
                d[ok] = result.distance_beyond(velocities[ok], floor, workers=cores)
            pool = np.concatenate([distance, d])  # the parents, then every child (-inf: not kept)
            top = np.argsort(-pool, kind="stable")[:self.parents]
            top = top[np.isfinite(pool[top])]
            old = len(caps)  # only the new parents' caps are made floats: bounded memory, whatever N
            caps = np.stack([caps[t] if t < old else Q[t - old] / QUANT for t in top])
            distance = pool[top]
            rounds.append(float(distance[0]))
        out = {"samples": per_round * self.rounds, "max": rounds[-1], "rounds": rounds}
        return out if keep is None else dict(out, caps=stored)
