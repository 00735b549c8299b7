"""How complete is a sampled set?  A held-out search the set was not built with, and its distance to the set.

A sampled set is an inner approximation of the true set (SPEC §7).  Its own
samples cannot say what it misses: coverage measured under the sampling
distribution in use is blind to the regions that distribution rarely visits.
:func:`estimate_completeness` therefore runs a *held-out* search — directed
sampling (:mod:`reach.sampling.directed`) from counter-based random caps (not the Sobol
sequence), a mixture of uniform, extreme and binary caps (``caps="broad"``),
its own seed — and reports how far its outcomes land
from the set, in contact-velocity coordinates, in m/s and as a fraction of the
largest pre-impact closing speed ``|vn0|``:

* ``max`` and ``p99``: the largest and the 99th-percentile distance;
* ``outside_2pct``: the fraction of held-out outcomes farther than 2 % of ``|vn0|``,

the held-out outcomes thinned first to one per cell of 0.4 % of ``|vn0|`` (as
the references of ``reach coverage`` are), so that the dense middle of the
set does not outvote its sparse edges; and

* ``cells_missed``: the share of the set's *cells* it misses by more than
  2 % of ``|vn0|``, the cells no held-out outcome reached estimated from the
  rarely hit ones (Chao1, :func:`cells_missed`), with its parts ``cells``,
  ``cells_far``, ``cells_unseen`` and ``rare_far``.

``max`` then grows by a climb (:mod:`reach.sets.farthest`): from the held-out
outcomes farthest from the set, their caps are perturbed round after round
toward outcomes farther still.  Every outcome it finds is an outcome of the
set's problem, so ``max`` is a distance the set really misses: a lower bound.

The held-out search is directed whatever the set's strategy.  A set built
with the paper's uniform caps (``strategy="uniform"``) shares its blind spots
with a uniform held-out search: on the disk stack at 2^13 samples such a
search estimated 5-13 % of outcomes beyond 2 % of ``|vn0|`` where a 16x
reference measured 15 %; the directed one estimates 19-21 % (measured
against 16x references of every strategy; docs/guide/complete-sets.md).

These are estimates of the gap, not bounds: a region that neither search
reaches stays invisible.  ``reach coverage`` measures both the gap (against
large references built with every strategy) and how well this estimate tracks
it.
"""

from __future__ import annotations

import time
from concurrent.futures import Future

import numpy as np

from reach.kernels.select import equal_rows
from reach.sets.farthest import climb_executor, farthest_search
from reach.sets.run import run_sampling

__all__ = ["estimate_completeness", "with_climb", "held_out_settings", "closing_speed", "thin_cells", "cell_counts", "unseen_cells",
           "cells_missed", "measure_gap", "held_out_distances", "CELL", "GAP", "HELD_OUT_FRACTION",
           "HELD_OUT_STRATEGY",
           "HELD_OUT_SEED_OFFSET"]

#: Held-out samples per sample of the set (at least :data:`HELD_OUT_MIN`, or the set's own size if smaller, but
#: never fewer than :data:`HELD_OUT_SMALLEST`).
HELD_OUT_FRACTION = 1 / 8
#: Fewest held-out samples.  A search of 512 missed much of what a set of 2^12 samples missed (box-wall, the
#: paper's caps, seeds 0-3: 0.36-0.75 of the gap a 16x reference measures, 0 for one mixed-caps set); one of
#: 2048 saw 0.48-1.0 of it, and the disk stack's and the quadruped's estimates stayed at or above the gap.
HELD_OUT_MIN = 2048
#: ... but a set smaller than that gets a search of its own size, and never one below this.
HELD_OUT_SMALLEST = 512
#: Added to the set's seed for the held-out search (its own numbers, never the set's).
HELD_OUT_SEED_OFFSET = 0x5EED_0F_4E1D


#: How the held-out search is described in the estimate (``strategy``).
HELD_OUT_STRATEGY = "held-out: directed, counter-based broad caps"

#: Cell side, as a fraction of ``|vn0|``: held-out outcomes are thinned to one per cell (SPEC §7).
CELL = 0.004
#: The estimate's distance, as a fraction of ``|vn0|``: ``outside_2pct`` and ``cells_missed`` count what lies
#: farther than this from the set, whatever a coverage-driven run's resolution (``measure_gap``'s ``at``).
GAP = 0.02


def thin_cells(problem, velocities, cell):
    """One velocity per cell of side ``cell`` (m/s) in contact-velocity coordinates, so dense regions do not dominate."""
    first, _ = cell_counts(problem, velocities, cell)
    return velocities[first]


