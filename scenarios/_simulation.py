"""The :class:`Simulation` record: a system, an initial state and a time span for the time-stepper."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reach.models.planar.dynamics import PlanarDynamics

__all__ = ["Simulation", "dropped"]

#: Time before contact at which a dropped paper scenario starts (s).
DROP_LEAD = 0.01


@dataclass(frozen=True, eq=False)
class Simulation:
    """A time-stepping run: ``system`` from ``(q0, v0)`` over ``[0, t_end]``.

    Attributes
    ----------
    name, title, description : str
    system : reach.problem.dynamics.Dynamics
    q0, v0 : ndarray
    t_end : float
        Default end time (s).
    h : float
        Default step (s).
    events : dict
        The source paper's reported event times (s), by name.
    parameters : dict
    model : PlanarModel or None
        The planar model, for drawing.
    """

    name: str
    title: str
    description: str
    system: object
    q0: np.ndarray
    v0: np.ndarray
    t_end: float
    h: float
    events: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)
    model: object = None


def dropped(scenario, *, lead=DROP_LEAD, t_end=0.5, gravity=9.81):
    """A paper :class:`~scenarios._base.Scenario` started ``lead`` seconds before its impact.

    The model starts at ``q - lead v`` with the pre-impact velocity ``v`` (so
    its contacts are about ``lead |vn|`` apart) and falls under gravity; every
    contact candidate of the model takes part, with the scenario's friction on
    its own contacts and the largest of those elsewhere.
    """
    mu = dict(zip(scenario.contacts, scenario.mu.tolist()))
    system = PlanarDynamics(scenario.model, mu, gravity=gravity, default_mu=float(max(scenario.mu)))
    q0 = np.asarray(scenario.q) - lead * np.asarray(scenario.v)
    return Simulation(name=scenario.name, title=f"{scenario.title}, dropped", model=scenario.model,
                      description=f"{scenario.description}; started {lead} s before the impact",
                      system=system, q0=q0, v0=np.array(scenario.v), t_end=float(t_end), h=0.001,
                      parameters={"lead": lead, "gravity": gravity})
