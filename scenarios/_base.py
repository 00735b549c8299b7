"""The :class:`Scenario` record shared by the paper's example scenarios."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reach.models.planar import PlanarModel
from reach.problem import ImpactProblem

__all__ = ["Scenario", "build_scenario", "GRAVITY"]

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


def build_scenario(*, name, title, description, model, q, v, mu, contacts, h, N, n_samples, notes,
                   mirror=None, mirror_contacts=None, arrows=(), parameters=None):
    """Assemble a :class:`Scenario`, building its problem and freezing its arrays."""
    q = np.array(q, dtype=float)
    v = np.array(v, dtype=float)
    labels = tuple(chr(ord("A") + i) for i in range(len(contacts)))
    mu = np.broadcast_to(np.asarray(mu, dtype=float), (len(contacts),)).copy()
    problem = model.impact_problem(q, v, mu, contacts=list(contacts), names=labels)
    if mirror is not None:
        mirror = np.array(mirror, dtype=float)
        mirror.setflags(write=False)
        mirror_contacts = tuple(int(i) for i in mirror_contacts)
    for arr in (q, v, mu):
        arr.setflags(write=False)
    return Scenario(name=name, title=title, description=description, model=model, q=q, v=v, mu=mu,
                    contacts=tuple(contacts), contact_labels=labels, problem=problem, h=float(h), N=int(N),
                    n_samples=int(n_samples), notes=notes, mirror=mirror, mirror_contacts=mirror_contacts,
                    arrows=tuple(arrows), parameters=dict(parameters or {}))
