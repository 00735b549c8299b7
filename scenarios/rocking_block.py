"""Rocking block: a 1 m x 2 m block dropped flat onto the floor (paper Fig. 1, section 5.4.1).

Both bottom corners strike the floor at once with
``v0 = sqrt(2 g 0.01)`` (a 1 cm drop).  Generalized coordinates
``q = [x, y, theta]`` of the block centre; contact A is the bottom-left corner,
B the bottom-right; both have ``n = (0, 1)``, ``t = (1, 0)`` (+x).
The scene is mirror-symmetric about the vertical through the centre:
``S = diag(-1, 1, -1)`` with A <-> B.
"""

from __future__ import annotations

import numpy as np

from reach.models.block import RigidBlock
from scenarios._base import GRAVITY, About, Budget, ImpactState, Mirror, build_scenario

NAME = "rocking-block"
#: The paper's block: the one description MuJoCo, Drake, the Zeno and compliant models share.
BLOCK = RigidBlock(gravity=GRAVITY)
WIDTH, HEIGHT, MASS = BLOCK.width, BLOCK.height, BLOCK.mass
MU = BLOCK.mu
DROP_HEIGHT = BLOCK.drop_height


def build_model(width=WIDTH, height=HEIGHT, mass=MASS):
    """The block on the floor: floating body ``block`` with a uniform box (I = m (w^2 + h^2) / 12)."""
    return RigidBlock(width, height, mass).planar_model(NAME)


def scenario():
    """The rocking-block :class:`~scenarios._base.Scenario` (h = 0.3, N = 10, M = 2**14)."""
    model = build_model()
    v0 = BLOCK.drop_speed
    q = np.array([0.0, HEIGHT / 2.0, 0.0])
    v = np.array([0.0, -v0, 0.0])
    return build_scenario(
        About(
            name=NAME,
            title="Rocking block",
            description="1x2 m block dropped flat from 1 cm: both bottom corners strike at once (2 contacts, mu=1)",
            notes=("Outcomes include coming to rest, pivoting about either corner with the other "
                   "lifting off, and scaled-down versions in between; the set is mirror-symmetric.")),
        ImpactState(model=model, q=q, v=v, mu=MU, contacts=("block.bottom_left|floor", "block.bottom_right|floor")),
        Budget(h=0.3, N=10, n_samples=2 ** 14),
        mirror=Mirror(matrix=np.diag([-1.0, 1.0, -1.0]), contacts=(1, 0)),
        arrows=(("block", (0.0, 0.0), "v"),),
        parameters={"width": WIDTH, "height": HEIGHT, "mass": MASS, "inertia": BLOCK.inertia,
                    "mu": MU, "drop_height": DROP_HEIGHT, "v0": v0},
    )
