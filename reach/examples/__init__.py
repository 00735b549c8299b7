"""Small examples shipped with the package.

* :mod:`reach.examples.requirements`: requirements for the README's first steps
  (``reach robust --predicate reach.examples.requirements:...``);
* :mod:`reach.examples.gaits`: PD controllers (trot, bound, stand) for
  ``examples/quadruped12.xml`` (``reach trajectory MODEL.xml --controller reach.examples.gaits:bound``);
* :func:`quadruped_touchdown`: the quadruped of ``examples/mujoco_quadruped.xml``
  landing on four feet at once, as an :class:`~reach.problem.impact.ImpactProblem`
  (``quadruped_touchdown.npz``, written by ``python examples/mujoco_touchdown.py``),
  so that benchmarks run it where MuJoCo is not installed.
"""

from pathlib import Path

__all__ = ["quadruped_touchdown", "QUADRUPED_TOUCHDOWN"]

#: The quadruped touchdown problem's file (4 spatial contacts, nv = 14, LCP size 44).
QUADRUPED_TOUCHDOWN = Path(__file__).with_name("quadruped_touchdown.npz")


def quadruped_touchdown():
    """The quadruped touchdown (``examples/mujoco_touchdown.py``) as an ImpactProblem; h = 1 N s and N = 10 suit it."""
    from reach.problem.impact import ImpactProblem

    return ImpactProblem.from_file(QUADRUPED_TOUCHDOWN)
