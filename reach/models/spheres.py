"""Balls on a table: an exact spatial model with 6 degrees of freedom per ball.

Each ball ``i`` has a centre ``c_i`` (3,), an orientation (unit quaternion,
scalar first), a velocity ``u_i`` and a world-frame angular velocity ``w_i``.
The configuration is ``q = [c_1 .. c_N, quat_1 .. quat_N]`` (7N,) and the
velocity ``v = [u_1, w_1, .., u_N, w_N]`` (6N,).  The mass matrix is
``diag(m_i I3, J_i I3)``: a uniform ball's inertia is isotropic, so there is no
gyroscopic force, and gravity ``-m_i g z`` is the only smooth force.

Contacts (z is up; the table is the plane ``z = 0``):

``ball i|table``
    ``phi = z_i - r_i``, normal ``e_z``, tangents ``e_x, e_y``, contact point
    ``c_i - r_i e_z``.
``ball j|ball i`` (j > i)
    ``phi = |c_j - c_i| - r_i - r_j``, normal ``n = (c_j - c_i)/|c_j - c_i|``
    into ball j; tangents ``t1 = n x e_z`` normalised (``n x e_x`` when n is
    vertical) and ``t2 = t1 x n`` (Stewart & Trinkle section 3).  The rows give
    the velocity of ball j's touching material point relative to ball i's.

The velocity of a material point at offset ``r`` from a centre is
``u + w x r``, so a direction ``d`` has the row ``[d, r x d]`` in that ball's
block.
"""

from __future__ import annotations

import numpy as np

from reach.models.spatial import cross3
from reach.problem.dynamics import ContactJacobians, Dynamics

__all__ = ["SphereSystem", "quaternion_multiply", "rotation_quaternion"]

_EZ = np.array([0.0, 0.0, 1.0])
_EX = np.array([1.0, 0.0, 0.0])


