"""Build your own planar system with reach.models.planar and get its ImpactProblem.

A dumbbell (a 1 m massless bar with a 0.1 m, 1 kg wheel at each end) lands
flat on a 20 degree slope with both wheels at once.  The script builds the
model, places it so both wheels touch, makes the impact problem, saves it
(``reach run --problem dumbbell.npz`` reads such files) and optionally draws
the configuration.

Run:  python examples/user_planar_system.py [--draw out.png]
"""

import argparse
import os
import tempfile

import numpy as np

from reach.models.planar import PlanarModel
from reach.problem.impact import ImpactProblem

SLOPE = np.deg2rad(20.0)
RADIUS = 0.1

# 1. The model: one floating body carrying a bar and two wheels, and a slope.
model = PlanarModel("dumbbell")
model.add_body("dumbbell", joint="floating")  # q = [x, y, theta], v = dq/dt
model.add_rod("dumbbell", "bar", (-0.5, 0.0), (0.5, 0.0), contact=False)
model.add_disc("dumbbell", "back", RADIUS, offset=(-0.5, 0.0), mass=1.0)
model.add_disc("dumbbell", "front", RADIUS, offset=(0.5, 0.0), mass=1.0)
normal = (-np.sin(SLOPE), np.cos(SLOPE))  # the slope rises toward +x; free space above it
model.add_wall("slope", normal=normal, offset=0.0)

# 2. The impact state: bar parallel to the slope, wheels touching, falling straight down.
q = np.array([0.0, 0.0, SLOPE]) + np.r_[RADIUS * np.array(normal), 0.0]
v = np.array([0.3, -1.0, 0.5])
print("contact candidates:", model.contact_names())
print("signed distances:  ", np.round(model.signed_distances(q), 12))

# 3. The ImpactProblem (contacts in the order given, labelled A and B).
problem = model.impact_problem(q, v, mu=0.4, contacts=["back|slope", "front|slope"], names=["A", "B"])
print(problem)
print("pre-impact contact velocities [normal, tangent]:\n", problem.contact_velocities(problem.v))

# 4. Save it for the CLI or another tool, and read it back.
path = os.path.join(tempfile.mkdtemp(), "dumbbell.npz")
problem.save(path)
again = ImpactProblem.from_file(path)
assert again.fingerprint() == problem.fingerprint()
print("saved to", path)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draw", metavar="PNG", help="draw the configuration to this file")
    args = parser.parse_args()
    if args.draw:
        import matplotlib

        matplotlib.use("Agg")
        from types import SimpleNamespace

        from reach.plotting.drawing import draw_configuration

        # draw_configuration takes any object with these scenario fields.
        scene = SimpleNamespace(model=model, q=q, v=v, contacts=("back|slope", "front|slope"),
                                contact_labels=("A", "B"), arrows=(("dumbbell", (0.0, 0.0), "v"),),
                                title="Dumbbell on a slope")
        draw_configuration(scene).figure.savefig(args.draw, dpi=120, bbox_inches="tight")
        print("wrote", args.draw)
