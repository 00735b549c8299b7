"""The paper's example impact scenarios (SPEC section 4; Halm & Posa appendix A).

>>> import scenarios
>>> scenarios.names()
['rocking-block', 'box-wall', 'compass-gait', 'ramone', 'disk-stack']
>>> s = scenarios.get("rocking_block")
>>> s.contact_labels, s.h, s.N, s.n_samples
(('A', 'B'), 0.3, 10, 16384)
"""

from __future__ import annotations

import importlib

from scenarios._base import Scenario

__all__ = ["Scenario", "names", "get", "get_all"]

_MODULES = {
    "rocking-block": "rocking_block",
    "box-wall": "box_wall",
    "compass-gait": "compass_gait",
    "ramone": "ramone",
    "disk-stack": "disk_stack",
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