def quaternion_multiply(a, b):
    """Hamilton product ``a b`` of quaternions (w, x, y, z)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def rotation_quaternion(rotvec):
    """Unit quaternion of the rotation by the vector ``rotvec`` (axis times angle)."""
    angle = float(np.linalg.norm(rotvec))
    if angle < 1e-12:
        return np.array([1.0, 0.5 * rotvec[0], 0.5 * rotvec[1], 0.5 * rotvec[2]]) / np.sqrt(1 + 0.25 * angle ** 2)
    return np.concatenate([[np.cos(0.5 * angle)], np.sin(0.5 * angle) * np.asarray(rotvec) / angle])


def _rotation_vector(quat):
    """Rotation vector of a unit quaternion (angle in [0, pi])."""
    w, xyz = quat[0], quat[1:]
    if w < 0:
        w, xyz = -w, -xyz
    s = float(np.linalg.norm(xyz))
    if s < 1e-12:
        return 2.0 * xyz
    return 2.0 * np.arctan2(s, w) * xyz / s


class SphereSystem(Dynamics):
    """Uniform balls on the table ``z = 0`` under gravity.

    Parameters
    ----------
    radius, mass : float or array_like, shape (N,)
    inertia : float or array_like, optional
        Moment of inertia about the centre (default ``2/5 m r^2``).
    mu : float
        Friction coefficient of every contact (ball-table and ball-ball).
    n_balls : int
        Number of balls N.
    gravity : float
        Along -z (m/s^2).
    force : callable, optional
        ``force(t, q, v) -> (6N,)``: applied forces and torques (a push, a
        motor), reported by :meth:`applied` for the energy balance.
    """

    def __init__(self, n_balls, *, radius, mass, inertia=None, mu=0.4, gravity=9.81, force=None):
        self.n = int(n_balls)
        if self.n < 1:
            raise ValueError(f"`n_balls` must be >= 1; got {n_balls!r}.")
        self.radius = np.broadcast_to(np.asarray(radius, dtype=float), (self.n,)).copy()
        self.mass = np.broadcast_to(np.asarray(mass, dtype=float), (self.n,)).copy()
        inertia = 0.4 * self.mass * self.radius ** 2 if inertia is None else inertia
        self.inertia = np.broadcast_to(np.asarray(inertia, dtype=float), (self.n,)).copy()
        for what, arr in (("radius", self.radius), ("mass", self.mass), ("inertia", self.inertia)):
            if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
                raise ValueError(f"`{what}` must be finite and > 0; got {arr.tolist()}.")
        if not np.isfinite(mu) or mu < 0:
            raise ValueError(f"`mu` must be finite and >= 0; got {mu!r}.")
        self.mu_value = float(mu)
        self.gravity = float(gravity)
        if force is not None and not callable(force):
            raise TypeError("`force` must be a callable force(t, q, v) -> array of shape (6N,).")
        self.force = force
        self.nq, self.nv = 7 * self.n, 6 * self.n
        self.pairs = [(j, i) for j in range(self.n) for i in range(j)]
        self.contact_names = tuple([f"ball{i + 1}|table" for i in range(self.n)] +
                                   [f"ball{j + 1}|ball{i + 1}" for j, i in self.pairs])
        self._M = np.diag(np.concatenate([np.r_[[m] * 3, [J] * 3] for m, J in zip(self.mass, self.inertia)]))

    def state(self, centers, velocities=None, angular=None):
        """``(q, v)`` from centres (N, 3), velocities (N, 3) and angular velocities (N, 3); identity orientations."""
        centers = np.asarray(centers, dtype=float).reshape(self.n, 3)
        u = np.zeros((self.n, 3)) if velocities is None else np.asarray(velocities, dtype=float).reshape(self.n, 3)
        w = np.zeros((self.n, 3)) if angular is None else np.asarray(angular, dtype=float).reshape(self.n, 3)
        quats = np.tile([1.0, 0.0, 0.0, 0.0], (self.n, 1))
        return np.concatenate([centers.ravel(), quats.ravel()]), np.hstack([u, w]).ravel()

    @property
    def velocity_kinds(self):
        """``"linear"`` (m/s) or ``"angular"`` (rad/s) for each velocity coordinate: per ball ``u`` then ``w``."""
        return (("linear",) * 3 + ("angular",) * 3) * self.n

    @property
    def velocity_names(self):
        """A name for each velocity coordinate: ``ball1.vx`` .. ``ball1.wz``, then ``ball2.vx`` ..."""
        return tuple(f"ball{i + 1}.{kind}{axis}" for i in range(self.n) for kind in "vw" for axis in "xyz")

    def centers(self, q):
        return np.asarray(q, dtype=float)[:3 * self.n].reshape(self.n, 3)

    def mass_matrix(self, q):
        return self._M.copy()

    def forces(self, t, q, v):
        k = np.zeros(self.nv)
        k[2::6] = -self.mass * self.gravity
        return k + self.applied(t, q, v)

    def applied(self, t, q, v):
        if self.force is None:
            return np.zeros(self.nv)
        f = np.asarray(self.force(t, q, v), dtype=float)
        if f.shape != (self.nv,) or not np.all(np.isfinite(f)):
            raise ValueError(f"`force` must return a finite array of shape ({self.nv},); got shape {f.shape}.")
        return f

    def _rows(self, ball, offset, directions):
        """Rows (len(directions), nv) of the velocity of ball's material point at ``offset`` along directions."""
        rows = np.zeros((len(directions), self.nv))
        for r, d in enumerate(directions):
            rows[r, 6 * ball:6 * ball + 3] = d
            rows[r, 6 * ball + 3:6 * ball + 6] = cross3(offset, d)
        return rows

    def frames(self, q):
        """World contact frames: points (p, 3), normals (p, 3) and tangents (p, 2, 3) of every candidate."""
        c = self.centers(q)
        p = len(self.contact_names)
        points, normals, tangents = np.empty((p, 3)), np.empty((p, 3)), np.empty((p, 2, 3))
        for i in range(self.n):
            points[i], normals[i], tangents[i] = c[i] - self.radius[i] * _EZ, _EZ, [_EX, [0.0, 1.0, 0.0]]
        for k, (j, i) in enumerate(self.pairs, start=self.n):
            n, t1, t2 = self._pair_frame(c[j] - c[i])
            points[k], normals[k], tangents[k] = c[i] + self.radius[i] * n, n, [t1, t2]
        return points, normals, tangents

    @staticmethod
    def _pair_frame(gap):
        n = gap / np.linalg.norm(gap)
        t1 = cross3(n, _EZ)
        if np.linalg.norm(t1) < 1e-9:
            t1 = cross3(n, _EX)
        t1 /= np.linalg.norm(t1)
        return n, t1, cross3(t1, n)

    def contacts(self, q):
        c = self.centers(q)
        p = len(self.contact_names)
        phi, Jn, Jt = np.empty(p), np.zeros((p, self.nv)), np.zeros((p, 2, self.nv))
        for i in range(self.n):
            rows = self._rows(i, -self.radius[i] * _EZ, [_EZ, _EX, np.array([0.0, 1.0, 0.0])])
            phi[i], Jn[i], Jt[i] = c[i, 2] - self.radius[i], rows[0], rows[1:]
        for k, (j, i) in enumerate(self.pairs, start=self.n):
            dist = float(np.linalg.norm(c[j] - c[i]))
            directions = list(self._pair_frame(c[j] - c[i]))
            n = directions[0]
            rows = (self._rows(j, -self.radius[j] * n, directions) -
                    self._rows(i, self.radius[i] * n, directions))
            phi[k], Jn[k], Jt[k] = dist - self.radius[i] - self.radius[j], rows[0], rows[1:]
        return ContactJacobians(self.contact_names, phi, Jn, Jt, np.full(p, self.mu_value))

    def integrate(self, q, v, h):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float).reshape(self.n, 6)
        out = q.copy()
        out[:3 * self.n] += h * v[:, :3].ravel()
        quats = q[3 * self.n:].reshape(self.n, 4)
        for i in range(self.n):
            turned = quaternion_multiply(rotation_quaternion(h * v[i, 3:]), quats[i])
            out[3 * self.n + 4 * i:3 * self.n + 4 * i + 4] = turned / np.linalg.norm(turned)
        return out

    def displacement(self, q0, q1):
        q0, q1 = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
        out = np.zeros((self.n, 6))
        out[:, :3] = (q1[:3 * self.n] - q0[:3 * self.n]).reshape(self.n, 3)
        a, b = q0[3 * self.n:].reshape(self.n, 4), q1[3 * self.n:].reshape(self.n, 4)
        for i in range(self.n):
            inverse = a[i] * np.array([1.0, -1.0, -1.0, -1.0])
            out[i, 3:] = _rotation_vector(quaternion_multiply(b[i], inverse))
        return out.ravel()

    def energy(self, q, v):
        v = np.asarray(v, dtype=float)
        return 0.5 * float(v @ self._M @ v) + float(self.gravity * self.mass @ self.centers(q)[:, 2])

    def __repr__(self):
        return f"SphereSystem({self.n} balls, mu={self.mu_value})"
