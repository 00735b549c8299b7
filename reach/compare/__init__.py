"""Comparisons of the set-valued impact model with other impact models.

``reach.compare.compliant``: the rocking block under Kelvin–Voigt compliant
contact (core paper §5.4.1, Fig. 12).
"""

from reach.compare.compliant import (
    CompliantBlock,
    CompliantRun,
    CompliantSweep,
    containment,
    coverage,
    plot_compliant,
    sequential_outcome,
    set_region,
    simulate_impact,
    sweep_initial_tilt,
    sweep_stiffness_ratio,
)

__all__ = [
    "CompliantBlock",
    "CompliantRun",
    "CompliantSweep",
    "containment",
    "coverage",
    "plot_compliant",
    "sequential_outcome",
    "set_region",
    "simulate_impact",
    "sweep_initial_tilt",
    "sweep_stiffness_ratio",
]
