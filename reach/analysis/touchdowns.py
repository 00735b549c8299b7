"""A spatial robot through several touchdowns: MuJoCo flies every carried state to its next impact, and each
impact's set is sampled there (issue 42).

:func:`propagate_touchdowns` is :func:`reach.analysis.propagate.propagate` for a
MuJoCo model: between impacts :func:`reach.models.mujoco_flight.fly` integrates
the model with its own integrator, limits, damping and actuators under the
user's controller; at each touchdown :func:`reach.models.mujoco.impact_from_mujoco`
reads the impact problem and its set is sampled (with its completeness
estimate).  The same thinning carries a covering subset of the outcomes on
(at most ``max_branches`` states, resolution ``resolution`` in velocity and
``resolution_q`` in ``qpos``), and every outcome keeps its lineage, so that
any state replays bit for bit (:meth:`TouchdownPropagation.replay`: the
flights through MuJoCo again, and each impact's sample alone).  The result is
a :class:`~reach.analysis.propagate.Propagation`, so
:func:`reach.analysis.robust.check` applies as it is.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from reach import sample_post_impact_set
from reach.analysis.compare.mujoco import mujoco_data
from reach.analysis.propagate import (ImpactSet, Propagation, PropagationSettings, carry, open_checkpoint,
                                      sampling_options, save_propagation)
from reach.models.mujoco import impact_from_mujoco
from reach.models.mujoco_flight import fly
from reach.sets.run import run_sampling
from reach.sets.witness import replay_sample, witness_caps

__all__ = ["TouchdownPropagation", "propagate_touchdowns", "load_touchdowns"]


class TouchdownPropagation(Propagation):
    """The touchdowns of a MuJoCo model (see the module docstring); ``q`` is ``qpos``, ``v`` is ``qvel``."""

    def __init__(self, model, q0, v0, settings, impacts, controller=None):
        super().__init__(None, q0, v0, settings, impacts)
        self.model, self.controller = model, controller
        self.problems = {}  # (impact, branch) -> the ImpactProblem read at that touchdown

    def touchdown(self, t, qpos, qvel):
        """Fly from ``(t, qpos, qvel)``: ``(flight, impact problem or None)``."""
        flight = fly(self.model, qpos, qvel, t0=t, controller=self.controller, t_max=t + self.settings.t_max)
        if flight.kind != "impact":
            return flight, None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the model's condim 6 feet: said once, when the model is first read
            problem = impact_from_mujoco(self.model, mujoco_data(self.model, flight.qpos, flight.qvel)).problem
        return flight, problem

    def replay(self, k, j):
        """Fly and impact again along the lineage of outcome j of impact k: its post-impact ``(t, qpos, qvel)``."""
        if not 1 <= k <= len(self.impacts) or not 0 <= j < len(self.impacts[k - 1].v):
            raise ValueError(f"no outcome {j} at impact {k}.")
        t, q, v = 0.0, self.q0, self.v0
        for impact, branch, sample, caps in self.lineage(k, j):
            flight, problem = self.touchdown(t, q, v)
            settings = self._sampling(impact, branch, problem)
            if isinstance(caps, str):  # not carried: sample its set again (same seed, same set) for its caps
                caps = witness_caps(run_sampling(problem, settings, warn=False, keep_caps=True), sample)
            t, q, v = flight.t, flight.qpos, replay_sample(problem, settings, sample, caps)[0]
        return t, q, v

    def problem(self, k, b):
        """The impact problem of branch b of impact k (read again from its state where not kept, e.g. loaded)."""
        if (k, b) not in self.problems:
            record = self.impacts[k - 1]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.problems[(k, b)] = impact_from_mujoco(
                    self.model, mujoco_data(self.model, record.q[b], record.v_pre[b])).problem
        return self.problems[(k, b)]

    def contact_state(self, k, b, v):
        """``(names, contact velocities (m, 3), touching (m,))`` of velocity v at the contacts of branch b of impact k."""
        problem = self.problem(k, b)
        return tuple(problem.contact_names), problem.contact_velocities(v), np.ones(problem.m, dtype=bool)


def propagate_touchdowns(model, qpos, qvel, *, controller=None, settings=None, n_jobs=1, executor=None,
                         progress=False, checkpoint=None, resume=False, **fields):
    """The sets of states at K successive touchdowns of a MuJoCo ``model`` from ``(qpos, qvel)``.

    ``controller(t, qpos, qvel) -> ctrl`` acts in flight (and stance).  ``settings`` or its fields
    (``impacts``, ``budget``, ``max_branches``, ``resolution``, ``t_max`` ...) as for
    :func:`~reach.analysis.propagate.propagate`; ``resolution_q`` thins in ``qpos`` units.
    ``n_jobs`` local workers, or an ``executor`` (an executor, or a backend's name: ``"cuda"`` for this
    machine's GPU), sample each touchdown's set; the result does not depend on them.
    ``checkpoint``: a file written after every touchdown; with ``resume=True`` the run continues from it
    (the same start, settings and controller), as :func:`~reach.analysis.propagate.propagate` does.
    Returns a :class:`TouchdownPropagation`; ``ended`` lists the carried states that never touched down again.
    """
    if settings is None:
        settings = PropagationSettings(**fields)
    elif not isinstance(settings, PropagationSettings):
        raise TypeError(f"`settings` must be a PropagationSettings; got {type(settings).__name__}.")
    elif fields:
        settings = dataclasses.replace(settings, **fields)
    where = sampling_options(n_jobs, executor)
    out = TouchdownPropagation(model, qpos, qvel, settings, [], controller)
    carried, out.ended = [(0.0, out.q0, out.v0)], []
    if checkpoint is not None and open_checkpoint(out, checkpoint, resume):
        carried = _carried(out.impacts[-1])
    from tqdm.auto import tqdm

    for k in tqdm(range(len(out.impacts) + 1, settings.impacts + 1), disable=not progress, desc="touchdowns",
                  unit="touchdown", leave=False):
        rows, ended = [], []
        for parent, (t, q, v) in enumerate(carried):
            flight, problem = out.touchdown(t, q, v)
            if problem is None:
                ended.append((parent, flight.kind))
                continue
            b = len(rows)
            result = sample_post_impact_set(problem, settings.budget, settings.h_of(problem), settings.max_steps,
                                            seed=settings.seed_of(k, b), completeness=settings.completeness,
                                            keep_caps=True, **where)
            out.problems[(k, b)] = problem
            rows.append((parent, flight, problem, result))
        if not rows:
            out.ended = ended
            break
        record = _record(k, rows, ended)
        carry(record, settings, [result for *_, result in rows])
        out.impacts.append(record)
        carried = _carried(record)
        if checkpoint is not None:
            save_propagation(out, checkpoint, meta={"checkpoint": True})
    return out


def _carried(record):
    """The states ``(t, qpos, qvel)`` carried on from a touchdown's record."""
    return [(float(record.t[record.branch[j]]), record.q[record.branch[j]], record.v[j]) for j in record.carried]


def _record(k, rows, ended):
    """The :class:`ImpactSet` of impact k from its branches ``(parent, flight, problem, result)``."""
    kept = [np.flatnonzero(result.kept) for *_, result in rows]
    return ImpactSet(index=k, parents=np.array([p for p, *_ in rows]), t=np.array([f.t for _, f, *_ in rows]),
                     q=np.array([f.qpos for _, f, *_ in rows]), v_pre=np.array([f.qvel for _, f, *_ in rows]),
                     contacts=[tuple(problem.contact_names) for _, _, problem, _ in rows],
                     branch=np.concatenate([np.full(len(i), b) for b, i in enumerate(kept)]),
                     sample=np.concatenate(kept),
                     v=np.vstack([result.all_velocities[i] for (*_, result), i in zip(rows, kept)]),
                     ended=list(ended),
                     completeness=[result.metadata.get("completeness") for *_, result in rows])


def load_touchdowns(path, model, controller=None):
    """A :class:`TouchdownPropagation` saved by :func:`reach.analysis.propagate.save_propagation`, for ``model``;
    ``(propagation, meta)``.  Its witnesses replay with ``controller``, which must be the run's."""
    from reach.analysis.propagate import load_propagation

    loaded, meta = load_propagation(path, None)
    out = TouchdownPropagation(model, loaded.q0, loaded.v0, loaded.settings, loaded.impacts, controller)
    return out, meta

