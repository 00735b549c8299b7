"""One engine run made into a set: :func:`run_sampling` wraps :func:`reach.sampling.engine.run_engine`'s
arrays in a :class:`~reach.sets.result.PostImpactSet` and warns when the set is thin.

The completeness estimate, the held-out search and the public entry points
(:mod:`reach.sets.build`) call it; so do the propagation through impacts and
witness replay, which need a set without its estimate.
"""

from __future__ import annotations

import warnings

from reach.sampling.engine import run_engine
from reach.sets.result import PostImpactSet, SamplingWarning, SetStatus

__all__ = ["run_sampling", "warn_if_thin"]


def run_sampling(problem, settings, *, warn=True, keep_caps=False, **run):
    """The set of one engine run of validated ``settings`` (no completeness estimate).

    ``run`` are :func:`~reach.sampling.engine.run_engine`'s options (executor,
    ``n_jobs``, ``backend``, ``scheduler``, checkpoint, ``resume``,
    ``keep_checkpoint``, ``progress``).  ``keep_caps`` keeps the directed
    children's caps (2 bytes per cap) on the result as ``child_caps``, so that
    any sample can be replayed alone (:mod:`reach.sets.witness`); ``warn``
    warns (:class:`~reach.sets.result.SamplingWarning`) when the set is empty
    or most samples were dropped.
    """
    engine = run_engine(problem, settings, **run)
    result = PostImpactSet.from_arrays(problem, settings, engine.arrays, engine.paths, timing=engine.timing)
    if keep_caps:
        result.child_caps = engine.child_caps
    if warn:
        warn_if_thin(result)
    return result


def warn_if_thin(result):
    """Warn (:class:`reach.sets.result.SamplingWarning`) when a set is empty or most samples were dropped."""
    if result.status in (SetStatus.EMPTY, SetStatus.FEW_KEPT):
        warnings.warn(result.message, SamplingWarning, stacklevel=3)
