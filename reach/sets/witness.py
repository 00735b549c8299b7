"""Replayable witnesses: the caps that reproduce one sample of a set, and the replay.

Every outcome of a set is a trajectory of Routh steps with caps ``h p``; a
sample is reproduced, bit for bit, from its problem, settings, index and —
for a directed child — its quantized caps (:func:`witness_caps`).
:func:`replay_sample` runs it again alone; :mod:`reach.analysis.propagate`
and :mod:`reach.analysis.robust` hand such witnesses to the user.
:func:`replay_outcome` replays any sample of a set, a union of runs included
(a coverage-driven set holds its held-out search's and its frontier's outcomes
too): it finds the run the sample came from (:func:`source_of`) and replays it
with that run's own settings (a frontier child, :mod:`reach.sets.frontier`,
with its caps).
"""

from __future__ import annotations

import numpy as np

from reach.sampling.directed import schedule
from reach.sampling.engine import Plan, run_chunk
from reach.sampling.settings import SamplingSettings
from reach.sets.frontier import frontier_search
from reach.sets.run import run_sampling

__all__ = ["witness_caps", "replay_sample", "source_of", "replay_outcome"]


def witness_caps(result, index):
    """What replays sample ``index`` of ``result``: its quantized caps (N, m) uint16, or None if drawn by index.

    A directed child's caps were made from the run's earlier outcomes; the first part of a directed run and
    every uniform run draw caps from (seed, index) alone.  For a child, the result must come from this
    session's sampler with ``keep_caps=True`` (the children's caps are not saved in result files), and not a
    union of runs, whose settings no single run had.
    """
    index = int(index)
    if result.metadata.get("union"):  # its settings are the first run's with the summed count: no sampler ran them
        raise ValueError("this result is a union of runs (PostImpactSet.union): replay a sample from the run it "
                         "came from.")
    if not 0 <= index < len(result.all_velocities):
        raise ValueError(f"sample index {index} is out of range (the set has {len(result.all_velocities)} samples).")
    n0, rounds = schedule(result.settings.n_samples)
    frontier = "frontier" in result.metadata  # a frontier (reach.sets.frontier): every sample is a child
    if not frontier and (result.settings.strategy == "uniform" or not rounds or index < n0):
        return None
    if not hasattr(result, "child_caps"):
        raise ValueError("this result's directed caps were not kept: sample again with the same settings and "
                         "keep_caps=True to replay it.")
    return _stored(result.child_caps, index)


def _stored(child_caps, index):
    """Sample ``index``'s caps in a run's ``(first index, quantized caps)`` list."""
    for start, Q in child_caps:
        if start <= index < start + len(Q):
            return Q[index - start].copy()
    raise ValueError(f"sample {index} has no stored caps.")


def replay_sample(problem, settings, index, caps=None):
    """Run sample ``index`` again, alone: ``(velocity (nv,), kept)``, bit for bit the sampler's.

    ``caps`` is :func:`witness_caps` of that sample (None: drawn from the seed and index).
    """
    plan = Plan(problem, settings)
    chunk = run_chunk(plan, int(index), 1, caps=None if caps is None else np.asarray(caps)[None])
    return chunk["velocities"][0].copy(), bool(chunk["kept"][0])


def source_of(result, index):
    """``(settings, index in that run)`` of sample ``index``: the set's own, or for a union the run it came from.

    A union (:meth:`reach.sets.result.PostImpactSet.union`) lists its runs'
    settings in ``metadata["union_of"]``, in the order of their samples.
    """
    return _locate(result, index)[1:]


def _locate(result, index):
    """``(position of the run in the union, its settings, index in that run)`` of sample ``index``."""
    index = int(index)
    if not 0 <= index < len(result.all_velocities):
        raise ValueError(f"sample index {index} is out of range (the set has {len(result.all_velocities)} samples).")
    if not result.metadata.get("union"):
        return 0, result.settings, index
    start = 0
    for position, source in enumerate(result.metadata["union_of"]):
        settings = SamplingSettings.from_dict(source)
        if index < start + settings.n_samples:
            return position, settings, index - start
        start += settings.n_samples
    raise ValueError(f"sample {index} lies beyond the runs this union lists.")


def replay_outcome(result, index):
    """Sample ``index`` of ``result`` run again alone, from the run it came from: ``(velocity, kept)``, bit for bit.

    A directed child's caps come from ``result.child_caps`` where kept, else
    from running its run again with ``keep_caps=True`` (as long as that run).
    A frontier child's (:mod:`reach.sets.frontier`, in a coverage-driven set)
    come from ``result.frontier_caps`` where kept, else from running the set,
    its held-out search and the frontier again.
    """
    position, settings, local = _locate(result, index)
    frontier = result.metadata.get("frontier") if result.metadata.get("union") else None
    if frontier is not None and position == frontier["source"]:
        return replay_sample(result.problem, settings, local, _frontier_caps(result, frontier, local))
    n0, rounds = schedule(settings.n_samples)
    caps = None
    if settings.strategy != "uniform" and rounds and local >= n0:
        run = result if hasattr(result, "child_caps") and not result.metadata.get("union") else \
            run_sampling(result.problem, settings, warn=False, keep_caps=True)
        caps = witness_caps(run, local)
    return replay_sample(result.problem, settings, local, caps)


def _frontier_caps(result, frontier, local):
    """The caps of the frontier's child ``local``: kept on the union, or the frontier run again from its set."""
    stored = getattr(result, "frontier_caps", None)
    if stored is None:
        problem = result.problem
        own = run_sampling(problem, SamplingSettings.from_dict(frontier["set"]), warn=False)
        held = run_sampling(problem, SamplingSettings.from_dict(frontier["held_out"]), warn=False, keep_caps=True)
        stored = frontier_search(own, held, frontier["budget"]).child_caps
    return _stored(stored, local)
