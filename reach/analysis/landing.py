"""Where a time-stepper lands in the set of possible outcomes.

A rigid-body simulator that steps through an impact with Stewart & Trinkle's
method picks one post-impact velocity.  Two ways to get it:

* :func:`stepped_outcome` -- run the stepper from just before contact (the
  state moved back along the pre-impact velocity by ``lead`` steps) until the
  impact is over: the first state after contact where no touching contact
  still approaches;
* :func:`one_step_outcome` -- one step from the touching configuration (the
  linearised non-penetration constraint then asks ``Jn v+ >= 0``, so the step
  is a simultaneous impact with maximal dissipation).

:func:`landing` measures such a velocity against a sampled set: its distance
to the nearest outcome in contact-velocity coordinates (m/s and as a fraction
of the largest pre-impact normal speed ``|vn0|``), and its per-contact mode
(:func:`name_outcome`).  The system should have gravity off, as the impact
problem has: the impact is impulsive.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.laws.stewart_trinkle import SteppingSettings, stewart_trinkle_step

__all__ = ["stepped_outcome", "one_step_outcome", "Landing", "landing", "name_outcome", "contact_modes", "MODE_TOL"]

#: A touching contact approaching slower than this fraction of ``|vn0|`` counts as not approaching.
APPROACH_TOL = 1e-9
#: Mode naming tolerance, as a fraction of ``|vn0|``: the stepper's answers carry O(h) errors.
MODE_TOL = 0.01


def one_step_outcome(system, q, v, h, *, friction_directions=8):
    """``v+`` of one Stewart--Trinkle step of size h from the touching configuration ``(q, v)``."""
    settings = SteppingSettings(h=h, friction_directions=friction_directions)
    return stewart_trinkle_step(system, 0.0, q, v, settings).v


def stepped_outcome(system, q, v, h, *, lead=1.5, max_steps=200, friction_directions=8):
    """``v+`` of a run started ``lead`` steps before contact, once the impact is over.

    Returns
    -------
    v : ndarray (nv,)
        The first velocity after a contact that was approaching has pushed at which every
        touching contact (``phi <= 1e-9``) separates or slides (``Jn v >= -1e-9 |vn0|``).
    steps : int
        Steps taken.
    """
    settings = SteppingSettings(h=h, friction_directions=friction_directions)
    q = system.integrate(np.asarray(q, dtype=float), np.asarray(v, dtype=float), -lead * h)
    v = np.array(v, dtype=float)
    geometry = system.contacts(q)
    approach = geometry.Jn @ v
    scale = max(float(np.max(np.abs(approach))), 1e-300)
    colliding = approach < -APPROACH_TOL * scale
    touched, active = False, np.zeros(0, dtype=int)
    for step in range(1, max_steps + 1):
        result = stewart_trinkle_step(system, 0.0, q, v, settings, active)
        q, v = result.q, result.v
        active = result.active[result.normal[result.active] > 0]
        touched = touched or bool(np.any(result.normal[colliding] > 0))
        if touched:
            geometry = system.contacts(q)
            touching = geometry.phi <= 1e-9
            if not np.any(geometry.Jn[touching] @ v < -APPROACH_TOL * scale):
                return v, step
    raise RuntimeError(f"the impact was not over after {max_steps} steps of h = {h:g}.")


def contact_modes(contact_velocities, scale, labels, *, tol=MODE_TOL):
    """Per-contact modes of contact velocities (m, 1 + d): ``["A sticks", "B lifts"]``.

    A contact lifts if ``vn > tol scale``, slides if ``|vt| > tol scale``, and sticks otherwise.
    """
    words = []
    for label, row in zip(labels, np.asarray(contact_velocities, dtype=float)):
        if row[0] > tol * scale:
            words.append(f"{label} lifts")
        elif np.linalg.norm(row[1:]) > tol * scale:
            words.append(f"{label} slides")
        else:
            words.append(f"{label} sticks")
    return words


def name_outcome(problem, v, *, tol=MODE_TOL):
    """Per-contact modes of ``v``: ``"A sticks, B lifts"`` (lift if ``vn > tol |vn0|``; slide if ``|vt| > tol |vn0|``)."""
    cv = problem.contact_velocities(np.asarray(v, dtype=float))
    scale = float(np.max(np.abs(problem.normal_velocities(problem.v))))
    return ", ".join(contact_modes(cv, scale, problem.contact_names, tol=tol))


class Landing(NamedTuple):
    """A velocity measured against a set.

    Attributes
    ----------
    distance : float
        To the nearest outcome of the set, in contact-velocity coordinates (m/s).
    fraction : float
        ``distance / |vn0|``.
    outcome : str
        Its per-contact modes (:func:`name_outcome`).
    approach : float
        The fastest approach speed left at a contact of the problem, over
        ``|vn0|`` (0 when no contact approaches; a stepper leaves O(h)).
    energy_ratio : float
        Kinetic energy after over before.
    """

    distance: float
    fraction: float
    outcome: str
    approach: float
    energy_ratio: float


def landing(result, v):
    """Measure the velocity ``v`` (nv,) against the post-impact set ``result``."""
    problem = result.problem
    v = np.asarray(v, dtype=float)
    scale = float(np.max(np.abs(problem.normal_velocities(problem.v))))
    distance = float(result.distance_to(v))
    approach = max(0.0, -float(np.min(problem.normal_velocities(v)))) / scale
    ratio = float(problem.kinetic_energy(v) / problem.kinetic_energy(problem.v))
    return Landing(distance, distance / scale, name_outcome(problem, v), approach, ratio)
