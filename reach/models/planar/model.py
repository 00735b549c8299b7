"""Planar kinematic trees: bodies, joints, point masses, poses and the mass matrix.

A :class:`PlanarModel` is a tree of bodies.  Each body hangs from its parent
(another body, or the fixed ``"world"``) by one joint:

==============  ===  ==========================================================
joint           dof  body frame relative to the parent frame
==============  ===  ==========================================================
``floating``    3    translate by ``origin + (x, y)``, rotate by ``theta``
``revolute``    1    translate by ``origin``, rotate by ``angle`` (CCW > 0)
``prismatic``   1    translate by ``origin + s * axis`` (axis in parent frame)
==============  ===  ==========================================================

Joint angles are relative to the parent body, counter-clockwise positive; a
body's world angle is the sum of the angles on its path from the world.  The
generalized velocity is ``v = dq/dt`` (nv = nq), in the order the joints were
added.

With the world pose ``(p_b, phi_b)`` of body ``b`` and its Jacobians
``Jp_b`` (2, nv), ``Jw_b`` (nv,), a material point at body-frame offset ``r``
has position ``p = p_b + R(phi_b) r`` and Jacobian

    ``J_p = Jp_b + perp(R(phi_b) r) Jw_b``,  ``perp((x, y)) = (-y, x)``,

computed exactly by recursion down the tree.  The mass matrix sums over the
point masses (mass ``m``, rotational inertia ``I`` about the point):

    ``M(q) = sum  m J_p^T J_p + I Jw_b^T Jw_b``.
"""

from __future__ import annotations


import numpy as np

from reach.kernels.assembly import times
from reach.models.planar.contacts import ACTIVE_TOL, build_candidates, evaluate_contacts, impact_problem
from reach.models.planar.frames import arm_jacobian, outer, rotation
from reach.models.planar.geometry import outlines
from reach.models.planar.parts import JOINT_DOFS, WORLD, Joint, PointMass, nonnegative
from reach.models.planar.shapes import Box, Disc, Point, Rod, Wall, as_vector2

__all__ = ["PlanarModel", "PointMass", "Joint", "WORLD", "JOINT_DOFS"]

