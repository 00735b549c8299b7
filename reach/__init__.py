"""reach: the set of possible outcomes of simultaneous frictional impacts.

Implements Halm & Posa's set-valued extension of Routh's impact law: a Numba
Lemke solver drives a discrete multi-impact integrator (Algorithm 1), and a
sampler builds epsilon-nets of the post-impact velocity set (Algorithm 2).

Layers, each importing only those before it:

* ``reach.kernels``: jitted kernels (Lemke, verification, enumeration, Routh
  steps, counter-based random numbers, Sobol points);
* ``reach.problem``: the impact problem, the LCP's Python face, one Routh step;
* ``reach.sampling``: the sampling engine: settings, the run's plan, caps,
  directed rounds, solution choice, executors, checkpoints;
* ``reach.sets``: the result record and its files, how a set is built, how
  complete it is, witnesses;
* ``reach.laws`` (other impact laws), ``reach.models`` (planar modeller,
  MuJoCo and Drake adapters), ``reach.analysis`` (propagation, uniqueness,
  Zeno, comparisons), ``reach.design``;
* ``reach.plotting`` (everything that draws);
* ``reach.tools`` (command line, figures, bench).

``reach.files`` (atomic writes, safe archive reads) and ``reach.version`` sit
beside them and import nothing of ours.
"""

from reach.version import __version__
from reach.problem.impact import ImpactProblem
from reach.sets.result import PostImpactSet, SetStatus
from reach.sets.build import sample_post_impact_set
from reach.sampling.settings import SamplingSettings

__all__ = ["ImpactProblem", "PostImpactSet", "SamplingSettings", "SetStatus", "sample_post_impact_set",
           "__version__"]
