"""Building a set: the engine's run, then how complete it is (paper Algorithm 2, and beyond it).

:func:`sample_post_impact_set` runs the sampling engine (:func:`reach.sampling.engine.run_sampling`)
and then the held-out completeness search (:mod:`reach.sets.completeness`);
:func:`sample_adaptive` doubles the budget until that search rarely lands far
from the set.  Both sit above the engine and the completeness estimate, which
import nothing of this module: the layers go one way.
"""

from __future__ import annotations

import os

import numpy as np

from reach.sampling.choice import auto_choice, clopper_pearson_upper
from reach.sampling.executors import make_executor
from reach.sets.completeness import CELL, HELD_OUT_STRATEGY, cell_counts, closing_speed, estimate_completeness, \
    held_out_distances, held_out_settings, measure_gap, with_climb
from reach.sets.farthest import climb_executor
from reach.problem.impact import ImpactProblem
from reach.sets.frontier import frontier_budget, frontier_search, least_budget
from reach.sets.rounds import RoundsCheckpoint
from reach.sets.run import run_sampling, warn_if_thin
from reach.sampling.settings import SamplingSettings, check_integer, check_positive_number

__all__ = ["sample_post_impact_set", "sample_adaptive", "sample_to_coverage", "RUN_OPTIONS", "SETTING_OPTIONS",
           "COVERAGE_TARGET", "HELD_OUT_BESIDE_GPU", "HELD_OUT_BESIDE_CORES", "FRONTIER_ALWAYS"]


#: What a run takes besides its settings, and the defaults (see :func:`sample_post_impact_set`).
RUN_OPTIONS = {"n_jobs": 1, "backend": "loky", "scheduler": None, "checkpoint": None, "resume": False,
               "keep_checkpoint": False, "completeness": True, "progress": False, "keep_caps": False}
#: The :class:`~reach.sampling.settings.SamplingSettings` fields an option may set (the others are arguments).
SETTING_OPTIONS = ("eps", "seed", "sequence", "caps", "strategy", "solution_choice", "keep_paths", "chunk_size")
#: Sets of at least this many samples run on a GPU alone (``backend="cuda"``) run their held-out search on every
#: core but one while the GPU runs the set: the search depends on the settings only, and the cores are idle
#: meanwhile (``bench/held-out-beside-gpu.log``), on a machine of :data:`HELD_OUT_BESIDE_CORES` cores or more.
#: Smaller sets run it after, on the GPU: starting the processes would cost more; but a coverage-driven run
#: (:func:`sample_to_coverage`) runs its smaller rounds' there on any machine of two cores or more, since its
#: processes serve all its rounds and a small launch costs a GPU nearly what a large one does
#: (``bench/gpu-coverage-emulated.log``).  ``None`` never does.
HELD_OUT_BESIDE_GPU = 2**16
#: Fewest cores on which a large set's held-out search runs beside the GPU: on two cores, one process running the
#: search of an emulated H200's 2^17-2^20-sample rounds slowed the rounds' host side more than it saved.
HELD_OUT_BESIDE_CORES = 8
#: The default coverage target of :func:`sample_to_coverage` (and of ``reach run``): at most ``missed`` of the
#: held-out outcomes farther than ``resolution`` of ``|vn0|`` from the set, by a bound at ``confidence`` (as
#: :func:`sample_adaptive`'s).
COVERAGE_TARGET = {"resolution": 0.02, "missed": 0.01, "confidence": 0.95}
#: A coverage-driven run's frontier of at most this many samples runs whatever the estimate says: the last round's
#: held-out search then has 4,096 samples or fewer (sets of 2^15 or fewer), and a search that small misses a set's
#: sparse edges.  Measured (``bench/frontier-small.log``): the compass gait's default set (4,096 samples, held-out
#: 2,048) left 1.45-2.04 % of a 2^21-sample reference's cells farther than 2 % of ``|vn0|`` in 4 of 10 seeds while
#: its estimate said 0-0.92 %, and none with the frontier, for 0.1-0.2 s more.  At a resolution of 0.5 %, the
#: compass gait's sets of 2^15 (held-out 4,096) with their held-out outcomes left 12.3-14.4 % of the cells farther
#: than the resolution, where the run's estimate said 3.8-5.4 %: an undershoot of 2.3x or more; 0.14-0.32 % with
#: the frontier.  At 2^16 (held-out 8,192) the disk stack's estimate was within 1.2x of the measured share.
FRONTIER_ALWAYS = 2**15


