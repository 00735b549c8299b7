"""reach: the set of possible outcomes of simultaneous frictional impacts.

Implements Halm & Posa's set-valued extension of Routh's impact law: a Numba
Lemke solver drives a discrete multi-impact integrator (Algorithm 1), and a
sampler builds epsilon-nets of the post-impact velocity set (Algorithm 2).

Layers, each importing only those before it:

* ``reach.kernels``: jitted kernels (Lemke, verification, enumeration, Routh
  steps, counter-based random numbers, Sobol points);
* the core: ``problem``, ``settings``, ``lcp``, ``step``, ``sampler``,
  ``result``, ``checkpoint``;
* ``reach.laws`` (other impact laws), ``reach.models`` (planar modeller,
  MuJoCo adapter), ``reach.analysis`` (uniqueness, Zeno, comparisons);
* ``reach.plotting`` (everything that draws);
* ``reach.tools`` (command line, figures, bench).
"""

from reach.version import __version__
from reach.problem import ImpactProblem
from reach.result import PostImpactSet, SetStatus
from reach.sets.build import sample_post_impact_set
from reach.settings import SamplingSettings

__all__ = ["ImpactProblem", "PostImpactSet", "SamplingSettings", "SetStatus", "sample_post_impact_set",
           "__version__"]
