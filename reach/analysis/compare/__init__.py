"""Comparisons of the set-valued impact model with other impact models.

``reach.analysis.compare.compliant``: the rocking block under Kelvin–Voigt compliant
contact (core paper §5.4.1, Fig. 12).
``reach.analysis.compare.mujoco``: the same impacts simulated in MuJoCo with stiff,
strongly damped contacts (needs the ``[mujoco]`` extra; not imported here).
``reach.analysis.compare.regions``: containment and coverage of outcomes in a set's region.
"""

from reach.analysis.compare.compliant import (
    CompliantBlock,
    CompliantRun,
    CompliantSweep,
    sequential_outcome,
    simulate_impact,
    sweep_initial_tilt,
    sweep_stiffness_ratio,
)
from reach.analysis.compare.regions import containment, coverage, set_region

__all__ = [
    "CompliantBlock",
    "CompliantRun",
    "CompliantSweep",
    "containment",
    "coverage",
    "sequential_outcome",
    "set_region",
    "simulate_impact",
    "sweep_initial_tilt",
    "sweep_stiffness_ratio",
]
