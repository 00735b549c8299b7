"""Planar multibody models: kinematic trees, contacts and impact problems.

Build a :class:`PlanarModel` from bodies on joints (floating x-y-theta,
revolute, prismatic), point masses with rotational inertia, shapes (point,
rod, box, disc) and static walls (half-planes); evaluate at a configuration q
its mass matrix ``M(q)``, signed distances ``phi(q)``, contact frames and
Jacobians ``Jn``, ``Jt`` (conventions in :mod:`reach.models.planar.contacts`), and get
the :class:`reach.problem.impact.ImpactProblem` of a pre-impact velocity.

Examples
--------
A rod of 1 kg, 1 m long, falling flat onto the floor with both ends at once:

>>> import numpy as np
>>> from reach.models.planar import PlanarModel
>>> model = PlanarModel("rod")
>>> model.add_body("rod")
'rod'
>>> model.add_rod("rod", "rod", start=(-0.5, 0.0), end=(0.5, 0.0), mass=1.0)
>>> model.add_wall("floor", normal=(0.0, 1.0))
>>> problem = model.impact_problem(q=[0.0, 0.0, 0.0], v=[0.0, -1.0, 0.0], mu=0.5,
...                                names=["A", "B"])
>>> problem.contact_names
('A', 'B')
>>> np.round(problem.M, 4)
array([[1.    , 0.    , 0.    ],
       [0.    , 1.    , 0.    ],
       [0.    , 0.    , 0.0833]])
"""

from reach.models.planar.contacts import ACTIVE_TOL, Contact, evaluate_contacts
from reach.models.planar.geometry import Outline, bounding_box, outlines, wall_segment
from reach.models.planar.frames import perp, rotation
from reach.models.planar.model import PlanarModel
from reach.models.planar.parts import JOINT_DOFS, WORLD, Joint, PointMass
from reach.models.planar.shapes import Box, Disc, Point, Rod, Wall

__all__ = [
    "PlanarModel", "Joint", "PointMass", "WORLD", "JOINT_DOFS",
    "Point", "Rod", "Box", "Disc", "Wall",
    "Contact", "ACTIVE_TOL", "evaluate_contacts",
    "Outline", "outlines", "bounding_box", "wall_segment",
    "rotation", "perp",
]
