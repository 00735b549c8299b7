"""
The paper's five scenarios
==========================

Halm & Posa's section 5.4 draws the set of each of five impacts: a rocking block, a box
against a wall, a compass gait, the RAMone biped and a stack of discs. ``reach figures``
regenerates them at the paper's budgets; here each gets a small budget, and the
paper-style figure: the configuration before and after, and the set projected onto the
contact-frame planes, with the sequential and simultaneous (Anitescu–Potra) outcomes.
"""

import scenarios
from reach import sample_post_impact_set
from reach.plotting.layout import plot_scenario_figure

for name in scenarios.names():
    s = scenarios.get(name)
    result = sample_post_impact_set(s.problem, 2**10, s.h, s.N, keep_paths=100, completeness=False)
    print(f"{name}: {result.message}")
    plot_scenario_figure(s, result)
