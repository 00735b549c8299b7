"""Example requirements for ``reach robust``: is every outcome of the compass walker's gait acceptable?

A requirement is a function of one outcome (:class:`reach.analysis.robust.Outcome`:
``outcome.v``, ``outcome.q``, ``outcome.contact(name)``, ...) that returns True
when the outcome is acceptable; made with :func:`reach.analysis.robust.requirement`
from a measure of how far an outcome is from acceptable, it also tells
``reach robust`` which outcome violates it most.  Write your own in a file of yours,
``requirements.py`` say, and name it as ``--predicate requirements:my_function``
(the module is imported from the current folder); these ship with reach, so
the README's line runs as written::

    reach trajectory compass-walker --impacts 3
    reach robust results/compass-walker-impacts.npz --predicate reach.examples.requirements:speed_within_1pct
"""

from __future__ import annotations

from reach.analysis.robust import requirement

__all__ = ["GAIT_SPEED", "speed_error", "speed_within_1pct"]

#: Hip speed (m/s, along x) of the passive walker's period-one gait just after a heel strike
#: (``scenarios.compass_walker``; the classical law's orbit, found by Newton on the stride map).
GAIT_SPEED = 1.0664


def speed_error(outcome):
    """How far the walking speed after the strike is beyond 1 % of the gait's (m/s): ``|v_x - 1.0664| - 0.010664``."""
    return abs(outcome.v[0] - GAIT_SPEED) - 0.01 * GAIT_SPEED


#: The walking speed after the strike is within 1 % of the gait's: ``|v_x - 1.0664| <= 0.010664`` m/s.
speed_within_1pct = requirement(speed_error, unit="m/s", name="speed_within_1pct")