def sample_post_impact_set(problem, n_samples, h, max_steps, *, settings=None, executor=None, **options):
    """Approximate the post-impact velocity set of ``problem`` (paper Algorithm 2).

    Parameters
    ----------
    problem : ImpactProblem
    n_samples : int
        Number of trajectories M.
    h : float
        Step size (cap on each contact's normal impulse per step).
    max_steps : int
        Trajectory length N.
    settings : SamplingSettings, optional
        Sampling settings to start from (their own ``n_samples``, ``h`` and
        ``max_steps`` give way to the arguments, and their ``eps`` too where
        their ``h`` differs: it defaults to ``h / 10``); any option that names
        one of :data:`SETTING_OPTIONS` overrides its field.
    executor : reach.sampling.executors.Executor or str, optional
        Where the chunks run (:func:`reach.sampling.executors.make_executor`),
        or a backend's name (``"cuda"``: this machine's GPU); instead of
        ``n_jobs``, ``backend`` and ``scheduler``.
    **options
        Settings fields and run options, by name; anything else is a TypeError.
    eps, seed, sequence, caps, strategy, solution_choice, keep_paths, chunk_size
        See :class:`reach.sampling.settings.SamplingSettings`.  ``strategy="directed"``
        (default) spends three quarters of the budget pushing out from the set's edges
        (:mod:`reach.sampling.directed`); ``strategy="uniform"`` is the paper's plain sampling.
        ``solution_choice="auto"`` (default) is resolved by :func:`resolve_choice`
        and recorded in the result's settings; what decided it in
        ``metadata["auto_choice"]`` (:func:`reach.sampling.choice.auto_choice`).
    n_jobs : int or "auto"
        Parallel workers (joblib convention: -1 = all cores), capped at the
        cores and at the chunks.  ``"auto"``: one core when a pilot of
        :data:`~reach.sampling.workers.PILOT_SAMPLES` samples puts the whole run under
        :data:`~reach.sampling.workers.AUTO_SERIAL_SECONDS` there (starting worker processes costs
        about as much), all cores otherwise; ``metadata["workers"]`` and
        ``metadata["serial_estimate_seconds"]`` record the choice.  The
        result does not depend on it.
    backend : {"loky", "threading", "dask", "serial", "cuda"}
        ``"dask"`` runs the chunks on a dask.distributed cluster through
        joblib's Dask backend: pass ``scheduler`` (an address such as
        ``"tcp://10.0.0.5:8786"`` or a ``Client``) or have a Client running.
        ``"cuda"`` runs them on this machine's GPU (:mod:`reach.sampling.gpu`;
        needs ``pip install 'reach[cuda]'``), one thread a sample, with the
        same set as the CPU's.
    checkpoint : path, optional
        Directory for a checkpoint: each finished chunk is written there
        atomically, so an interrupted run (Ctrl-C, a crash) can continue.
    resume : bool
        Continue from ``checkpoint`` (its problem and settings must match).
        Without it, an existing checkpoint is an error, never silently reused
        or overwritten.
    keep_checkpoint : bool
        Leave the checkpoint in place after the run (remove it yourself once
        the result is saved, as ``reach run`` does); by default it is removed
        when the result has been built.
    completeness : bool or int
        Run the held-out search of :mod:`reach.sets.completeness` after the set
        (1/8 of the budget, or this many samples if an int), and the climb to
        the farthest outcome missed (:mod:`reach.sets.farthest`, as many again),
        and store the estimate in ``metadata["completeness"]`` (shown by ``summary()``).
        On a GPU alone, a set of :data:`HELD_OUT_BESIDE_GPU` samples or more
        runs the held-out search on the CPU's cores while the GPU runs the set
        (the same search, bit for bit), where the machine has
        :data:`HELD_OUT_BESIDE_CORES` cores or more.
    progress : bool
        Show a progress bar (tqdm) over samples.
    keep_caps : bool
        Keep the directed children's caps (2 bytes per cap) on the result, so
        that any sample can be replayed alone (:func:`witness_caps`,
        :func:`replay_sample`).

    Returns
    -------
    PostImpactSet
        ``.velocities`` holds the kept (non-colliding) outcomes; per-sample
        arrays (``.all_velocities``, ``.lcp_solves``, ``.terminated``,
        ``.kept``) cover every sample; ``.success``, ``.status`` and
        ``.message`` say how the run went.

    Examples
    --------
    >>> import numpy as np
    >>> from reach import ImpactProblem, sample_post_impact_set
    >>> block = ImpactProblem(np.diag([1, 1, 5 / 12]), [[0, 1, -0.5], [0, 1, 0.5]],
    ...                       [[1, 0, 1], [1, 0, 1]], 1.0, [0, -0.4429, 0])
    >>> result = sample_post_impact_set(block, 256, h=0.3, max_steps=10)
    >>> result.success, bool(np.all(result.contact_velocities()[:, :, 0] >= -1e-9))
    (True, True)
    """
    fields, run = _split_options(options, settings, executor, h)
    if isinstance(executor, str):
        executor = make_executor(backend=executor)
    why = None
    choice = fields.get("solution_choice", "auto")
    if isinstance(problem, ImpactProblem):  # (anything else is refused, by name, when the run is planned)
        choice, why = auto_choice(problem, choice, h, max_steps)
    elif choice == "auto":
        choice = "random"
    settings = SamplingSettings(n_samples, h, max_steps, **{**fields, "solution_choice": choice})
    completeness = run.pop("completeness")
    budget = None if completeness is True or completeness is False else check_integer("completeness", completeness,
                                                                                         low=1)
    ahead = None if completeness is False else _held_out_ahead(problem, settings, budget, executor, run)
    result = run_sampling(problem, settings, executor=executor, **run)
    if why is not None:
        result.metadata["auto_choice"] = why
    if completeness is not False and len(result):
        result.metadata["completeness"] = estimate_completeness(result, budget=budget, executor=executor, held=ahead,
                                                                **{k: run[k] for k in ("n_jobs", "backend", "scheduler")})
    elif ahead is not None:  # an empty set: no estimate, and no search left running
        ahead.result()
    return result


