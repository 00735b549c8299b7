"""Replayable witnesses: the caps that reproduce one sample of a set, and the replay.

Every outcome of a set is a trajectory of Routh steps with caps ``h p``; a
sample is reproduced, bit for bit, from its problem, settings, index and —
for a directed child — its quantized caps (:func:`witness_caps`).
:func:`replay_sample` runs it again alone; :mod:`reach.analysis.propagate`
and :mod:`reach.analysis.robust` hand such witnesses to the user.
"""

from __future__ import annotations

import numpy as np

from reach.sampling.directed import schedule
from reach.sampling.engine import Plan, run_chunk

__all__ = ["witness_caps", "replay_sample"]


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
    if result.settings.strategy == "uniform" or not rounds or index < n0:
        return None
    if not hasattr(result, "child_caps"):
        raise ValueError("this result's directed caps were not kept: sample again with the same settings and "
                         "keep_caps=True to replay it.")
    for start, Q in result.child_caps:
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