def cell_counts(problem, velocities, cell):
    """``(first, counts)``: the index of each occupied cell's first velocity (ascending), and how many fell in it."""
    pts = problem.contact_velocities(velocities).reshape(len(velocities), -1)
    # cells centred on 0: a sticking or lifting contact's velocity is 0 up to round-off of either sign, which
    # must not change its cell (or the counts would change with the units)
    keys = np.floor(pts / cell + 0.5).astype(np.int64)
    n = len(keys)
    first, counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    groups = equal_rows(keys, np.empty(1 << max(1, 2 * n - 1).bit_length(), dtype=np.int64), first, counts)
    return first[:groups], counts[:groups]


def unseen_cells(counts):
    """Chao1's estimate of the cells a search would reach but has not yet: ``f1² / (2 f2)`` (``f1 (f1 - 1) / 2``
    when no cell was hit twice), ``f1`` and ``f2`` the cells hit once and twice."""
    f1, f2 = int(np.count_nonzero(counts == 1)), int(np.count_nonzero(counts == 2))
    return f1 * f1 / (2.0 * f2) if f2 else f1 * (f1 - 1) / 2.0


def cells_missed(far, counts):
    """The share of the set's cells that it misses, estimated from held-out cells: a dict.

    The held-out outcomes follow the sampling density, so a share of them
    (or of the cells they occupy) counts probability mass near the set, not
    the set's extent: the rarely hit cells, where a set misses most, are
    under-represented and the cells no held-out outcome reached are not
    counted at all.  Here each occupied cell counts once (``far``: whether
    it lies farther than the resolution from the set), and Chao1's estimate
    of the cells not yet reached (:func:`unseen_cells`) is added, taken to be
    missed at the rate of the cells hit once (the rarest seen).
    """
    far = np.asarray(far, bool)
    seen, unseen = len(far), unseen_cells(counts)
    rare = counts == 1
    rate = float(far[rare].mean()) if rare.any() else float(far.mean()) if seen else 0.0
    share = (float(far.sum()) + unseen * rate) / max(seen + unseen, 1e-300)
    return {"cells": seen, "cells_far": int(far.sum()), "cells_unseen": float(unseen), "rare_far": rate,
            "cells_missed": share}


def closing_speed(problem):
    """``|vn0|``: the largest pre-impact closing speed, the scale of completeness distances."""
    return float(max(-np.min(problem.Jn @ problem.v), 1e-300))


def held_out_settings(settings, budget=None):
    """The held-out search's settings: directed, from counter-based broad caps, its own seed, no paths."""
    if budget is None:  # 1/8 of the set, at least HELD_OUT_MIN unless the set is smaller, never below 512
        n = settings.n_samples
        budget = max(HELD_OUT_SMALLEST, min(HELD_OUT_MIN, n), int(n * HELD_OUT_FRACTION))
    budget = int(budget)
    seed = (settings.seed + HELD_OUT_SEED_OFFSET) % (2**63)
    return settings.replace(n_samples=budget, seed=seed, sequence="uniform", caps="broad", strategy="directed",
                            keep_paths=0)


def estimate_completeness(result, *, budget=None, executor=None, n_jobs=1, backend="loky", scheduler=None,
                          search=True, held=None):
    """Run the held-out search for ``result``, measure its distance to the set, and climb to the farthest.

    Parameters
    ----------
    result : PostImpactSet
    budget : int, optional
        Held-out samples (default: 1/8 of the set's, at least :data:`HELD_OUT_MIN`
        or the set's own size if that is smaller, never below :data:`HELD_OUT_SMALLEST`).
    executor, n_jobs, backend, scheduler
        As for :func:`reach.sample_post_impact_set` (an executor, or how to make one).
    search : bool
        Also climb from the held-out outcomes farthest from the set toward
        the farthest outcome it misses (:func:`reach.sets.farthest.farthest_search`,
        as many samples again as the held-out search); ``max`` is then the
        larger of the two.
    held : PostImpactSet or concurrent.futures.Future of one, optional
        The held-out search, run already or running (it depends on
        ``result``'s settings only: :func:`held_out_settings`, run with
        ``keep_caps=True``); a future is waited for here, and the wait is the
        search's seconds.

    Returns
    -------
    dict
        ``strategy``, ``samples``, ``kept``, ``closing_speed`` (``|vn0|``, m/s),
        ``max``, ``p99`` (m/s), ``max_fraction``, ``p99_fraction`` (of ``|vn0|``)
        and ``outside_2pct``; with the search, ``held_out_max_fraction`` (the
        held-out search's own farthest), ``search_samples`` and
        ``search_rounds`` (the farthest after each round, of ``|vn0|``).
        Every distance is one the set really misses: ``max`` is a lower bound
        on the farthest.  ``seconds``: wall seconds of the held-out search,
        of its distances to the set (with any wait for the set's tree), and
        of the climb.
    """
    t0 = time.perf_counter()
    settings = held_out_settings(result.settings, budget)
    result.index_in_background()  # the set's index builds while the held-out search runs
    if held is None:
        held = run_sampling(result.problem, settings, executor=executor, n_jobs=n_jobs, backend=backend,
                            scheduler=scheduler, warn=False, keep_caps=True)
    elif isinstance(held, Future):
        held = held.result()
    if held.settings != settings:
        raise ValueError("`held` is not this set's held-out search (its settings differ from held_out_settings).")
    t1 = time.perf_counter()
    executor = climb_executor(held, settings.n_samples, executor, n_jobs, backend, scheduler)
    distances = held_out_distances(result, held.velocities, workers=executor.cores)
    info = measure_gap(result, held.velocities, strategy=HELD_OUT_STRATEGY, samples=settings.n_samples,
                       distances=distances)
    t2 = time.perf_counter()
    if search:
        info = with_climb(result, held, info, distances=distances, executor=executor)
    return dict(info, seconds={"held_out": t1 - t0, "distances": t2 - t1, "climb": time.perf_counter() - t2})


