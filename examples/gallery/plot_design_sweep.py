"""
Designing a predictable impact: the billiard break
==================================================

Seghete & Murphey's billiard break: a cue ball strikes two resting balls at once. Their
indeterminacy xi and the Halm-Posa set's diameter, against the angle between the balls.
"""

import numpy as np

from reach.design import sweep
from reach.plotting.design import plot_billiards
import scenarios

theta = np.linspace(np.pi / 6, np.pi - 0.05, 15)
result = sweep(scenarios.lookup("billiards", "design").build, {"theta": theta}, ("xi", "diameter", "max_cosine"), budget=2**7)
plot_billiards(theta, result.values["xi"], result.values["diameter"], result.values["max_cosine"])
