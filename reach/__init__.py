"""reach: the set of possible outcomes of simultaneous frictional impacts.

Implements Halm & Posa's set-valued extension of Routh's impact law: a Numba
Lemke solver drives a discrete multi-impact integrator (Algorithm 1), and a
sampler builds epsilon-nets of the post-impact velocity set (Algorithm 2).
"""

__version__ = "0.1.0"

from reach._numba_cache import ensure_fresh_cache  # noqa: E402

ensure_fresh_cache()

from reach.problem import ImpactProblem  # noqa: E402
from reach.result import PostImpactSet  # noqa: E402
from reach.sampler import sample_post_impact_set  # noqa: E402

__all__ = ["ImpactProblem", "PostImpactSet", "sample_post_impact_set", "__version__"]