def _held_out_ahead(problem, settings, budget, executor, run, small=False):
    """A future of the held-out search, started now on every core but one, where a set runs on a GPU alone and is
    either large (:data:`HELD_OUT_BESIDE_GPU` samples or more, :data:`HELD_OUT_BESIDE_CORES` cores or more) or
    ``small`` (a coverage-driven run's smaller round); else None."""
    gpu_alone = executor.name == "cuda" if executor is not None else run.get("backend") == "cuda"
    cores = os.cpu_count() or 1
    if not gpu_alone or HELD_OUT_BESIDE_GPU is None or cores < 2:
        return None
    large = settings.n_samples >= HELD_OUT_BESIDE_GPU
    if (large and cores < HELD_OUT_BESIDE_CORES) or not (large or small):
        return None
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix="reach-held-out")
    try:
        return pool.submit(run_sampling, problem, held_out_settings(settings, budget), n_jobs=cores - 1,
                           backend="loky", warn=False, keep_caps=True)
    finally:
        pool.shutdown(wait=False)


def _split_options(options, settings, executor, h):
    """``(settings fields, run options)`` of :func:`sample_post_impact_set`'s options; unknown names are a TypeError."""
    unknown = sorted(set(options) - set(SETTING_OPTIONS) - set(RUN_OPTIONS))
    if unknown:
        raise TypeError(f"sample_post_impact_set() got unknown options {unknown}; it takes the settings "
                        f"{', '.join(SETTING_OPTIONS)} and the run options {', '.join(RUN_OPTIONS)}.")
    if executor is not None and {"n_jobs", "backend", "scheduler"} & set(options):
        raise TypeError("give an `executor` or `n_jobs`/`backend`/`scheduler`, not both.")
    if settings is not None and not isinstance(settings, SamplingSettings):
        raise TypeError(f"`settings` must be a SamplingSettings; got {type(settings).__name__}.")
    fields = {} if settings is None else {k: getattr(settings, k) for k in SETTING_OPTIONS}
    if settings is not None and settings.h != h:
        fields.pop("eps")  # the closing radius defaults to h / 10 of the run's own h
    fields.update({k: v for k, v in options.items() if k in SETTING_OPTIONS})
    run = {**RUN_OPTIONS, **{k: v for k, v in options.items() if k in RUN_OPTIONS}}
    return fields, run


