"""Adapters: impact problems from other tools' robot models.

``reach.adapters.mujoco`` -- MuJoCo models (MJCF, URDF through ``MjSpec``) at a
touchdown state to :class:`reach.ImpactProblem`; needs the ``[mujoco]`` extra
(the numpy-only ``mujoco-core`` wheel).  It is not imported here, so
``import reach.adapters`` works without MuJoCo installed.
"""

__all__ = ["mujoco"]
