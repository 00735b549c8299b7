"""A planar model as a dynamical system: gravity, Coriolis forces and contacts for a time-stepper.

:class:`PlanarDynamics` wraps a :class:`reach.models.planar.PlanarModel` into the
:class:`reach.problem.dynamics.Dynamics` protocol.  With ``v = dq/dt`` and the
Lagrangian ``L = v^T M(q) v / 2 - V(q)``, the smooth generalized force is
(Stewart & Trinkle eq. 10)

    ``k(q, v) = -Mdot(q, v) v + (1/2) grad_q (v^T M(q) v) - grad V(q) + f(t, q, v)``,

with ``V = g sum_i m_i y_i`` for the point masses (y up) and an optional user
force ``f``.  The velocity terms are exact: ``-sum m J_p^T (dJ_p/dt) v`` over
the point masses (:mod:`reach.models.planar.motion`).  They vanish for a
single free body whose masses sit on its origin (``constant_mass``: M is the
same at random configurations, and then they are skipped).
"""

from __future__ import annotations

import numpy as np

from reach.problem.dynamics import ContactJacobians, Dynamics
from reach.models.planar import motion
from reach.models.planar.frames import perp, rotation

__all__ = ["PlanarDynamics"]


class PlanarDynamics(Dynamics):
    """A :class:`PlanarModel` under gravity with frictional contacts, for :mod:`reach.laws.stewart_trinkle`.

    Parameters
    ----------
    model : PlanarModel
    mu : float or dict
        Friction coefficient of every contact, or a dict from contact name to
        coefficient (names missing from the dict use ``default_mu``).
    gravity : float
        Gravitational acceleration (m/s^2) along -y; 0 switches gravity off.
    contacts : sequence of str, optional
        The contact candidates to consider (default all of the model's).
    force : callable, optional
        ``force(t, q, v) -> (nv,)``: a generalized applied force (a controller's
        torques, a push).  It is reported by :meth:`applied` for the energy balance.
    default_mu : float
        Friction for contacts missing from a ``mu`` dict.
    """

    def __init__(self, model, mu=0.5, *, gravity=9.81, contacts=None, force=None, default_mu=0.5):
        self.model = model
        self.nq = self.nv = int(model.nv)
        names = model.contact_names() if contacts is None else tuple(contacts)
        if not names:
            raise ValueError(f"model {model.name!r} has no contact candidates (add shapes and walls).")
        known = set(model.contact_names())
        unknown = [n for n in names if n not in known and "|".join(reversed(n.split("|"))) not in known]
        if unknown:
            raise ValueError(f"unknown contacts {unknown}; the model's are {sorted(known)}.")
        self.contact_names = tuple(names)
        if isinstance(mu, dict):
            flipped = {"|".join(reversed(key.split("|"))): value for key, value in mu.items() if key not in names}
            mu = {**{k: v for k, v in mu.items() if k in names}, **flipped}
            unknown = sorted(set(mu) - set(names))
            if unknown:
                raise ValueError(f"`mu` names unknown contacts {unknown}; known: {list(names)}.")
            values = [mu.get(name, default_mu) for name in names]
        else:
            values = [mu] * len(names)
        self.mu = np.asarray(values, dtype=float)
        if np.any(~np.isfinite(self.mu)) or np.any(self.mu < 0):
            raise ValueError(f"friction coefficients must be finite and >= 0; got {self.mu.tolist()}.")
        self.gravity = float(gravity)
        if not np.isfinite(self.gravity):
            raise ValueError(f"`gravity` must be finite; got {gravity!r}.")
        if force is not None and not callable(force):
            raise TypeError("`force` must be a callable force(t, q, v) -> array of shape (nv,).")
        self.force = force
        rng = np.random.default_rng(0)
        M0 = model.mass_matrix(np.zeros(self.nq), check=False)
        self.constant_mass = all(np.array_equal(M0, model.mass_matrix(rng.uniform(-3, 3, self.nq), check=False))
                                 for _ in range(3))
        self._kinematics = None  # ((q, v)'s bytes, motion.origin_bias there): the last state's

    def mass_matrix(self, q):
        return self.model.mass_matrix(q, check=False)

    def _mass_points(self, q):
        """(heights (n,), vertical Jacobian rows (n, nv), masses (n,)) of the point masses."""
        positions, angles, Jp, Jw = self.model.body_jacobians(q)
        index = {name: i for i, name in enumerate(self.model.bodies)}
        heights, rows, masses = [], [], []
        for pm in self.model.masses:
            b = index[pm.body]
            arm = rotation(angles[b]) @ pm.offset
            heights.append(positions[b][1] + arm[1])
            rows.append(Jp[b][1] + perp(arm)[1] * Jw[b])
            masses.append(pm.mass)
        return np.array(heights), np.array(rows).reshape(-1, self.nv), np.array(masses)

    def gravity_force(self, q):
        """``-grad V(q)`` (nv,)."""
        _, rows, masses = self._mass_points(q)
        return -self.gravity * (masses @ rows)

    def potential_energy(self, q):
        heights, _, masses = self._mass_points(q)
        return float(self.gravity * (masses @ heights))

    def velocity_force(self, q, v):
        """``-Mdot v + grad_q(v^T M v) / 2`` (nv,): Coriolis and centrifugal terms, exact
        (:func:`reach.models.planar.motion.velocity_force`)."""
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        if not np.any(v) or self.constant_mass:
            return np.zeros(self.nv)
        return motion.velocity_force(self.model, q, v, self._origin_bias(q, v))

    def contact_rates(self, q, v):
        """``(normal, tangent)`` (p,) each: ``d/dt (Jn v)`` and ``d/dt (Jt v)`` of the contacts at ``(q, v)``
        when ``dv/dt = 0`` (:func:`reach.models.planar.motion.contact_rates`), for a flow's held contacts.
        A subclass whose :meth:`contacts` gives other rows must override this too (or a flow uses rates of
        rows it does not hold)."""
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        return motion.contact_rates(self.model, q, v, self.contact_names, self._origin_bias(q, v))

    def _origin_bias(self, q, v):
        """:func:`reach.models.planar.motion.origin_bias` at ``(q, v)``, kept for the last state: a flow asks for
        the forces and its held contacts' rates at the same one."""
        key = (q.tobytes(), v.tobytes())
        if self._kinematics is None or self._kinematics[0] != key:
            kinematics = motion.origin_bias(self.model, q, v)
            kinematics[-1].flags.writeable = False  # handed out again, as body_jacobians's arrays are
            self._kinematics = (key, kinematics)
        return self._kinematics[1]

    def forces(self, t, q, v):
        k = self.gravity_force(q) + self.velocity_force(q, v)
        if self.force is not None:
            k = k + self._applied(t, q, v)
        return k

    def _applied(self, t, q, v):
        f = np.asarray(self.force(t, q, v), dtype=float)
        if f.shape != (self.nv,) or not np.all(np.isfinite(f)):
            raise ValueError(f"`force` must return a finite array of shape ({self.nv},); got shape {f.shape}.")
        return f

    def applied(self, t, q, v):
        return np.zeros(self.nv) if self.force is None else self._applied(t, q, v)

    def contacts(self, q):
        frames = self.model.contacts(q, self.contact_names)
        return ContactJacobians(self.contact_names, np.array([c.phi for c in frames]),
                                np.array([c.Jn for c in frames]),
                                np.array([c.Jt for c in frames])[:, None, :], self.mu.copy())

    def energy(self, q, v):
        v = np.asarray(v, dtype=float)
        return 0.5 * float(v @ self.mass_matrix(q) @ v) + self.potential_energy(q)

    def __repr__(self):
        return f"PlanarDynamics({self.model.name!r}, nv={self.nv}, contacts={len(self.contact_names)})"