class PlanarModel:
    """A planar kinematic tree of rigid bodies with masses, shapes and walls.

    Build it with :meth:`add_body`, :meth:`add_mass`, the shape methods
    (:meth:`add_point`, :meth:`add_rod`, :meth:`add_box`, :meth:`add_disc`) and
    :meth:`add_wall`; then evaluate it at a configuration ``q`` (nq,):
    :meth:`mass_matrix`, :meth:`signed_distances`, :meth:`contacts`,
    :meth:`impact_problem`, :meth:`outlines`.

    Parameters
    ----------
    name : str
        A label for messages.

    Examples
    --------
    A 1 m x 2 m block of 1 kg falling flat onto the floor:

    >>> from reach.models.planar import PlanarModel
    >>> model = PlanarModel("block")
    >>> model.add_body("block", joint="floating")
    'block'
    >>> model.add_box("block", "block", width=1.0, height=2.0, mass=1.0)
    >>> model.add_wall("floor", normal=(0.0, 1.0))
    >>> model.coordinate_names
    ('block.x', 'block.y', 'block.theta')
    >>> [c.name for c in model.active_contacts([0.0, 1.0, 0.0])]
    ['block.bottom_left|floor', 'block.bottom_right|floor']
    >>> problem = model.impact_problem([0.0, 1.0, 0.0], [0.0, -0.44, 0.0], mu=1.0)
    >>> problem.contact_velocities(problem.v)[:, 0]
    array([-0.44, -0.44])
    """

    def __init__(self, name="model"):
        self.name = str(name)
        self._bodies = []  # body names in order; parents precede children
        self._index = {}
        self._joints = []
        self._coordinate_names = []
        self._coordinate_kinds = []
        self.masses = []
        self.shapes = []
        self.walls = []
        self._candidates = None
        self._kinematics = None  # (q's bytes, body_jacobians(q)): the last, which a flow asks for several times

    # ------------------------------------------------------------------ building
    def _check_new_name(self, what, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"{what} name must be a non-empty string; got {name!r}.")
        if any(ch in name for ch in "|"):
            raise ValueError(f"{what} name {name!r} must not contain '|'.")

    def _check_body(self, what, body):
        if body not in self._index:
            known = ", ".join(repr(b) for b in self._bodies) or "none yet"
            raise ValueError(f"{what}: unknown body {body!r} (bodies: {known}).")

    def add_body(self, name, *, joint="floating", parent=WORLD, origin=(0.0, 0.0), axis=(1.0, 0.0),
                 coordinates=None):
        """Add a body hanging from ``parent`` by a joint; returns its name.

        Parameters
        ----------
        name : str
            New body's name (unique; not ``"world"``).
        joint : {"floating", "revolute", "prismatic"}
            Joint type (see the module docstring).
        parent : str
            An existing body, or ``"world"``.
        origin : array_like, shape (2,)
            Joint position in the parent frame.
        axis : array_like, shape (2,)
            Slide direction of a prismatic joint, in the parent frame.
        coordinates : sequence of str, optional
            Names for the joint's coordinates; default ``name.x, name.y,
            name.theta`` (floating), ``name.angle`` (revolute), ``name.s``
            (prismatic).
        """
        self._check_new_name("body", name)
        if name == WORLD or name in self._index:
            raise ValueError(f"body name {name!r} is already taken.")
        if joint not in JOINT_DOFS:
            raise ValueError(f"body {name!r}: unknown joint type {joint!r}; expected one of {sorted(JOINT_DOFS)}.")
        if parent != WORLD and parent not in self._index:
            known = ", ".join(repr(b) for b in [WORLD] + self._bodies)
            raise ValueError(f"body {name!r}: joint has unknown parent {parent!r} (known: {known}).")
        origin = as_vector2(f"body {name!r}: `origin`", origin)
        axis = np.array(as_vector2(f"body {name!r}: `axis`", axis))
        if joint == "prismatic":
            norm = np.linalg.norm(axis)
            if norm < 1e-12:
                raise ValueError(f"body {name!r}: prismatic joint `axis` must be non-zero; got {axis.tolist()}.")
            axis /= norm
        axis.setflags(write=False)
        dof = JOINT_DOFS[joint]
        if coordinates is None:
            coordinates = {"floating": ("x", "y", "theta"), "revolute": ("angle",), "prismatic": ("s",)}[joint]
            coordinates = tuple(f"{name}.{c}" for c in coordinates)
        coordinates = tuple(str(c) for c in coordinates)
        if len(coordinates) != dof:
            raise ValueError(f"body {name!r}: a {joint} joint needs {dof} coordinate names; got {len(coordinates)}.")
        clash = set(coordinates) & set(self._coordinate_names)
        if clash or len(set(coordinates)) != dof:
            raise ValueError(f"body {name!r}: coordinate names must be unique; {sorted(clash) or coordinates} repeat.")
        start = len(self._coordinate_names)
        self._coordinate_names.extend(coordinates)
        self._coordinate_kinds.extend({"floating": ("linear", "linear", "angular"), "revolute": ("angular",),
                                       "prismatic": ("linear",)}[joint])
        self._index[name] = len(self._bodies)
        self._bodies.append(name)
        self._joints.append(Joint(joint, parent, origin, axis, tuple(range(start, start + dof))))
        self._candidates = self._kinematics = None
        return name

    def add_mass(self, body, mass, *, inertia=0.0, offset=(0.0, 0.0), name=None):
        """Add a point mass ``mass`` with rotational ``inertia`` at body-frame ``offset``."""
        name = f"{body}.mass{sum(pm.body == body for pm in self.masses)}" if name is None else str(name)
        self._check_body(f"mass {name!r}", body)
        mass = nonnegative(f"mass {name!r}: `mass`", mass)
        inertia = nonnegative(f"mass {name!r}: `inertia`", inertia)
        offset = as_vector2(f"mass {name!r}: `offset`", offset)
        self.masses.append(PointMass(name, body, mass, inertia, offset))

    def _add_shape(self, shape):
        self._check_new_name("shape", shape.name)
        self._check_body(f"{shape.kind} {shape.name!r}", shape.body)
        if any(s.name == shape.name for s in self.shapes) or any(w.name == shape.name for w in self.walls):
            raise ValueError(f"shape name {shape.name!r} is already taken.")
        self.shapes.append(shape)
        self._candidates = None

    def add_point(self, body, name, offset=(0.0, 0.0), *, contact=True):
        """Add a contact vertex at body-frame ``offset``."""
        self._add_shape(Point(name, body, offset, contact))

    def add_rod(self, body, name, start, end, *, mass=0.0, contact=True):
        """Add a rod from ``start`` to ``end`` (body frame); ``mass`` > 0 adds a uniform rod's mass."""
        self._add_shape(Rod(name, body, start, end, contact))
        rod = self.shapes[-1]
        mass = nonnegative(f"rod {name!r}: `mass`", mass)
        if mass > 0:
            self.add_mass(body, mass, inertia=mass * rod.length ** 2 / 12.0,
                          offset=0.5 * (rod.start + rod.end), name=f"{name}.mass")

    def add_box(self, body, name, width, height, *, offset=(0.0, 0.0), angle=0.0, mass=0.0, contact=True):
        """Add a ``width x height`` box centred at ``offset``; ``mass`` > 0 adds a uniform box's mass.

        A uniform box has inertia ``mass (width^2 + height^2) / 12`` about its centre.
        """
        self._add_shape(Box(name, body, width, height, offset, angle, contact))
        box = self.shapes[-1]
        mass = nonnegative(f"box {name!r}: `mass`", mass)
        if mass > 0:
            self.add_mass(body, mass, inertia=mass * (box.width ** 2 + box.height ** 2) / 12.0,
                          offset=box.offset, name=f"{name}.mass")

    def add_disc(self, body, name, radius, *, offset=(0.0, 0.0), mass=0.0, contact=True):
        """Add a disc of ``radius`` centred at ``offset``; ``mass`` > 0 adds a uniform disc (I = m r^2 / 2)."""
        self._add_shape(Disc(name, body, radius, offset, contact))
        disc = self.shapes[-1]
        mass = nonnegative(f"disc {name!r}: `mass`", mass)
        if mass > 0:
            self.add_mass(body, mass, inertia=0.5 * mass * disc.radius ** 2, offset=disc.offset,
                          name=f"{name}.mass")

    def add_wall(self, name, normal, offset=0.0):
        """Add the static half-plane ``{p : n . p >= offset}`` of free space (``n`` normalized)."""
        self._check_new_name("wall", name)
        if any(w.name == name for w in self.walls) or any(s.name == name for s in self.shapes):
            raise ValueError(f"wall name {name!r} is already taken.")
        self.walls.append(Wall(name, normal, offset))
        self._candidates = None

    # ------------------------------------------------------------------ sizes and names
    @property
    def bodies(self):
        """Body names, parents before children."""
        return tuple(self._bodies)

    @property
    def joints(self):
        """The joint of each body (same order as :attr:`bodies`)."""
        return tuple(self._joints)

    @property
    def coordinate_names(self):
        """Names of the nq coordinates."""
        return tuple(self._coordinate_names)

    @property
    def coordinate_kinds(self):
        """``"linear"`` (m, m/s) or ``"angular"`` (rad, rad/s) for each coordinate."""
        return tuple(self._coordinate_kinds)

    @property
    def nq(self):
        return len(self._coordinate_names)

    @property
    def nv(self):
        return len(self._coordinate_names)

    def body_index(self, body):
        self._check_body("body_index", body)
        return self._index[body]

    def _as_q(self, q, what="q"):
        q = np.asarray(q, dtype=float)
        if q.shape != (self.nq,):
            raise ValueError(f"`{what}` must have shape ({self.nq},) for model {self.name!r}; got {q.shape}.")
        if not np.all(np.isfinite(q)):
            raise ValueError(f"`{what}` contains NaN or infinite entries.")
        return q

    # ------------------------------------------------------------------ kinematics
    def body_poses(self, q):
        """World poses of all bodies (forward kinematics only; no derivatives).

        Parameters
        ----------
        q : array_like, shape (nq,)

        Returns
        -------
        positions : ndarray, shape (nb, 2)
            World position of each body frame's origin.
        angles : ndarray, shape (nb,)
            World angle of each body frame.
        """
        q = self._as_q(q)
        nb = len(self._bodies)
        positions, angles = np.zeros((nb, 2)), np.zeros(nb)
        for b, joint in enumerate(self._joints):
            if joint.parent == WORLD:
                p_parent, a_parent = np.zeros(2), 0.0
            else:
                k = self._index[joint.parent]
                p_parent, a_parent = positions[k], angles[k]
            local = joint.origin.copy()
            angle = a_parent
            c = joint.coordinates
            if joint.kind == "floating":
                local = local + q[list(c[:2])]
                angle = a_parent + q[c[2]]
            elif joint.kind == "revolute":
                angle = a_parent + q[c[0]]
            else:
                local = local + q[c[0]] * joint.axis
            positions[b] = p_parent + rotation(a_parent) @ local
            angles[b] = angle
        return positions, angles

    def body_jacobians(self, q):
        """World poses of all bodies and the Jacobians of their frames.

        Parameters
        ----------
        q : array_like, shape (nq,)

        Returns
        -------
        positions : ndarray, shape (nb, 2)
        angles : ndarray, shape (nb,)
        Jp : ndarray, shape (nb, 2, nv)
            ``Jp[b] @ v`` is the world velocity of body b's origin.
        Jw : ndarray, shape (nb, nv)
            ``Jw[b] @ v`` is body b's angular rate.

        The arrays are read-only: the last ``q``'s are kept and handed out again.
        """
        q = self._as_q(q)
        key = q.tobytes()
        if self._kinematics is not None and self._kinematics[0] == key:
            return self._kinematics[1]
        nb, nv = len(self._bodies), self.nv
        positions, angles = np.zeros((nb, 2)), np.zeros(nb)
        Jp, Jw = np.zeros((nb, 2, nv)), np.zeros((nb, nv))
        for b, joint in enumerate(self._joints):
            if joint.parent == WORLD:
                p_parent, a_parent = np.zeros(2), 0.0
                Jp_parent, Jw_parent = np.zeros((2, nv)), np.zeros(nv)
            else:
                k = self._index[joint.parent]
                p_parent, a_parent, Jp_parent, Jw_parent = positions[k], angles[k], Jp[k], Jw[k]
            R = rotation(a_parent)
            c = joint.coordinates
            local = joint.origin.copy()
            Jw[b] = Jw_parent
            angle = a_parent
            if joint.kind == "floating":
                local = local + q[list(c[:2])]
                angle = a_parent + q[c[2]]
                Jp[b][:, c[0]] += R[:, 0]
                Jp[b][:, c[1]] += R[:, 1]
                Jw[b, c[2]] += 1.0
            elif joint.kind == "revolute":
                angle = a_parent + q[c[0]]
                Jw[b, c[0]] += 1.0
            else:
                local = local + q[c[0]] * joint.axis
                Jp[b][:, c[0]] += R @ joint.axis
            arm = R @ local
            positions[b] = p_parent + arm
            angles[b] = angle
            Jp[b] += arm_jacobian(Jp_parent, Jw_parent, arm)
        for array in (positions, angles, Jp, Jw):
            array.flags.writeable = False
        self._kinematics = (key, (positions, angles, Jp, Jw))
        return positions, angles, Jp, Jw

    def point_position(self, q, body, offset):
        """World position (2,) of the material point at body-frame ``offset`` (2,) of ``body``."""
        self._check_body("point_position", body)
        positions, angles = self.body_poses(q)
        b = self._index[body]
        return positions[b] + rotation(angles[b]) @ np.asarray(offset, dtype=float)

    def point_jacobian(self, q, body, offset):
        """Jacobian (2, nv) of the material point at body-frame ``offset`` of ``body``."""
        self._check_body("point_jacobian", body)
        positions, angles, Jp, Jw = self.body_jacobians(q)
        b = self._index[body]
        arm = rotation(angles[b]) @ np.asarray(offset, dtype=float)
        return arm_jacobian(Jp[b], Jw[b], arm)

    # ------------------------------------------------------------------ inertia
    @property
    def total_mass(self):
        return float(sum(pm.mass for pm in self.masses))

    def mass_matrix(self, q, *, check=True):
        """Generalized mass matrix ``M(q)`` (nv, nv), symmetric.

        Parameters
        ----------
        q : array_like, shape (nq,)
        check : bool
            Raise a ValueError naming the coordinates that move no mass if
            ``M`` is singular (not positive definite).
        """
        positions, angles, Jp, Jw = self.body_jacobians(q)
        M = np.zeros((self.nv, self.nv))
        for pm in self.masses:
            b = self._index[pm.body]
            if pm.mass > 0:
                J = arm_jacobian(Jp[b], Jw[b], rotation(angles[b]) @ pm.offset)
                M += times(pm.mass * J, J, transpose=True)  # (summed in a fixed order: the same bits on any CPU)
            if pm.inertia > 0:
                M += pm.inertia * outer(Jw[b], Jw[b])
        M = 0.5 * (M + M.T)
        if check:
            self._check_mass_matrix(M)
        return M

    def _check_mass_matrix(self, M):
        if self.nv == 0:
            raise ValueError(f"model {self.name!r} has no degrees of freedom (add a body).")
        eigenvalues, vectors = np.linalg.eigh(M)
        scale = max(float(eigenvalues[-1]), 0.0)
        if scale > 0 and eigenvalues[0] > 1e-12 * scale:
            return
        null = vectors[:, 0]
        moving = [self._coordinate_names[i] for i in np.flatnonzero(np.abs(null) > 0.1 * np.abs(null).max())]
        raise ValueError(
            f"model {self.name!r} has a singular mass matrix: the coordinates {moving} can move without "
            "moving any mass or inertia (massless degrees of freedom); add mass or inertia to the bodies "
            "they carry.")

    def kinetic_energy(self, q, v):
        """Kinetic energy ``v^T M(q) v / 2`` of the velocity v (nv,)."""
        v = self._as_q(v, "v")
        return 0.5 * float(v @ self.mass_matrix(q, check=False) @ v)

    def center_of_mass(self, q, body=None):
        """World centre of mass (2,) of the model, or of one body's point masses."""
        positions, angles = self.body_poses(q)
        total, moment = 0.0, np.zeros(2)
        for pm in self.masses:
            if body is not None and pm.body != body:
                continue
            b = self._index[pm.body]
            total += pm.mass
            moment += pm.mass * (positions[b] + rotation(angles[b]) @ pm.offset)
        if total == 0:
            raise ValueError(f"{'model' if body is None else 'body ' + repr(body)} has no mass.")
        return moment / total

    # ------------------------------------------------------------------ contacts (see contacts.py)
    def contact_names(self):
        """Names of all contact candidates, e.g. ``"block.bottom_left|floor"`` or ``"top|left"``."""
        return tuple(c.name for c in self.contact_candidates())

    def contact_candidates(self):
        """All contact candidates (:func:`reach.models.planar.contacts.build_candidates`), cached until the model changes."""
        if self._candidates is None:
            self._candidates = build_candidates(self)
        return self._candidates

    def signed_distances(self, q):
        """Signed distances phi (n_candidates,) of all contact candidates (see :meth:`contact_names`)."""
        return np.array([c.phi for c in evaluate_contacts(self, q)])

    def contacts(self, q, names=None):
        """Evaluate contacts at q: all candidates, or the given names in that order.

        A disc-disc name may be given either way round (``"a|b"`` or ``"b|a"``);
        the normal points into the first-named disc.

        Returns
        -------
        list of :class:`reach.models.planar.contacts.Contact`
        """
        return evaluate_contacts(self, q, names)

    def active_contacts(self, q, tol=None):
        """Contacts with ``phi <= tol`` (default :data:`reach.models.planar.contacts.ACTIVE_TOL`), in candidate order."""
        tol = ACTIVE_TOL if tol is None else float(tol)
        return [c for c in evaluate_contacts(self, q) if c.phi <= tol]

    def impact_problem(self, q, v, mu, *, contacts=None, names=None, tol=None, check_active=True,
                       friction_directions=None):
        """The :class:`reach.problem.impact.ImpactProblem` of this model at (q, v).

        Parameters
        ----------
        q, v : array_like, shape (nq,)
            Configuration and pre-impact velocity.
        mu : float or array_like, shape (m,)
            Friction coefficients of the chosen contacts.
        contacts : sequence of str, optional
            Contact names (see :meth:`contact_names`) in the order wanted;
            default: all active contacts (``phi <= tol``) in candidate order.
        names : sequence of str, optional
            Labels for the problem's contacts (default: the contact names).
        tol : float, optional
            Activity tolerance on phi (default ``ACTIVE_TOL``).
        check_active : bool
            Raise if a named contact has ``phi > tol``.
        """
        return impact_problem(self, q, v, mu, contacts=contacts, names=names, tol=tol,
                              check_active=check_active, friction_directions=friction_directions)

    def outlines(self, q):
        """Drawing geometry at q (see :func:`reach.models.planar.geometry.outlines`)."""
        return outlines(self, q)

    def __repr__(self):
        return (f"PlanarModel({self.name!r}, bodies={len(self._bodies)}, nq={self.nq}, "
                f"shapes={len(self.shapes)}, walls={len(self.walls)}, masses={len(self.masses)})")
