"""
A quadruped touchdown from MuJoCo
=================================

A robot described in MJCF or URDF becomes an impact problem with
:func:`reach.models.mujoco.impact_from_mujoco`: the mass matrix from MuJoCo, the
contact Jacobians from its contacts (normals separating, friction from the geoms).
``examples/mujoco_quadruped.xml`` is a small quadruped landing on all four feet at
once. A controller that assumes every foot sticks is checked against the set:
:func:`reach.analysis.robust.check` finds which outcomes break "this foot sticks", and
over how much of the set. The full script is ``examples/mujoco_touchdown.py``.
"""

import sys
from pathlib import Path

from reach import sample_post_impact_set
from reach.analysis.compare.mujoco import mujoco_data
from reach.analysis.set_propagation import SetPropagation
from reach.analysis.robust import check, sticks
from reach.models.mujoco import impact_from_mujoco, load_model
from reach.plotting.mujoco import plot_contact_planes

try:
    examples = Path(__file__).resolve().parents[1]
except NameError:  # sphinx-gallery runs an example from its own folder, without __file__
    examples = Path.cwd().resolve().parent
sys.path.insert(0, str(examples))
from mujoco_touchdown import touchdown_state  # noqa: E402 (the full script's touchdown state)

model = load_model(str(examples / "mujoco_quadruped.xml"))
qpos, qvel = touchdown_state(model)  # all four feet touching, falling at 0.5 m/s, moving forward, pitching
impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel))
problem = impact.problem
print(problem)

result = sample_post_impact_set(problem, 2**11, h=1.0, max_steps=10, keep_paths=200, keep_caps=True)
print(result.message)
touchdown = SetPropagation(result, qpos)
for foot in problem.contact_names:
    (report,) = check(touchdown, sticks(foot, tol=0.01))
    print(f"'{foot} sticks' is broken by {report.violating:,d} outcomes, {report.extent:.0%} of the set")
plot_contact_planes(result, title="tangential (1) vs normal velocity per foot")
