"""What a time-stepper needs of a mechanical system: the :class:`Dynamics` protocol.

A system with configuration ``q`` (nq,) and generalized velocity ``v`` (nv,)
provides

* ``mass_matrix(q)`` -- ``M(q)`` (nv, nv), symmetric positive definite;
* ``forces(t, q, v)`` -- the smooth generalized force ``k(q, v)`` (nv,):
  gravity, Coriolis and centrifugal terms, and any applied force;
* ``contacts(q)`` -- every contact candidate at ``q`` as
  :class:`ContactJacobians`: signed distances ``phi`` (> 0 apart), normal rows
  ``Jn`` with ``Jn v`` the normal velocity, tangent rows ``Jt`` spanning each
  contact's tangent space, and friction coefficients;
* ``integrate(q, v, h)`` -- the configuration reached from ``q`` by moving
  with velocity ``v`` for a time ``h`` (``q + h v`` when ``v = dq/dt``);
* ``displacement(q0, q1)`` -- the velocity-space step from ``q0`` to ``q1``
  (``integrate(q0, displacement(q0, q1) / h, h) == q1``);
* ``energy(q, v)`` -- kinetic plus potential energy, for checks;
* ``applied(t, q, v)`` -- the part of ``forces`` that is not in ``energy``
  (a controller's torques; zero for a passive system), for the energy balance.

:class:`reach.models.planar.PlanarDynamics` and
:class:`reach.models.spheres.SphereSystem` implement it; the Stewart--Trinkle
time-stepper (:mod:`reach.laws.stewart_trinkle`) consumes it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["ContactJacobians", "Dynamics", "select_contacts"]


class ContactJacobians(NamedTuple):
    """The contact candidates of a system at one configuration.

    Attributes
    ----------
    names : tuple of str, length p
    phi : ndarray, shape (p,)
        Signed distances (m): > 0 apart, < 0 penetrating.
    Jn : ndarray, shape (p, nv)
        Normal rows: ``Jn @ v`` is each contact's separating velocity.
    Jt : ndarray, shape (p, dt, nv)
        Tangent rows, orthonormal in the contact's tangent space: ``dt = 1``
        for planar contacts, 2 for spatial ones.
    mu : ndarray, shape (p,)
        Coulomb friction coefficients.
    """

    names: tuple
    phi: np.ndarray
    Jn: np.ndarray
    Jt: np.ndarray
    mu: np.ndarray

    @property
    def p(self):
        return len(self.names)

    @property
    def tangent_dim(self):
        return int(self.Jt.shape[1])


def select_contacts(contacts, index):
    """The candidates ``index`` (sequence of int) of a :class:`ContactJacobians`."""
    index = np.asarray(index, dtype=int)
    return ContactJacobians(tuple(contacts.names[i] for i in index), contacts.phi[index],
                            contacts.Jn[index], contacts.Jt[index], contacts.mu[index])


class Dynamics:
    """Base class of the systems a time-stepper can step (see the module docstring).

    Subclasses set ``nq`` and ``nv`` and implement the methods below; the
    defaults here cover systems with ``v = dq/dt`` and no applied force
    outside the potential energy.
    """

    nq: int
    nv: int

    def mass_matrix(self, q):
        raise NotImplementedError

    def forces(self, t, q, v):
        raise NotImplementedError

    def contacts(self, q):
        raise NotImplementedError

    def energy(self, q, v):
        raise NotImplementedError

    def integrate(self, q, v, h):
        """``q + h v``."""
        return np.asarray(q, dtype=float) + h * np.asarray(v, dtype=float)

    def displacement(self, q0, q1):
        """``q1 - q0``."""
        return np.asarray(q1, dtype=float) - np.asarray(q0, dtype=float)

    def applied(self, t, q, v):
        """The applied generalized force outside the potential energy (default none)."""
        return np.zeros(self.nv)