def held_out_distances(result, velocities, *, workers=1, known=None):
    """The distance of each of ``velocities`` (k, nv) to the set ``result``, in contact-velocity coordinates (m/s).

    Measured once for a held-out search and shared by :func:`measure_gap`,
    the climb and the frontier, which would otherwise each query the set
    again.  ``known``: ``(indices, distances)`` measured already (the cells'
    first outcomes of a coverage round); only the others are queried.
    ``workers``: threads for the queries (the executor's idle cores).  Every
    distance is exact, the same bits for any ``workers`` or ``known``.
    """
    out = np.full(len(velocities), np.nan)
    todo = np.ones(len(velocities), dtype=bool)
    if known is not None:
        indices, values = known
        out[indices] = values
        todo[indices] = False
    if len(result) and todo.any():
        out[todo] = np.atleast_1d(result.distance_to(velocities[todo], workers=workers))
    return out


def with_climb(result, held, info, *, distances=None, **run):
    """``info`` (:func:`measure_gap` of ``held``) with the climb of :func:`reach.sets.farthest.farthest_search` added.

    The climb runs as many samples as ``held``, which must be run with
    ``keep_caps=True``; ``max`` becomes the larger farthest distance, and
    ``held_out_max_fraction``, ``search_samples`` and ``search_rounds`` say
    what each found.  ``distances``: :func:`held_out_distances` of ``held.velocities``,
    if measured already.  ``run``: ``executor`` or ``n_jobs``, ``backend``, ``scheduler``.
    """
    if not np.isfinite(info["max"]):
        return info
    climb = farthest_search(result, held, held.settings.n_samples, distances=distances, **run)
    worst = max(info["max"], climb["max"])
    speed = info["closing_speed"]
    return dict(info, max=worst, max_fraction=worst / speed, held_out_max_fraction=info["max_fraction"],
                search_samples=climb["samples"], search_rounds=[d / speed for d in climb["rounds"]])


def measure_gap(result, velocities, *, strategy, samples, distances=None, at=None):
    """Distances of ``velocities`` (k, nv) to the set ``result``, summarised as in :func:`estimate_completeness`.

    ``distances``: :func:`held_out_distances` of ``velocities``, if measured
    already; else the cells' first outcomes are queried.  ``at``: also
    ``cells_missed_at`` and ``cells_far_at``, :func:`cells_missed`'s share and
    far cells at that distance (m/s; a coverage-driven run's resolution), from
    the same cells.
    """
    speed = closing_speed(result.problem)
    info = {"strategy": strategy, "samples": int(samples), "kept": int(len(velocities)), "closing_speed": speed}
    if len(velocities) == 0 or len(result) == 0:
        nan = float("nan")
        return dict(info, max=nan, p99=nan, max_fraction=nan, p99_fraction=nan, outside_2pct=nan, cells=0,
                    cells_far=0, cells_unseen=nan, rare_far=nan, cells_missed=nan,
                    **({} if at is None else {"cells_missed_at": nan, "cells_far_at": 0}))
    first, counts = cell_counts(result.problem, velocities, CELL * speed)
    if distances is None:
        d = np.atleast_1d(result.distance_to(velocities[first]))
    else:
        d = np.asarray(distances)[first]
    worst, p99 = float(d.max()), float(np.quantile(d, 0.99))
    if at is not None:
        far = cells_missed(d > at, counts)
        info.update(cells_missed_at=far["cells_missed"], cells_far_at=far["cells_far"])
    return dict(info, max=worst, p99=p99, max_fraction=worst / speed, p99_fraction=p99 / speed,
                outside_2pct=float(np.mean(d > GAP * speed)), **cells_missed(d > GAP * speed, counts))
