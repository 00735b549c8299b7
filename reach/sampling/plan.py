"""A run is a plan: its phases, each phase's chunks, and what every chunk's samples depend on.

A sampling run (paper Algorithm 2, with :mod:`reach.sampling.directed`'s rounds) has
*phases* that must run in turn:

* ``first batch``: samples ``0 .. n0 - 1``, caps drawn from (seed, index);
* ``round 1`` .. ``round 4`` (directed sampling): children of the outcomes of
  every earlier phase, their caps chosen between phases.

Inside a phase every chunk is independent.  :func:`plan_run` cuts each phase
into chunks for ``workers`` workers: at least :data:`CHUNKS_PER_WORKER` chunks
per worker (a slow or late worker then holds up a phase by a quarter of its
share at most), at most ``settings.chunk_size`` samples a chunk, and the last
chunks of a phase smaller (:func:`tapered_chunks`); for a GPU, as few chunks as
its chunk size allows, of equal sizes (:func:`even_chunks`).  A sample's outcome depends
on (problem, settings, its index) and, in a round, on the caps chosen for it —
never on its chunk, its worker or the worker count: the seed of every random
number is (``settings.seed``, sample index).  So the same seed gives the same
set bit for bit whatever the plan, and a checkpoint written under one plan
resumes under another (``done``: the samples already finished).  A :class:`Plan`
holds the rest: the problem, and its data and options as the kernels take them.

>>> from reach.sampling.settings import SamplingSettings
>>> plan = plan_run(SamplingSettings(2**16, 1.0, 10), workers=16)
>>> [len(p.chunks) for p in plan.phases]
[64, 64, 64, 64, 64]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.kernels.enumeration import FALLBACK_MAX_N
from reach.kernels.modes import MAX_CERTIFIED_CONTACTS
from reach.kernels.routh import (CHOICE_ENUMERATE, CHOICE_EXACT, CHOICE_FIRST, CHOICE_RANDOM, CHOICE_WALK, certify_flag,
                                 modes_flag)
from reach.kernels.sobol import MAX_DIM
from reach.problem.impact import ImpactProblem
from reach.problem.step import kernel_data, step_options
from reach.sampling.directed import schedule

__all__ = ["CHUNKS_PER_WORKER", "TAPER_FLOOR", "CHOICES", "EXACT_MAX_CONTACTS", "Plan", "Phase", "RunPlan", "plan_run",
           "tapered_chunks", "even_chunks"]

#: Each phase is cut into at least this many chunks per worker (fewer only where it has fewer samples).
CHUNKS_PER_WORKER = 4
#: Smallest chunk a phase's tail is cut into (:func:`tapered_chunks`), where the phase is large enough.
TAPER_FLOOR = 256


def tapered_chunks(start, stop, size, floor=TAPER_FLOOR):
    """``(start, count)`` chunks covering ``start .. stop - 1``: ``size`` at first, then a quarter of what is left.

    The last chunks of a phase are smaller (down to ``floor``, or ``size`` if
    smaller), so no worker is left running one large chunk while the others
    wait for the next phase.
    """
    chunks, a = [], start
    while a < stop:
        left = stop - a
        count = min(left, size, max(floor, -(-left // 4)))
        chunks.append((a, count))
        a += count
    return chunks


def even_chunks(start, stop, size):
    """``(start, count)`` chunks covering ``start .. stop - 1``: as few as hold at most ``size`` each, their
    sizes differing by one at most."""
    pieces = -(-(stop - start) // size)
    edges = [start + (stop - start) * k // pieces for k in range(pieces + 1)]
    return [(a, b - a) for a, b in zip(edges[:-1], edges[1:])]


#: The kernels' choice code of each ``solution_choice``.
CHOICES = {"random": CHOICE_RANDOM, "first": CHOICE_FIRST, "enumerate": CHOICE_ENUMERATE, "exact": CHOICE_EXACT,
           "walk": CHOICE_WALK}
#: Most contacts of a planar problem for ``solution_choice="exact"`` (7^m pieces oriented once per problem).
EXACT_MAX_CONTACTS = MAX_CERTIFIED_CONTACTS


class Plan:
    """What one sampling run needs in every worker: the problem, its kernel data and options.

    ``certificate=False`` leaves exact choice's uniqueness certificate out of the data (their types are the
    same: the other process of a cold start, :mod:`reach.sampling.cold_start`, builds them so).
    """

    def __init__(self, problem, settings, *, certificate=True):
        if not isinstance(problem, ImpactProblem):
            raise TypeError(f"`problem` must be an ImpactProblem; got {type(problem).__name__}.")
        if settings.solution_choice == "enumerate" and problem.lcp_size > FALLBACK_MAX_N:
            raise ValueError(f"`solution_choice='enumerate'` needs a step LCP of size <= {FALLBACK_MAX_N}; "
                             f"this problem's is {problem.lcp_size} (m = {problem.m}, k = {problem.k}).")
        if settings.solution_choice == "exact" and (not problem.planar or problem.m > EXACT_MAX_CONTACTS):
            raise ValueError(f"`solution_choice='exact'` needs a planar problem with at most "
                             f"{EXACT_MAX_CONTACTS} contacts; this one is "
                             f"{'planar' if problem.planar else 'spatial'} with {problem.m}.")
        if settings.sequence == "sobol" and problem.m * settings.max_steps > MAX_DIM:
            raise ValueError(f"`max_steps` = {settings.max_steps} with {problem.m} contacts needs "
                             f"{problem.m * settings.max_steps} Sobol dimensions, more than {MAX_DIM}; "
                             "lower `max_steps` or use `sequence='uniform'`.")
        self.problem = problem
        self.settings = settings
        exact = certificate and settings.solution_choice == "exact"
        self.data = kernel_data(problem, certificate="auto" if exact else False)
        eps_lambda = settings.eps / (3.0 * problem.psi)
        self.options = step_options(problem, h=settings.h, eps_lambda=eps_lambda,
                                    choice=CHOICES[settings.solution_choice], seed=settings.seed)
        # the kernel's last arguments: None prunes the contact modes' code (random and first choice) and the
        # uniqueness certificate's (no certificate), so a run compiles only the code it can use
        self.flags = (modes_flag(self.options.choice), certify_flag(self.data))


class Phase(NamedTuple):
    """One phase of a run: samples ``start .. start + count - 1`` and the chunks still to run."""

    name: str
    start: int
    count: int
    chunks: tuple  # ((start, count), ...) of the samples not finished yet

    @property
    def directed(self):
        """Whether the phase's caps are chosen from earlier outcomes (a directed round)."""
        return self.name.startswith("round")