def sample_adaptive(problem, h, max_steps, *, epsilon, confidence=COVERAGE_TARGET["confidence"], initial=4096,
                    max_samples=2**22, n_jobs=1, backend="loky", scheduler=None, progress=False, **options):
    """Sample with doubling budgets until a held-out search rarely lands farther than ``epsilon`` from the set.

    Each round computes the set with the round's budget (``initial``, then
    doubling) and runs the held-out search of :mod:`reach.sets.completeness` (1/8
    of the budget, a distribution the set is not built with).  The
    probability ``p`` that a held-out outcome (thinned to one per cell of 0.4 %
    of ``|vn0|``) lands farther than ``epsilon`` (contact-velocity coordinates)
    from the set is estimated by the fraction that did; sampling stops when
    the one-sided Clopper-Pearson upper bound of ``p`` at ``confidence`` falls
    below ``1 - confidence``.  Unlike a rule that looks at the set's own new
    samples, this one is not blind to regions the sampling distribution rarely
    visits.

    Parameters
    ----------
    epsilon : float
        Resolution in contact-velocity coordinates (m/s).
    confidence : float in (0, 1)
    initial : int
        Budget of the first round.
    max_samples : int
        Hard cap on a round's budget; the result records whether the criterion was met.
    n_jobs, backend, scheduler, progress, **options
        As for :func:`sample_post_impact_set` (``eps``, ``seed``, ``caps``, ``strategy``, ...).
    checkpoint, resume, keep_checkpoint
        As for :func:`sample_to_coverage`.

    Returns
    -------
    PostImpactSet
        The last round's set, with ``metadata["adaptive"]``: per round the
        budget, the held-out outcomes, how many landed farther than epsilon,
        the estimate and its upper bound; and whether the criterion was met.
    """
    epsilon = check_positive_number("epsilon", epsilon)
    if not 0 < confidence < 1:
        raise ValueError(f"`confidence` must be in (0, 1); got {confidence!r}.")
    run = dict(n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress)
    keep = options.pop("keep_checkpoint", False)
    result, _, _, rounds, met, _, state = _doubling(problem, h, max_steps, epsilon, 1 - confidence, confidence,
                                                    initial, max_samples, None, run, options)
    if state is not None and not keep:
        state.remove()
    result.metadata["adaptive"] = {"epsilon": epsilon, "confidence": float(confidence),
                                   "rounds": rounds, "met": met,
                                   "resumed_rounds": 0 if state is None else state.resumed}
    warn_if_thin(result)
    return result


