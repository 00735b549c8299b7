"""Multi-impact examples for :func:`reach.analysis.propagate.propagate`: the :class:`Through` record."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reach.laws.routh_single import striking_sticks
from reach.models.planar.dynamics import PlanarDynamics

__all__ = ["Through", "rimless_wheel", "rocking_block", "compass_walker"]


@dataclass(frozen=True, eq=False)
class Through:
    """A system started in some state, to be followed through several impacts.

    Attributes
    ----------
    name, title, description : str
    system : PlanarDynamics
    q0, v0 : ndarray
    classical : callable
        The single-outcome law it is compared with (``law(problem) -> (1, nv)``).
    coordinate : (int, str)
        The velocity coordinate its figure shows, and its label.
    reference : dict
        Known values (an analytic fixed point, the Zeno solution's rates...).
    guard : callable or None
        Impact guard (see :func:`reach.analysis.flow.flow`).
    defaults : dict
        Default propagation options (impacts, budget, max_branches, t_max).
    """

    name: str
    title: str
    description: str
    system: object
    q0: np.ndarray
    v0: np.ndarray
    classical: object
    coordinate: tuple
    reference: dict = field(default_factory=dict)
    guard: object = None
    defaults: dict = field(default_factory=dict)


def rimless_wheel(force=None, start_factor=1.5):
    """The rimless wheel, started just after a footfall at ``start_factor`` times its steady speed."""
    from scenarios import rimless_wheel as rw

    system = PlanarDynamics(rw.build_model(), rw.MU, gravity=9.81, force=force)
    omega = rw.steady_speed()
    q0, v0 = rw.state_after_footfall(start_factor * omega)
    return Through("rimless-wheel", "Rimless wheel rolling down a slope",
                   f"{rw.SPOKES} spokes of {rw.LENGTH} m, slope {rw.SLOPE} rad, started at {start_factor} x its "
                   "steady speed", system, q0, v0, striking_sticks, (2, "hub angular velocity after the footfall (rad/s)"),
                   reference={"steady_omega": -omega, "restitution": rw.restitution()},
                   defaults=dict(impacts=12, budget=2 ** 9, max_branches=8, t_max=5.0))


def rocking_block(force=None, drop=0.01):
    """The paper's rocking block dropped flat from ``drop`` m: the Fig. 9 impact, then rocking impacts."""
    from scenarios import rocking_block as rb

    model = rb.build_model()
    system = PlanarDynamics(model, rb.MU, gravity=9.81, force=force,
                            contacts=["block.bottom_left|floor", "block.bottom_right|floor"])
    q0 = np.array([0.0, rb.HEIGHT / 2 + drop, 0.0])
    return Through("rocking-block", "Rocking block dropped flat, then rocking",
                   f"the 1 x 2 m block dropped flat from {drop} m (paper Fig. 9), then rocking on its corners",
                   system, q0, np.zeros(3), striking_sticks, (2, "block angular velocity after the impact (rad/s)"),
                   reference={"zeno_ratio": 0.7}, defaults=dict(impacts=6, budget=2 ** 10, max_branches=16, t_max=5.0))


def compass_walker(force=None):
    """The passive compass-gait walker started on its classical period-one gait, just after a heel strike."""
    from scenarios import compass_walker as cw

    q0, v0 = cw.state_after_heel_strike(*cw.GAIT)
    return Through("compass-walker", "Passive compass-gait walker on a 3 degree slope",
                   "M_h = 10 kg, m = 5 kg, a = b = 0.5 m, started on the classical law's period-one gait",
                   cw.system(force=force), q0, v0, striking_sticks, (0, "hip forward velocity after the heel strike (m/s)"),
                   reference={"gait": cw.GAIT}, guard=cw.heel_strike_guard,
                   defaults=dict(impacts=6, budget=2 ** 9, max_branches=8, t_max=3.0))
