"""Every named example of reach, in one registry with one lookup: :func:`lookup` (and :func:`names`).

Four kinds, one record type each:

==============  ============================================  =====================================
kind            what it is                                    record
==============  ============================================  =====================================
``impact``      the paper's five impacts (SPEC section 4)     :class:`Scenario` (``reach run``)
``simulation``  Stewart & Trinkle's examples, and every       :class:`Simulation` (``reach simulate``)
                impact dropped from just above it
``trajectory``  systems followed through many impacts         :class:`Through` (``reach trajectory``)
``design``      impacts built from design parameters          :class:`Design` (``reach sweep``)
==============  ============================================  =====================================

>>> import scenarios
>>> scenarios.names()
['rocking-block', 'box-wall', 'compass-gait', 'ramone', 'disk-stack']
>>> s = scenarios.lookup("rocking_block")
>>> s.contact_labels, s.h, s.N, s.n_samples
(('A', 'B'), 0.3, 10, 16384)
>>> scenarios.names("simulation")[:2]
['spinning-rod', 'four-balls']
>>> scenarios.lookup("compass-gait", "design").defaults
{'stance_deg': 78.0}

Names are hyphenated or underscored, in any case.  :func:`get` is ``lookup``
of an impact, the short form the examples use.
"""

from __future__ import annotations

import importlib
from typing import Callable, NamedTuple

from scenarios._base import Scenario
from scenarios._simulation import Simulation, dropped
from scenarios._through import Through

__all__ = ["Scenario", "Simulation", "Through", "Design", "KINDS", "names", "lookup", "get", "get_all"]

#: The kinds of example, and what each is for.
KINDS = {"impact": "an impact's post-impact set (reach run)",
         "simulation": "a time-stepping run (reach simulate)",
         "trajectory": "a system through many impacts (reach trajectory)",
         "design": "an impact built from design parameters (reach sweep)"}

_IMPACTS = {
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
_TRAJECTORIES = ("rimless-wheel", "rocking-block", "compass-walker")


class Design(NamedTuple):
    """An impact built from named design parameters (``kind="design"``).

    Attributes
    ----------
    name : str
    build : callable
        ``build(params) -> ImpactProblem``; missing parameters take their defaults.
    defaults : dict
        The parameters and their default values.
    """

    name: str
    build: Callable
    defaults: dict

    def describe(self, parameter):
        """An axis label for ``parameter``: what it is, and its unit."""
        from scenarios import designs

        return designs.describe(parameter)


def names(kind="impact"):
    """The names :func:`lookup` accepts for ``kind`` (see :data:`KINDS`), in the order ``reach list`` shows them."""
    if kind == "impact":
        return list(_IMPACTS)
    if kind == "simulation":
        return list(_SIMULATIONS) + list(_IMPACTS)
    if kind == "trajectory":
        return list(_TRAJECTORIES)
    if kind == "design":
        from scenarios import designs

        return designs.names()
    raise ValueError(f"unknown kind {kind!r}; the kinds are {', '.join(KINDS)}.")


def lookup(name, kind="impact", **options):
    """The example ``name`` of ``kind``: a :class:`Scenario`, :class:`Simulation`, :class:`Through` or :class:`Design`.

    ``options`` go to its builder: ``force=f(t, q, v)`` for a trajectory, the
    drop of a dropped impact (:func:`scenarios._simulation.dropped`).  An
    unknown name is a ValueError listing the names of that kind.
    """
    valid = names(kind)
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else None
    if key not in valid:
        what = {"impact": "scenario", "simulation": "simulation", "trajectory": "multi-impact example",
                "design": "design"}[kind]
        raise ValueError(f"unknown {what} {name!r}; valid names are {', '.join(valid)}.")
    if kind == "impact":
        return importlib.import_module(f"scenarios.{_IMPACTS[key]}").scenario(**options)
    if kind == "simulation":
        if key in _SIMULATIONS:
            return importlib.import_module(f"scenarios.{_SIMULATIONS[key]}").simulation(**options)
        return dropped(lookup(key), **options)
    if kind == "trajectory":
        from scenarios import _through

        return getattr(_through, key.replace("-", "_"))(**options)
    from scenarios import designs

    return Design(key, designs.build(key), designs.defaults(key))


def get(name):
    """The impact scenario ``name``: ``lookup(name, "impact")``."""
    return lookup(name, "impact")


def get_all():
    """All impact scenarios, in :func:`names` order."""
    return [get(name) for name in names()]
