"""The :class:`Scenario` record shared by the paper's example scenarios."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from reach.models.planar import PlanarModel
from reach.problem.impact import ImpactProblem

__all__ = ["Scenario", "About", "ImpactState", "Budget", "Mirror", "build_scenario", "GRAVITY"]

#: Gravitational acceleration (m/s^2); y is up.
GRAVITY = 9.81


@dataclass(frozen=True, eq=False)
class Scenario:
    """One of the paper's impact scenarios (SPEC section 4; paper appendix A).

    Attributes
    ----------
    name : str
        CLI name, e.g. ``"rocking-block"``.
    title : str
        Human-readable title.
    description : str
        One line for ``reach list``.
    model : PlanarModel
    q : ndarray, shape (nq,)
        Configuration at impact.
    v : ndarray, shape (nv,)
        Pre-impact generalized velocity.
    mu : ndarray, shape (m,)
        Friction coefficient of each contact.
    contacts : tuple of str
        Model contact names (``model.contact_names()``) in the paper's order.
    contact_labels : tuple of str
        The paper's labels ``"A", "B", ...`` of those contacts.
    problem : ImpactProblem
        The impact problem, with ``contact_names == contact_labels``.
    h : float
        Routh step size h (N s) of the paper.
    N : int
        Maximum Routh steps per sample.
    n_samples : int
        Samples M of the paper's set approximation.
    notes : str
        The paper's expected outcomes.
    mirror : ndarray, shape (nv, nv) or None
        Mirror map S: the mirror image of a velocity v is ``S @ v``.
    mirror_contacts : tuple of int or None
        Contact i of a velocity corresponds to contact ``mirror_contacts[i]``
        of its mirror image (normal velocity equal, tangential negated).
    arrows : tuple of (str, tuple, str)
        ``(body, body-frame point, label)`` where panel (a) draws the velocity.
    parameters : dict
        The scenario's physical parameters and derived initial conditions.
    """

    name: str
    title: str
    description: str
    model: PlanarModel
    q: np.ndarray
    v: np.ndarray
    mu: np.ndarray
    contacts: tuple
    contact_labels: tuple
    problem: ImpactProblem
    h: float
    N: int
    n_samples: int
    notes: str
    mirror: np.ndarray | None = None
    mirror_contacts: tuple | None = None
    arrows: tuple = ()
    parameters: dict = field(default_factory=dict)

    @property
    def m(self):
        """Number of contacts."""
        return len(self.contacts)

    @property
    def nv(self):
        return self.model.nv

    def contact_frames(self, q=None):
        """The scenario's contacts evaluated at q (default its impact configuration), in order."""
        return self.model.contacts(self.q if q is None else q, self.contacts)

    def mirrored(self, V):
        """Mirror images ``S v`` of velocities V (..., nv); ValueError if no symmetry."""
        if self.mirror is None:
            raise ValueError(f"scenario {self.name!r} has no mirror symmetry.")
        return np.asarray(V, dtype=float) @ self.mirror.T

    def __repr__(self):
        return f"Scenario({self.name!r}, nv={self.nv}, contacts={list(self.contact_labels)})"


class About(NamedTuple):
    """What a scenario is called and what the paper expects of it."""

    name: str          # CLI name, e.g. "rocking-block"
    title: str         # human-readable title
    description: str   # one line for `reach list`
    notes: str         # the paper's expected outcomes


class ImpactState(NamedTuple):
    """The impact: a planar model at configuration ``q`` with pre-impact velocity ``v``, and which contacts strike."""

    model: PlanarModel
    q: object          # (nq,) configuration at impact
    v: object          # (nv,) pre-impact generalized velocity
    mu: object         # friction coefficient, one for all contacts or one each
    contacts: tuple    # model contact names, in the paper's order


class Budget(NamedTuple):
    """The paper's sampling budget: Routh step size ``h`` (N s), steps ``N`` and samples ``n_samples``."""

    h: float
    N: int
    n_samples: int


class Mirror(NamedTuple):
    """A mirror symmetry: ``matrix`` maps a velocity to its image; contact i maps to ``contacts[i]``."""

    matrix: object
    contacts: tuple


def build_scenario(about, impact, budget, *, mirror=None, arrows=(), parameters=None):
    """Assemble a :class:`Scenario` from its :class:`About`, :class:`ImpactState` and :class:`Budget`.

    Builds its problem (contacts labelled ``"A", "B", ...``) and freezes its arrays.
    """
    model, contacts = impact.model, impact.contacts
    q = np.array(impact.q, dtype=float)
    v = np.array(impact.v, dtype=float)
    labels = tuple(chr(ord("A") + i) for i in range(len(contacts)))
    mu = np.broadcast_to(np.asarray(impact.mu, dtype=float), (len(contacts),)).copy()
    problem = model.impact_problem(q, v, mu, contacts=list(contacts), names=labels)
    matrix, mirror_contacts = None, None
    if mirror is not None:
        matrix = np.array(mirror.matrix, dtype=float)
        matrix.setflags(write=False)
        mirror_contacts = tuple(int(i) for i in mirror.contacts)
    for arr in (q, v, mu):
        arr.setflags(write=False)
    return Scenario(name=about.name, title=about.title, description=about.description, model=model, q=q, v=v,
                    mu=mu, contacts=tuple(contacts), contact_labels=labels, problem=problem, h=float(budget.h),
                    N=int(budget.N), n_samples=int(budget.n_samples), notes=about.notes, mirror=matrix,
                    mirror_contacts=mirror_contacts, arrows=tuple(arrows), parameters=dict(parameters or {}))
