"""
A first post-impact set: the rocking block
==========================================

The paper's 1 x 2 m block dropped flat onto the floor: both bottom corners strike at
once, and the outcome depends on how the two corners' impulses build up. We sample the
set and draw it in the plane of the two normal velocities.
"""

import scenarios
from reach import sample_post_impact_set
from reach.plotting import plot_contact_plane

s = scenarios.get("rocking-block")
result = sample_post_impact_set(s.problem, 2**12, s.h, s.N, keep_paths=300)
print(result.summary()["contacts"])
plot_contact_plane(result, ("A.normal", "B.normal"), mirror=s.mirror, title="rocking block: A vs B normal velocity")