class RunPlan(NamedTuple):
    """The phases of one run for ``workers`` workers (see the module docstring)."""

    settings: object
    workers: int
    phases: tuple

    @property
    def chunks(self):
        """Every chunk still to run, phase after phase."""
        return [c for p in self.phases for c in p.chunks]

    @property
    def samples_to_run(self):
        """How many samples the chunks still to run hold (the rest were resumed from a checkpoint)."""
        return sum(count for _, count in self.chunks)

    def describe(self):
        """What will run where, as text (``reach run --plan``)."""
        s = self.settings
        lines = [f"{s.n_samples:,d} samples ({s.strategy} sampling, seed {s.seed}) on {self.workers} "
                 f"worker{'s' if self.workers != 1 else ''}; a sample's random numbers come from (seed, its index),",
                 "so the set is the same for any plan, worker count or resume.",
                 f"{'phase':<12} {'samples':>17} {'chunks':>7} {'per worker':>10} {'chunk sizes':>14}  caps"]
        for p in self.phases:
            sizes = [c for _, c in p.chunks]
            size = "-" if not sizes else (f"{max(sizes):,d}" if min(sizes) == max(sizes)
                                          else f"{min(sizes):,d}-{max(sizes):,d}")
            caps = "chosen from the outcomes before it" if p.directed else "drawn from (seed, index)"
            span = f"{p.start:,d}-{p.start + p.count - 1:,d}"
            left = "" if sum(sizes) == p.count else f" ({p.count - sum(sizes):,d} done)"
            lines.append(f"{p.name:<12} {span:>17} {len(p.chunks):>7} {len(p.chunks) / self.workers:>10.1f} "
                         f"{size:>14}  {caps}{left}")
        return "\n".join(lines)


def _phase_bounds(settings):
    """``[(name, start, count), ...]`` of a run's phases."""
    n = settings.n_samples
    if settings.strategy == "uniform":
        return [("all", 0, n)]
    n0, rounds = schedule(n)
    return [("first batch", 0, n0)] + [(f"round {r + 1}", a, c) for r, (a, c) in enumerate(rounds)]


def _gaps(start, stop, done):
    """Maximal ranges of ``start .. stop - 1`` not marked in ``done`` (None: nothing done)."""
    if done is None:
        return [(start, stop)]
    todo = ~np.asarray(done[start:stop], dtype=bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], todo.view(np.int8), [0]])))
    return [(start + int(a), start + int(b)) for a, b in zip(edges[::2], edges[1::2])]


def plan_run(settings, workers, *, done=None, chunk_size=None, taper=True):
    """The :class:`RunPlan` of ``settings`` on ``workers`` workers; ``done`` (bool, n_samples): finished samples.

    Each phase's chunks are at most ``chunk_size`` samples (default
    ``settings.chunk_size``; a GPU's executor asks for larger ones) and at
    most ``count / (CHUNKS_PER_WORKER * workers)`` (rounded up), so a phase
    with enough samples has at least :data:`CHUNKS_PER_WORKER` chunks a worker,
    the last ones smaller (:func:`tapered_chunks`).  Without ``taper`` (a GPU,
    whose one worker runs a chunk as one launch) each phase is cut into as few
    chunks of at most ``chunk_size`` as it can, of equal sizes: a small launch
    leaves most of a GPU idle.
    """
    workers = int(workers)
    if workers < 1:
        raise ValueError(f"`workers` must be >= 1; got {workers!r}.")
    phases = []
    for name, start, count in _phase_bounds(settings):
        gaps = _gaps(start, start + count, done)
        if taper:
            size = max(1, min(chunk_size or settings.chunk_size, -(-count // (CHUNKS_PER_WORKER * workers))))
            chunks = [c for a, b in gaps for c in tapered_chunks(a, b, size, floor=min(TAPER_FLOOR, size))]
        else:
            chunks = [c for a, b in gaps for c in even_chunks(a, b, chunk_size or settings.chunk_size)]
        phases.append(Phase(name, start, count, tuple(chunks)))
    return RunPlan(settings, workers, tuple(phases))
