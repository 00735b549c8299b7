"""Example requirements for ``reach robust``: is every outcome of the compass walker's gait acceptable?

A requirement is a function of one outcome (:class:`reach.analysis.robust.Outcome`:
``outcome.v``, ``outcome.q``, ``outcome.contact(name)``, ...) that returns True
when the outcome is acceptable; made with :func:`reach.analysis.robust.requirement`
from a measure of how far an outcome is from acceptable, it also tells
``reach robust`` which outcome violates it most.  Write your own in a file of yours,
``requirements.py`` say, and name it as ``--predicate requirements:my_function``
(the module is imported from the current folder); these ship with reach, so
the README's lines run as written::

    reach trajectory compass-walker --impacts 3
    reach robust results/compass-walker-impacts.npz --predicate reach.examples.requirements:speed_within_1pct
    reach trajectory examples/quadruped12.xml --controller reach.examples.gaits:bound --impacts 3 --lift 0.05
    reach robust results/quadruped12-touchdowns.npz --predicate reach.examples.requirements:pitch_rate_limited
"""

from __future__ import annotations

from reach.analysis.robust import requirement

__all__ = ["GAIT_SPEED", "speed_error", "speed_within_1pct", "PITCH_RATE_LIMIT", "pitch_rate_excess",
           "pitch_rate_limited"]

#: Hip speed (m/s, along x) of the passive walker's period-one gait just after a heel strike
#: (``scenarios.compass_walker``; the classical law's orbit, found by Newton on the stride map).
GAIT_SPEED = 1.0664


def speed_error(outcome):
    """How far the walking speed after the strike is beyond 1 % of the gait's (m/s): ``|v_x - 1.0664| - 0.010664``."""
    return abs(outcome.v[0] - GAIT_SPEED) - 0.01 * GAIT_SPEED


#: The walking speed after the strike is within 1 % of the gait's: ``|v_x - 1.0664| <= 0.010664`` m/s.
speed_within_1pct = requirement(speed_error, unit="m/s", name="speed_within_1pct")



#: The bound's limit on the trunk's pitch rate after a touchdown (rad/s).
PITCH_RATE_LIMIT = 2.7


def pitch_rate_excess(outcome):
    """How far the trunk's pitch rate after a touchdown is beyond ±2.7 rad/s: ``|qvel[4]| - 2.7`` (a free joint's
    angular velocity is ``qvel[3:6]`` in the body frame; ``qvel[4]`` turns about the trunk's y axis)."""
    return abs(outcome.v[4]) - PITCH_RATE_LIMIT


#: The trunk's pitch rate stays within ±2.7 rad/s after every touchdown (``reach.examples.gaits:bound``).
pitch_rate_limited = requirement(pitch_rate_excess, unit="rad/s", name="pitch_rate_limited")