def sample_to_coverage(problem, h, max_steps, *, resolution=COVERAGE_TARGET["resolution"],
                       missed=COVERAGE_TARGET["missed"], confidence=COVERAGE_TARGET["confidence"], initial=4096,
                       max_samples=2**22, time_limit=None, **options):
    """Sample until the held-out estimate says the set misses at most ``missed`` of its outcomes by more than
    ``resolution`` (a fraction of ``|vn0|``), at ``confidence``; the budget follows the coverage asked for.

    The budget doubles from ``initial`` (each round a fresh set, as
    :func:`sample_adaptive`); after each round the held-out search
    (:mod:`reach.sets.completeness`, 1/8 of the budget, its own seed) lands
    outcomes, and the run stops when the one-sided Clopper-Pearson upper
    bound on the share of them farther than ``resolution * |vn0|`` from the
    set is at most ``missed``.  Every kept held-out outcome is a trial: the
    bound is on the chance that the held-out search lands that far, not on the
    share of the set's cells.  (Thinned to one outcome per cell of 0.4 % of
    ``|vn0|``, as :func:`sample_adaptive` does, a two-contact set has only
    250-300 cells, fewer than the 299 trials a 1 % bound at 95 % needs with
    no failure: the rocking block's doubled to 2^16 samples with none of its
    held-out outcomes farther than 2 %.)  ``max_samples``
    caps the budget and ``time_limit`` (seconds) stops before a round that
    would overrun it (a round is taken to cost twice the last); either way the
    set says that it stopped short, and how complete it is
    (``metadata["coverage"]``, ``metadata["completeness"]``).

    The last round's held-out outcomes join the set (``with_held_out=True``,
    the default): they are outcomes of the same set, and the gap to far larger
    references is smaller with them.  The set is then a union of two runs
    (:meth:`~reach.sets.result.PostImpactSet.union`; both budgets are in
    ``metadata["coverage"]``); any of its samples replays bit for bit with
    its own run's settings (:func:`reach.sets.witness.replay_outcome`).  The
    completeness estimate stays that of the set *before* the union: the union
    misses no more than that set does.  The estimate itself can undershoot
    that set's gap where the held-out search is small beside the set's extent
    (the compass gait's first round; docs/guide/complete-sets.md).

    Where the estimated share of the set's *cells* missed by more than the
    run's ``resolution`` (``metadata["coverage"]["cells_missed"]``, which
    weighs the rarely hit cells the outcome rule undercounts; the completeness
    estimate's ``cells_missed`` is at :data:`~reach.sets.completeness.GAP`, 2 %
    of ``|vn0|``, the same at the default resolution) still exceeds ``missed``, or where the frontier costs at
    most :data:`FRONTIER_ALWAYS` samples (a held-out search of 4,096 samples
    or fewer, too small to trust below the target), a frontier
    (:mod:`reach.sets.frontier`, ``with_frontier=True``, the default) pushes
    out from the held-out outcomes farthest from the set, with
    :data:`reach.sets.frontier.FACTOR` held-out budgets, more where the estimate is over the target
    (:func:`reach.sets.frontier.frontier_budget`), and its outcomes
    join the set too (``metadata["coverage"]``: ``frontier_budget``, and in
    ``frontier`` whether it ran or why not).

    Options are :func:`sample_post_impact_set`'s (``n_jobs``, ``backend``,
    ``executor`` is not taken, ``seed``, ``strategy``, ...).  With
    ``checkpoint`` (a directory), every round that does not end the run is
    recorded there, and the round under way writes its chunks there as a
    fixed run does (:mod:`reach.sets.rounds`): ``resume=True`` goes on from
    the round that was under way, with the same set, bit for bit, as an
    uninterrupted run.  The last round's climb and frontier run again, and
    ``time_limit`` counts from the resume (as ``metadata["coverage"]["seconds"]``
    does; ``resumed_rounds`` there says how many rounds came from the
    checkpoint).  The checkpoint is removed once the set is built, unless
    ``keep_checkpoint``.
    """
    import time

    resolution, missed = check_positive_number("resolution", resolution), check_positive_number("missed", missed)
    with_held_out = options.pop("with_held_out", True)
    with_frontier = options.pop("with_frontier", True)
    if not 0 < confidence < 1:
        raise ValueError(f"`confidence` must be in (0, 1); got {confidence!r}.")
    if not missed < 1:  # (a share of the held-out outcomes: 1 or more is met by any set)
        raise ValueError(f"`missed` must be in (0, 1); got {missed!r}.")
    if time_limit is not None:
        time_limit = check_positive_number("time_limit", time_limit)
    run = {k: options.pop(k) for k in ("n_jobs", "backend", "scheduler", "progress") if k in options}
    t0 = time.perf_counter()
    epsilon = resolution * closing_speed(problem) if isinstance(problem, ImpactProblem) else resolution
    keep = options.pop("keep_checkpoint", False)
    result, held, distances, rounds, met, stopped, state = _doubling(problem, h, max_steps, epsilon, missed,
                                                                     confidence, initial, max_samples, time_limit,
                                                                     run, options, thin=False)
    budget = int(result.settings.n_samples)
    completeness = result.metadata["completeness"]  # its cells missed at the run's resolution, beside its own at GAP
    at = {key: completeness.pop(key + "_at") for key in ("cells_missed", "cells_far")}
    size = frontier_budget(held.settings.n_samples, at["cells_missed"], missed)  # grows with the estimate's excess
    frontier, why = None, _frontier_needed(at["cells_missed"], rounds, missed, with_held_out and with_frontier,
                                           size, time_limit, t0)
    if why is None:
        frontier = frontier_search(result, held, size, distances=distances, **run)
        why = "ran" if frontier is not None else "no outcome to start from"
    if with_held_out:  # the held-out outcomes are outcomes of the same set: they join it (issue 41)
        own = result.settings
        result = result.union(held)
        if frontier is not None:  # and so do the frontier's
            result = result.union(frontier)
            result.frontier_caps = frontier.child_caps
            result.metadata["frontier"] = {"source": 2, "budget": frontier.settings.n_samples, "set": own.as_dict(),
                                           "held_out": held.settings.as_dict(),
                                           "rounds": frontier.metadata["frontier"]["rounds"]}
    drawn = sum(r["samples"] + r["held_out_samples"] for r in rounds)
    drawn += result.metadata["completeness"].get("search_samples", 0)
    spent = 0 if frontier is None else int(frontier.settings.n_samples)
    result.metadata["coverage"] = {"resolution": resolution, "missed": missed, "confidence": float(confidence),
                                   "epsilon": epsilon, "rounds": rounds, "met": met, "stopped": stopped,
                                   "budget": budget, "held_out_budget": int(rounds[-1]["held_out_samples"]),
                                   "cells_missed": at["cells_missed"], "cells_far": at["cells_far"],
                                   "with_held_out": bool(with_held_out), "frontier_budget": spent,
                                   "frontier": why, "samples_drawn": int(drawn + spent),
                                   "seconds": time.perf_counter() - t0,
                                   "resumed_rounds": 0 if state is None else state.resumed}
    if state is not None and not keep:
        state.remove()
    warn_if_thin(result)
    return result


