"""A rimless wheel rolling down a slope: every footfall is a two-contact impact.

A hub of mass m (and a small rotational inertia I) carries ``n`` massless
spokes of length l; the ground is a slope of angle gamma descending to +x.
Each footfall, the leading spoke strikes while the trailing one still
touches.  The classical law (the leading spoke sticks, the trailing one
lifts) conserves angular momentum about the new contact:

    ``omega+ = c omega-``,  ``c = (m l^2 cos 2 alpha + I) / (m l^2 + I)``,  ``alpha = pi / n``

(``cos 2 alpha`` when I = 0), and between footfalls the wheel gains
``m g l (cos(alpha - gamma) - cos(alpha + gamma))``, so the steady rolling
speed just after a footfall is ``omega*^2 = c^2 K / (1 - c^2)`` with
``K = 2 m g l (cos(alpha - gamma) - cos(alpha + gamma)) / (m l^2 + I)``.
``q = [x, y, theta]`` of the hub; spoke i points along ``theta - pi/2 + 2 pi i / n``.
"""

from __future__ import annotations

import numpy as np

from reach.laws.routh_single import striking_sticks
from reach.models.planar import PlanarModel
from reach.models.planar.dynamics import PlanarDynamics
from scenarios._base import GRAVITY

NAME = "rimless-wheel"
SPOKES, LENGTH, MASS, INERTIA, SLOPE, MU = 8, 1.0, 1.0, 0.01, 0.08, 1.0


def build_model(spokes=SPOKES, length=LENGTH, mass=MASS, inertia=INERTIA, slope=SLOPE):
    """The wheel (floating body ``hub``) with spoke tips ``spoke0`` .. on the slope ``ground``."""
    _check(spokes, length, mass, inertia)
    model = PlanarModel(NAME)
    model.add_body("hub")
    model.add_mass("hub", mass, inertia=inertia)
    for i in range(spokes):
        angle = -np.pi / 2 + 2 * np.pi * i / spokes
        model.add_point("hub", f"spoke{i}", offset=(length * np.cos(angle), length * np.sin(angle)))
    model.add_wall("ground", normal=(np.sin(slope), np.cos(slope)))
    return model


def _check(spokes, length, mass, inertia):
    if int(spokes) != spokes or spokes < 3:
        raise ValueError(f"`spokes` must be an integer >= 3; got {spokes!r}.")
    for name, value in (("length", length), ("mass", mass), ("inertia", inertia)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"`{name}` must be finite and > 0 (the hub is a rigid body: its mass matrix must be "
                             f"invertible); got {value!r}.")


def vault_speed(spokes=SPOKES, length=LENGTH, mass=MASS, inertia=INERTIA, slope=SLOPE, gravity=GRAVITY):
    """The least speed |omega| just after a footfall that carries the hub over the new spoke (rad/s).

    Just after a footfall the stance spoke leans back by ``pi / spokes - slope``
    from the vertical; the hub rises by ``length (1 - cos(pi / spokes - slope))``
    before it passes over, which the kinetic energy must pay for.
    """
    _check(spokes, length, mass, inertia)
    lean = np.pi / spokes - slope
    return float(np.sqrt(2 * mass * gravity * length * (1 - np.cos(lean)) / (mass * length ** 2 + inertia)))


def restitution(spokes=SPOKES, length=LENGTH, mass=MASS, inertia=INERTIA):
    """``c`` of the classical footfall map ``omega+ = c omega-``."""
    ml2 = mass * length ** 2
    return (ml2 * np.cos(2 * np.pi / spokes) + inertia) / (ml2 + inertia)


def steady_speed(spokes=SPOKES, length=LENGTH, mass=MASS, inertia=INERTIA, slope=SLOPE, gravity=GRAVITY):
    """The classical steady rolling speed |omega*| just after a footfall (rad/s).

    A ValueError where no steady rolling exists: ``omega*`` is below
    :func:`vault_speed`, so the wheel rocks back instead of passing over the spoke.
    """
    _check(spokes, length, mass, inertia)
    alpha = np.pi / spokes
    c = restitution(spokes, length, mass, inertia)
    K = 2 * mass * gravity * length * (np.cos(alpha - slope) - np.cos(alpha + slope)) / (mass * length ** 2 + inertia)
    omega = float(np.sqrt(c ** 2 * K / (1 - c ** 2)))
    needed = vault_speed(spokes, length, mass, inertia, slope, gravity)
    if omega < needed:
        raise ValueError(f"no steady rolling: omega* = {omega:.4g} rad/s after a footfall, but passing over the "
                         f"spoke needs {needed:.4g} rad/s (a steeper slope or more spokes)")
    return omega


def state_after_footfall(omega, spokes=SPOKES, length=LENGTH, slope=SLOPE):
    """``(q, v)`` just after a footfall onto spoke 0 at the origin, rolling downhill at ``|omega|``."""
    alpha = np.pi / spokes
    theta = alpha - slope  # spoke 0 points at -pi/2 + theta: alpha ahead of the downward slope normal
    a0 = -np.pi / 2 + theta
    hub = -length * np.array([np.cos(a0), np.sin(a0)])
    w = -abs(omega)  # downhill is clockwise
    v_hub = w * np.array([-hub[1], hub[0]])  # rotation about the contact at the origin
    return np.array([hub[0], hub[1], theta]), np.array([v_hub[0], v_hub[1], w])


def system(mu=MU, **model_options):
    """The wheel as a :class:`PlanarDynamics` under gravity."""
    return PlanarDynamics(build_model(**model_options), mu, gravity=GRAVITY)


def classical_law(problem):
    """The classical footfall: the striking spoke sticks (Routh's single-contact impact), the other lifts."""
    return striking_sticks(problem)
