"""reach: the set of possible outcomes of simultaneous frictional impacts.

Implements Halm & Posa's set-valued extension of Routh's impact law: a Numba
Lemke solver drives a discrete multi-impact integrator (Algorithm 1), and a
sampler builds epsilon-nets of the post-impact velocity set (Algorithm 2).
"""

from reach.problem import ImpactProblem

__version__ = "0.1.0"
__all__ = ["ImpactProblem", "__version__"]
