"""
Stewart & Trinkle's spinning rod
================================

The implicit time-stepper of Stewart & Trinkle (the method rigid-body simulators use)
on their spinning rod falling onto a table: velocities for two step sizes.
"""

import scenarios
from reach.laws import simulate
from reach.plotting.stepping import plot_rod_velocities

sim = scenarios.lookup("spinning-rod", "simulation")
runs = {h: simulate(sim.system, sim.q0, sim.v0, h, 0.8) for h in (0.01, 0.005)}
print({h: run.onsets("end1|table") for h, run in runs.items()})
plot_rod_velocities(runs, sim.events)
