"""
A set through several impacts: the rocking block
================================================

Dropped flat, the block's first impact has a set of outcomes; each later rocking impact
has one outcome per branch, 0.7 times the rate before (the Zeno solution), so the set
shrinks with the motion.
"""

import scenarios
from reach.analysis.propagate import propagate
from reach.plotting.through import plot_propagation

example = scenarios.lookup("rocking-block", "trajectory")
run = propagate(example.system, example.q0, example.v0, impacts=3, budget=2**8, max_branches=6)
print(run)
plot_propagation(run, example.coordinate[0], example.coordinate[1], title=example.title)
