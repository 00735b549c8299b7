"""Where impact problems come from: the planar modeller and simulator adapters.

* :mod:`.planar` — kinematic trees of planar bodies, walls and discs; M, the
  contact Jacobians and an :class:`~reach.problem.impact.ImpactProblem` at a state;
* :mod:`.mujoco` — an ImpactProblem from a MuJoCo model at a touchdown state
  (needs the ``[mujoco]`` extra; not imported here).

A new robot model or simulator adapter goes here, producing an ``ImpactProblem``.
"""
