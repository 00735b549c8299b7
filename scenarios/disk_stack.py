"""Disk stack: a disc dropped onto two touching discs resting on the floor (paper Fig. 14, section 5.4.5).

Three discs of radius 1 m, 1 kg, ``I = m R^2 / 2``: ``left`` centred at
(0, 1), ``right`` at (2, 1), ``top`` at (1, 1 + sqrt 3) falling at 1 m/s.
``q = [x_l, y_l, th_l, x_r, y_r, th_r, x_t, y_t, th_t]``.  Five contacts, mu =
sqrt 3 at each, in this order and with these frames (``t = (n_y, -n_x)``):

===  ============  ============================  ==========================
A    floor-left    n = (0, 1) into left           t = (1, 0)
B    floor-right   n = (0, 1) into right          t = (1, 0)
C    top-left      n = (1/2, sqrt3/2) into top    t = (sqrt3/2, -1/2)
D    top-right     n = (-1/2, sqrt3/2) into top   t = (sqrt3/2, 1/2)
E    left-right    n = (-1, 0) into left          t = (0, 1)
===  ============  ============================  ==========================

Mirror map (x -> -x about x = 1): swap left and right, negate x velocities and
angular rates; contacts A <-> B, C <-> D, E fixed.  (The published code gave
each disc 5 kg, which changes only the steps per sample, not the set.)
"""

from __future__ import annotations

import numpy as np

from reach.models.planar import PlanarModel
from scenarios._base import About, Budget, ImpactState, Mirror, build_scenario

NAME = "disk-stack"
RADIUS, MASS = 1.0, 1.0
MU = float(np.sqrt(3.0))
SPEED = 1.0
CONTACTS = ("left|floor", "right|floor", "top|left", "top|right", "left|right")


def build_model(radius=RADIUS, mass=MASS):
    """Three floating uniform discs ``left``, ``right``, ``top`` (in that body order) and the floor."""
    model = PlanarModel(NAME)
    for disc in ("left", "right", "top"):
        model.add_body(disc, joint="floating")
        model.add_disc(disc, disc, radius, mass=mass)
    model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
    return model


def mirror_map():
    """S (9, 9): swap left and right discs, negate x velocities and angular rates."""
    flip = np.diag([-1.0, 1.0, -1.0])
    zero = np.zeros((3, 3))
    return np.block([[zero, flip, zero], [flip, zero, zero], [zero, zero, flip]])


def scenario():
    """The disk-stack :class:`~scenarios._base.Scenario` (h = 1, N = 10, M = 2**20)."""
    model = build_model()
    R = RADIUS
    q = np.array([0.0, R, 0.0, 2 * R, R, 0.0, R, R + np.sqrt(3.0) * R, 0.0])
    v = np.zeros(9)
    v[7] = -SPEED
    return build_scenario(
        About(
            name=NAME,
            title="Disk stack",
            description="disc dropped at 1 m/s onto two touching discs on the floor (5 contacts, mu=sqrt(3))",
            notes=("Simultaneous (Anitescu-Potra): the whole tower comes to rest.  The set adds outcomes "
                   "where the top disc stays in contact with only one lower disc while the other rolls "
                   "away or even lifts off the floor slightly; the top disc always keeps contact with at "
                   "least one lower disc, and one of those always stays on the floor.  The set is "
                   "mirror-symmetric (the paper doubled its samples with the mirror map).")),
        ImpactState(model=model, q=q, v=v, mu=MU, contacts=CONTACTS),
        Budget(h=1.0, N=10, n_samples=2 ** 20),
        mirror=Mirror(matrix=mirror_map(), contacts=(1, 0, 3, 2, 4)),
        arrows=(("top", (0.0, 0.0), "v"),),
        parameters={"radius": RADIUS, "mass": MASS, "inertia": 0.5 * MASS * RADIUS ** 2, "mu": MU,
                    "speed": SPEED},
    )
