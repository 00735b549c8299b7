"""
Your own planar system: a dumbbell landing on a slope
=====================================================

:class:`reach.models.planar.PlanarModel` builds a planar kinematic tree (floating,
revolute and prismatic joints carrying point masses, rods, boxes and discs) against
half-plane walls, and gives the mass matrix, signed distances and exact contact
Jacobians. Here a 1 m bar with a 1 kg wheel at each end lands flat on a 20° slope with
both wheels at once, moving and spinning; ``model.impact_problem`` makes the
:class:`reach.ImpactProblem`, and its set is sampled and drawn.
"""

import numpy as np

from reach import sample_post_impact_set
from reach.models.planar import PlanarModel
from reach.plotting import plot_contact_plane

slope, radius = np.deg2rad(20.0), 0.1
model = PlanarModel("dumbbell")
model.add_body("dumbbell", joint="floating")  # q = [x, y, theta]
model.add_rod("dumbbell", "bar", (-0.5, 0.0), (0.5, 0.0), contact=False)
model.add_disc("dumbbell", "back", radius, offset=(-0.5, 0.0), mass=1.0)
model.add_disc("dumbbell", "front", radius, offset=(0.5, 0.0), mass=1.0)
normal = (-np.sin(slope), np.cos(slope))
model.add_wall("slope", normal=normal, offset=0.0)

# bar parallel to the slope, both wheels touching it, falling and spinning
q = np.array([0.0, 0.0, slope]) + np.r_[radius * np.array(normal), 0.0]
v = np.array([0.3, -1.0, 0.5])
print("signed distances:", np.round(model.signed_distances(q), 12))
problem = model.impact_problem(q, v, mu=0.4, contacts=["back|slope", "front|slope"], names=["A", "B"])
print(problem)

result = sample_post_impact_set(problem, 2**12, h=0.5, max_steps=10, keep_paths=300)
print(result.message)
for contact, share in result.summary()["contacts"].items():
    print(f"{contact}: lift-off {share['lift_off']:.0%}, slide {share['slide']:.0%}, stick {share['stick']:.0%}")
plot_contact_plane(result, ("A.normal", "B.normal"), title="dumbbell: back (A) vs front (B) wheel normal velocity")