def _frontier_needed(share, rounds, missed, wanted, size, time_limit, t0):
    """None when the frontier (:mod:`reach.sets.frontier`, ``size`` samples) should run after the last round, else
    why not: where the estimated share of cells missed at the run's resolution (``share``) is over ``missed``, or
    the frontier is small (:data:`FRONTIER_ALWAYS`)."""
    import time

    if not wanted:
        return "not asked for"
    last = rounds[-1]
    small = least_budget(last["held_out_samples"]) <= FRONTIER_ALWAYS
    if not share > missed and not small:  # (nan: nothing to measure)
        return f"the estimated share of cells missed ({share:.3g}) is within {missed:g}"
    cost = last["seconds"] * size / max(last["samples"], 1)  # (a round's seconds include its held-out search)
    if time_limit is not None and time.perf_counter() - t0 + cost > time_limit:
        return "time limit"
    return None


def _doubling(problem, h, max_steps, epsilon, bound, confidence, initial, max_samples, time_limit, run, options, *,
              thin=True):
    """Doubling budgets until the held-out bound is at most ``bound``: ``(set, held-out set, its distances to the
    set, rounds, met, why it stopped)``.

    ``thin``: the trials are the held-out outcomes thinned to one per cell of 0.4 % of ``|vn0|``; else all of them.
    """
    import time

    max_samples = check_integer("max_samples", max_samples, low=1)
    initial = check_integer("initial", initial, low=1, high=max_samples)
    progress = run.pop("progress", False)
    why = None
    if isinstance(problem, ImpactProblem):  # resolve "auto" once, not in every round (its probe is the same)
        options["solution_choice"], why = auto_choice(problem, options.get("solution_choice", "auto"), h, max_steps)
    fields, _ = _split_options(options, None, None, h)  # the settings each round's set will have, but for its size
    state = _rounds_checkpoint(problem, SamplingSettings(initial, h, max_steps, **fields), options,
                               {"kind": "adaptive" if thin else "coverage", "epsilon": epsilon, "bound": bound,
                                "confidence": confidence, "initial": initial, "max_samples": max_samples})
    rounds, t0 = ([] if state is None else list(state.rounds)), time.perf_counter()
    n = 2 * rounds[-1]["samples"] if rounds else initial
    if rounds and progress:
        print(f"  resumed after {len(rounds)} round{'s' if len(rounds) > 1 else ''}, from {state.path}")
    def part(kind):  # what checkpoints this round's "set" or "held" run (n: the round under way)
        return {} if state is None else state.part(kind, n)

    try:  # a run that fails before any work leaves no checkpoint to stop the next (a missing GPU, say)
        while True:
            start = time.perf_counter()
            # on a GPU alone a round's held-out search may run on the cores meanwhile (where "auto" was resolved above)
            ahead = _held_out_ahead(problem, SamplingSettings(n, h, max_steps, **fields), None, None, run,
                                    small=True) if isinstance(problem, ImpactProblem) else None
            result = sample_post_impact_set(problem, n, h, max_steps, completeness=False, progress=progress,
                                            **run, **options, **part("set"))
            result.index_in_background()  # the set's index builds while the held-out search runs
            held = None if ahead is None else ahead.result()
            if held is None or held.settings != held_out_settings(result.settings):
                held = run_sampling(problem, held_out_settings(result.settings), warn=False, keep_caps=True, **run,
                                    **part("held"))
            cores = climb_executor(held, held.settings.n_samples, None, run.get("n_jobs", 1), run.get("backend", "loky"),
                                   run.get("scheduler")).cores
            first = (cell_counts(problem, held.velocities, CELL * closing_speed(problem))[0] if thin
                     else np.arange(len(held.velocities)))
            d = np.atleast_1d(result.distance_to(held.velocities[first], workers=cores)) if len(result) and len(first) \
                else np.zeros(0)
            far, trials = int(np.count_nonzero(d > epsilon)), len(d)
            upper = clopper_pearson_upper(far, trials, confidence)
            rounds.append({"samples": n, "held_out_samples": held.settings.n_samples, "held_out": trials, "far": far,
                           "estimate": far / max(trials, 1), "upper_bound": upper,
                           "seconds": time.perf_counter() - start})
            if progress:
                unit = " m/s" if isinstance(problem, ImpactProblem) else ""  # (contact velocities)
                print(f"  {n:>9,d} samples: {far} of {trials} held-out outcomes farther than {epsilon:.3g}{unit} "
                      f"(upper bound {upper:.2e})")
            if upper <= bound:
                stopped = "met"
                break
            if 2 * n > max_samples:
                stopped = "sample cap"
                break
            if time_limit is not None and time.perf_counter() - t0 + 2 * rounds[-1]["seconds"] > time_limit:
                stopped = "time limit"
                break
            if state is not None:
                state.finished(rounds[-1])
            n *= 2
    except Exception:
        if state is not None:
            state.discard_if_empty()
        raise
    if why is not None:
        result.metadata["auto_choice"] = why
    distances = held_out_distances(result, held.velocities, workers=cores, known=(first, d) if len(d) else None)
    info = measure_gap(result, held.velocities, strategy=HELD_OUT_STRATEGY, samples=held.settings.n_samples,
                       distances=distances, at=None if thin else epsilon)
    result.metadata["completeness"] = with_climb(result, held, info, distances=distances, **run)
    return result, held, distances, rounds, stopped == "met", stopped, state


def _rounds_checkpoint(problem, settings, options, rule):
    """The run's :class:`~reach.sets.rounds.RoundsCheckpoint` where ``options`` name a ``checkpoint`` (taken out of
    them, with ``resume``), else None; ``settings`` are the first round's, and ``rule`` how the run stops."""
    path, resume = options.pop("checkpoint", None), options.pop("resume", False)
    if path is None:
        if resume:
            raise ValueError("`resume=True` needs a `checkpoint` directory.")
        return None
    if not isinstance(problem, ImpactProblem):
        return None  # (the first round refuses it, by name)
    key = {"problem": problem.fingerprint(), **{k: v for k, v in settings.as_dict().items() if k != "n_samples"},
           **rule}
    return RoundsCheckpoint.open(path, key, resume=resume)
