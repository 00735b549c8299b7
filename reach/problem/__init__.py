"""The impact problem and one Routh step: what every sampler, law and model stands on.

* :mod:`reach.problem.impact`: :class:`~reach.problem.impact.ImpactProblem` (mass matrix, contact Jacobians, friction, pre-impact velocity) and its files;
* :mod:`reach.problem.dynamics`: what a time-stepper needs of a mechanical system (the ``Dynamics`` protocol);
* :mod:`reach.problem.lcp`: the LCP solver's Python face (:func:`~reach.problem.lcp.lemke`, :class:`~reach.problem.lcp.LCPStatus`);
* :mod:`reach.problem.step`: one Routh step of a problem (paper Algorithm 1's step), over :mod:`reach.kernels.routh`.

This layer imports only :mod:`reach.kernels` and the root's :mod:`reach.files`.
"""

from reach.problem.impact import ImpactProblem

__all__ = ["ImpactProblem"]
