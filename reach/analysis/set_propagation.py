"""One sampled set as a one-impact propagation, so that the robustness checks of :mod:`reach.analysis.robust`
apply to any impact problem (a MuJoCo touchdown, a Drake model, a planar scenario)."""

from __future__ import annotations

import numpy as np

from reach.analysis.propagate import UNKNOWN_CAPS, ImpactSet, Propagation, PropagationSettings
from reach.sets.run import run_sampling
from reach.sets.witness import replay_sample, witness_caps

__all__ = ["SetPropagation"]


class SetPropagation(Propagation):
    """One sampled set as a one-impact propagation, so that robustness checks apply to any impact problem.

    Works for spatial problems too (a MuJoCo touchdown): contact velocities
    come from the problem, and :meth:`replay` reruns a sample alone.

    Parameters
    ----------
    result : PostImpactSet
        Sampled with ``keep_caps=True`` to replay directed children without sampling again.
    q : array_like, optional
        The impact configuration (for the outcomes' ``q``).
    resolution : float, optional
        Cell size for the extent, in the velocity's units (default 1 % of ``|vn0|``).
    """

    def __init__(self, result, q=None, *, t=0.0, resolution=None):
        problem, s = result.problem, result.settings
        q = np.zeros(0) if q is None else np.asarray(q, dtype=float)
        scale = float(np.max(np.abs(problem.normal_velocities(problem.v))))
        settings = PropagationSettings(impacts=1, budget=s.n_samples, h=s.h, max_steps=s.max_steps, seed=s.seed,
                                       resolution=resolution or 0.01 * scale, resolution_q=1.0, max_branches=1)
        index = np.flatnonzero(result.kept)
        record = ImpactSet(index=1, parents=np.array([-1]), t=np.array([float(t)]), q=q[None],
                           v_pre=problem.v[None], contacts=[tuple(problem.contact_names)],
                           branch=np.zeros(len(index), dtype=int), sample=index, v=result.all_velocities[index],
                           completeness=[result.metadata.get("completeness")])
        super().__init__(None, q, problem.v, settings, [record])
        self.result = result

    def contact_state(self, k, b, v):
        problem = self.result.problem
        return problem.contact_names, problem.contact_velocities(v), np.ones(problem.m, dtype=bool)

    def lineage(self, k, j):
        return [(1, 0, int(self.impacts[0].sample[j]), UNKNOWN_CAPS)]

    def replay(self, k, j):
        """Rerun outcome j's sample alone: ``(t, q, v)``, bit for bit."""
        result = self.result
        sample = int(self.impacts[0].sample[j])
        if not hasattr(result, "child_caps"):
            result = run_sampling(result.problem, result.settings, warn=False, keep_caps=True)
        v = replay_sample(result.problem, result.settings, sample, witness_caps(result, sample))[0]
        return float(self.impacts[0].t[0]), self.q0, v
