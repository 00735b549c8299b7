"""The frontier: a last directed phase from where the held-out search landed far from the set; its outcomes join it.

The coverage-driven run (:func:`reach.sets.build.sample_to_coverage`) doubles
its budget until few held-out *outcomes* land far from the set.  Outcomes
follow the sampling density, so that rule can be met while the share of the
set's *cells* the set misses (:func:`reach.sets.completeness.cells_missed`,
which counts each cell once and weighs the rarely hit ones) is still above
what was asked: the set misses rare regions, and the held-out search has
touched them.  The frontier starts there.  Its first parents are the
:data:`PARENTS` held-out outcomes farthest from the set; each of
:data:`ROUNDS` rounds perturbs their caps as directed sampling does (scale
``SIGMA * DECAY^r``, snap :data:`SNAP`), runs the children, and keeps the
outcomes farthest from the set as the next parents: the climb of
:mod:`reach.sets.farthest`, with many parents, so that it spreads over the
misses instead of following the farthest one.

Measured against a reference of 2^24 samples of every strategy
(``bench/frontier.py``, ``bench/frontier-disk-stack.log``): the disk stack's
set of 2^18 samples, joined with its held-out outcomes, leaves 2.04-2.22 % of
the reference's cells farther than 2 % of ``|vn0|`` (seeds 7 and 8); with a
frontier of eight held-out budgets (2^18 samples, 6 s on two cores) 0.84-0.86 %.

Every child's caps are a point of ``[0, 1]^(m N)``, so every child is an
outcome of the same set (SPEC §7).  The frontier is a run of its own: its
settings are the held-out search's with its own seed and budget, its
children's caps are kept (``child_caps``), and the same set, held-out search
and seed give the same frontier, bit for bit, for any workers.
"""

from __future__ import annotations

import math

from reach.sampling.engine import Accumulator, Plan
from reach.sets.farthest import Climb, climb_executor
from reach.sets.result import PostImpactSet

__all__ = ["frontier_search", "frontier_settings", "frontier_budget", "least_budget", "FACTOR", "MAX", "ROUNDS",
           "PARENTS", "SIGMA", "DECAY", "SNAP"]

#: The frontier's budget, in held-out budgets (an eighth of the set from 2^14 samples on, 2,048 below).  On
#: the disk stack at 2^18, seeds 7 and 8 (bench/frontier-disk-stack.log): one leaves 1.52-1.60 % of the
#: reference's cells farther than 2 % of ``|vn0|``, four 1.06-1.10 %, eight 0.84-0.86 %, sixteen 0.67 %.
FACTOR = 8
#: Most samples a frontier grows to where the estimate is over the target (:func:`frontier_budget`); a frontier of
#: :data:`FACTOR` held-out budgets larger than this keeps its size.
MAX = 2**17
#: Rounds; each runs an equal share of the budget.  Two rounds left 1.14-1.20 %, eight 0.99-1.03 %.
ROUNDS = 4
#: Outcomes farthest from the set kept as parents.  64 left 1.07-1.27 %; 1024 0.64-0.69 % (but the estimate of
#: the set before the union, which the coverage-driven run reports, then overstates the gap 1.66x instead of 1.33x, seed 7).
PARENTS = 256
#: Perturbation scale of round 0, and its factor per round (directed sampling's).
SIGMA, DECAY = 0.3, 0.5
#: Probability that a child's cap coordinate is snapped to 0 or 1.
SNAP = 0.1
#: Added to the held-out seed for the frontier's own (its sample indices start at 0).
SEED_OFFSET = 0xF207_7E12
#: Mixed into the held-out seed for the frontier's random numbers.
_STREAM = 0xF207


def frontier_settings(held_settings, budget):
    """The frontier run's settings: the held-out search's, with its own seed and ``budget`` (a multiple of
    :data:`ROUNDS`, at least one child a round)."""
    budget = max(1, int(budget) // ROUNDS) * ROUNDS
    return held_settings.replace(n_samples=budget, seed=(held_settings.seed + SEED_OFFSET) % (2**63))


def least_budget(held_out):
    """The smallest frontier after a held-out search of ``held_out`` samples: :data:`FACTOR` held-out budgets."""
    return FACTOR * int(held_out)


def frontier_budget(held_out, share, missed):
    """The frontier's budget after a held-out search of ``held_out`` samples that estimated ``share`` of the set's
    cells missed, where the target is ``missed``: :data:`FACTOR` held-out budgets, times the smallest power of two
    at least ``share / missed``, but no more than :data:`MAX` samples unless the :data:`FACTOR` alone ask more.

    Where a frontier is small, the estimate undershoots (a held-out search of 2,048-4,096 samples against sets
    far larger) and eight held-out budgets do not close the gap: at a resolution of 0.5 % of ``|vn0|`` the
    compass gait's coverage-driven sets of 2^13-2^15 (held-out estimates 3.1-5.5 %) left 0.32-5.48 % of a
    2^21-sample reference's cells farther than the resolution with eight budgets, 0.00-0.27 % with this one
    (six seeds, ``bench/frontier-grows.log``).  A frontier of eight budgets over :data:`MAX` (the disk stack's at
    2^18, the quadruped's) is the one measured in ``bench/frontier-disk-stack.log``, and stays as it is.
    """
    base = least_budget(held_out)
    if not share > missed:  # (nan: nothing measured)
        return base
    return max(base, min(MAX, base * 2 ** math.ceil(math.log2(share / missed))))


def frontier_search(result, held, budget, *, executor=None, n_jobs=1, backend="loky", scheduler=None, distances=None):
    """Push out from ``held``'s outcomes farthest from ``result``: the frontier's children, as a set of their own.

    Parameters
    ----------
    result : PostImpactSet
        The set.
    held : PostImpactSet
        Its held-out search, run with ``keep_caps=True`` (:func:`reach.sets.run.run_sampling`).
    budget : int
        Children in all (rounded down to a multiple of :data:`ROUNDS`).
    executor, n_jobs, backend, scheduler
        As for :func:`reach.sample_post_impact_set` (``n_jobs="auto"``: the held-out search's workers).
    distances : ndarray, optional
        The distance of each of ``held.velocities`` to the set, if measured
        already (:func:`reach.sets.completeness.held_out_distances`).

    Returns
    -------
    PostImpactSet or None
        The children, with :func:`frontier_settings` and their quantized caps
        (``child_caps``, so each replays alone); ``metadata["frontier"]``
        holds the farthest distance from the set after each round (m/s).
        None when the set or the held-out search kept no outcome.
    """
    settings = frontier_settings(held.settings, budget)
    executor = climb_executor(held, settings.n_samples, executor, n_jobs, backend, scheduler)
    plan, acc = Plan(held.problem, settings), Accumulator(held.problem, settings)
    climb = Climb(ROUNDS, PARENTS, SIGMA, DECAY, SNAP, _STREAM)
    info = climb.run(result, held, settings.n_samples, plan, 0, executor, keep=acc, distances=distances)
    if info["samples"] == 0:
        return None
    out = PostImpactSet.from_arrays(held.problem, settings, acc.arrays, acc.paths)
    out.child_caps = info["caps"]
    out.metadata["frontier"] = {"rounds": info["rounds"], "parents": PARENTS}
    return out
