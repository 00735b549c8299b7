"""The paper's example impact scenarios (SPEC section 4; Halm & Posa appendix A).

>>> import scenarios
>>> scenarios.names()
['rocking-block', 'box-wall', 'compass-gait', 'ramone', 'disk-stack']
>>> s = scenarios.get("rocking_block")
>>> s.contact_labels, s.h, s.N, s.n_samples
(('A', 'B'), 0.3, 10, 16384)

Stewart & Trinkle's time-stepping examples, and every paper scenario dropped
from just above its impact, are :class:`Simulation` records:

>>> scenarios.simulation_names()[:2]
['spinning-rod', 'four-balls']
"""

from __future__ import annotations

import importlib

from scenarios._base import Scenario
from scenarios._simulation import Simulation, dropped

__all__ = ["Scenario", "Simulation", "names", "get", "get_all", "simulation_names", "get_simulation",
           "trajectory_names", "get_trajectory"]

_MODULES = {
    "rocking-block": "rocking_block",
    "box-wall": "box_wall",
    "compass-gait": "compass_gait",
    "ramone": "ramone",
    "disk-stack": "disk_stack",
}


_SIMULATIONS = {
    "spinning-rod": "spinning_rod",
    "four-balls": "four_balls",
}


def names():
    """CLI names of the scenarios, in the paper's order of presentation."""
    return list(_MODULES)


def _canonical(name):
    if not isinstance(name, str):
        raise ValueError(f"scenario name must be a string; got {name!r}.")
    key = name.strip().lower().replace("_", "-")
    if key not in _MODULES:
        raise ValueError(f"unknown scenario {name!r}; valid names are {', '.join(names())}.")
    return key


def get(name):
    """Build the scenario ``name`` (hyphenated or underscored, case-insensitive).

    Returns
    -------
    Scenario
    """
    module = importlib.import_module(f"scenarios.{_MODULES[_canonical(name)]}")
    return module.scenario()


def get_all():
    """All scenarios, in :func:`names` order."""
    return [get(name) for name in names()]


def simulation_names():
    """Names :func:`get_simulation` accepts: the time-stepping examples, then the paper scenarios."""
    return list(_SIMULATIONS) + names()


def get_simulation(name, **drop_options):
    """The time-stepping run ``name``: Stewart & Trinkle's examples, or a paper scenario dropped onto its impact.

    ``drop_options`` go to :func:`scenarios._simulation.dropped` for the paper scenarios.
    """
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else name
    if key in _SIMULATIONS:
        return importlib.import_module(f"scenarios.{_SIMULATIONS[key]}").simulation()
    if key not in _MODULES:
        raise ValueError(f"unknown simulation {name!r}; valid names are {', '.join(simulation_names())}.")
    return dropped(get(key), **drop_options)


_THROUGH = ("rimless-wheel", "rocking-block", "compass-walker")


def trajectory_names():
    """Names :func:`get_trajectory` accepts: systems followed through several impacts."""
    return list(_THROUGH)


def get_trajectory(name, force=None):
    """The multi-impact example ``name`` (a :class:`scenarios._through.Through`), with an optional applied force."""
    from scenarios import _through

    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else name
    if key not in _THROUGH:
        raise ValueError(f"unknown multi-impact example {name!r}; valid names are {', '.join(_THROUGH)}.")
    return getattr(_through, key.replace("-", "_"))(force=force)
