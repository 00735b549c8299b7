"""Contact candidates of a planar model: signed distances, frames and Jacobians.

Three kinds of candidate pairs are generated from the model's shapes (only
shapes with ``contact=True``):

``vertex|wall``
    A vertex ``p`` (point, rod end, box corner) of a body against a wall with
    unit normal ``n`` and offset ``d``: ``phi = n . p - d``.  The contact point
    is the vertex; ``J = J_p``.
``disc|wall``
    A disc (centre ``c``, radius ``rho``) against a wall:
    ``phi = n . c - d - rho``.  The contact point is the disc's lowest material
    point (nearest the wall) ``c - rho n``; ``J`` is that material point's
    Jacobian, so a rolling disc has zero tangential contact velocity.
``disc|disc``
    Discs ``a`` and ``b`` on different bodies:
    ``phi = |c_a - c_b| - rho_a - rho_b``, ``n = (c_a - c_b) / |c_a - c_b|``
    points from ``b`` into ``a``; ``J = J_a(c_a - rho_a n) - J_b(c_b + rho_b n)``
    is the relative velocity of the two material points that touch (they are
    one point when ``phi = 0``).  The reported contact point is their midpoint.

In every case ``n`` points from the wall (or the second body) into the first
body, so ``Jn v > 0`` separates, and ``t = (n_y, -n_x)``; the rows are
``Jn = n^T J`` and ``Jt = t^T J``.  For all three kinds ``Jn = d phi / dq``.

Candidate names are ``"<shape>.<vertex>|<wall>"`` (``"<shape>|<wall>"`` for
points and discs) and ``"<disc a>|<disc b>"`` with ``a`` the later-added disc.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reach.models.planar.frames import arm_jacobian, rotation
from reach.problem.impact import ImpactProblem

__all__ = ["Contact", "ContactCandidate", "ACTIVE_TOL", "build_candidates", "select_candidates", "evaluate_contacts",
           "disc_pair_geometry", "impact_problem"]

#: Default activity tolerance (m): a contact with ``phi <= ACTIVE_TOL`` is active.
ACTIVE_TOL = 1e-8


@dataclass(frozen=True)
class ContactCandidate:
    """A pair of geometric features that may touch.

    Attributes
    ----------
    name : str
    kind : {"vertex|wall", "disc|wall", "disc|disc"}
    body : str
        Body whose material point is the first side (normal points into it).
    local : ndarray, shape (2,)
        Body-frame vertex (vertex|wall) or disc centre.
    radius : float
        Disc radius of the first side (0 for vertices).
    other : str
        Wall name, or the second disc's body.
    other_local : ndarray or None
        Second disc's body-frame centre.
    other_radius : float
    wall : Wall or None
    """

    name: str
    kind: str
    body: str
    local: np.ndarray
    radius: float
    other: str
    other_local: np.ndarray | None = None
    other_radius: float = 0.0
    wall: object = None

    def reversed(self):
        """The same disc-disc pair with the roles swapped (normal flipped)."""
        if self.kind != "disc|disc":
            raise ValueError(f"only disc|disc contacts can be reversed; {self.name!r} is {self.kind}.")
        a, b = self.name.split("|")
        return ContactCandidate(f"{b}|{a}", self.kind, self.other, self.other_local, self.other_radius,
                                self.body, self.local, self.radius)


@dataclass(frozen=True)
class Contact:
    """A contact candidate evaluated at one configuration.

    Attributes
    ----------
    name, kind : str
    phi : float
        Signed distance (> 0 apart, < 0 penetrating).
    point : ndarray, shape (2,)
        World contact point.
    normal, tangent : ndarray, shape (2,)
        Unit normal into the first body, and ``t = (n_y, -n_x)``.
    Jn, Jt : ndarray, shape (nv,)
        Normal and tangential velocity rows.
    body : str
        First body.
    body_point : ndarray, shape (2,)
        Body-frame coordinates of the first body's material contact point.
    other : str
        Wall name or second body.
    other_point : ndarray, shape (2,) or None
        Body-frame coordinates of the second body's material contact point.
    """

    name: str
    kind: str
    phi: float
    point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    Jn: np.ndarray
    Jt: np.ndarray
    body: str
    body_point: np.ndarray
    other: str
    other_point: np.ndarray | None = None


def build_candidates(model):
    """All contact candidates of ``model`` (the model caches them: ``model.contact_candidates()``).

    Order: for each contact shape in order added, its vertices (or the disc)
    against each wall in order added; then disc pairs ``(later, earlier)`` on
    different bodies.
    """
    out = []
    discs = []
    for shape in model.shapes:
        if not shape.contact:
            continue
        if shape.kind == "disc":
            discs.append(shape)
            for wall in model.walls:
                out.append(ContactCandidate(f"{shape.name}|{wall.name}", "disc|wall", shape.body,
                                            shape.offset, shape.radius, wall.name, wall=wall))
            continue
        vertices, labels = shape.vertices()
        for vertex, label in zip(vertices, labels):
            feature = f"{shape.name}.{label}" if label else shape.name
            for wall in model.walls:
                out.append(ContactCandidate(f"{feature}|{wall.name}", "vertex|wall", shape.body,
                                            vertex, 0.0, wall.name, wall=wall))
    for j, b in enumerate(discs):
        for a in discs[j + 1:]:
            if a.body == b.body:
                continue
            out.append(ContactCandidate(f"{a.name}|{b.name}", "disc|disc", a.body, a.offset, a.radius,
                                        b.body, b.offset, b.radius))
    return out


def select_candidates(model, names=None):
    """The candidates named ``names`` (all if None), in that order; a disc pair named the other way round is
    reversed (its normal flipped)."""
    table = {c.name: c for c in model.contact_candidates()}
    if names is None:
        return list(table.values())
    if isinstance(names, str):
        raise ValueError(f"`contacts` must be a sequence of contact names, not the string {names!r}.")
    chosen = []
    for name in names:
        if name in table:
            chosen.append(table[name])
            continue
        parts = str(name).split("|")
        flipped = "|".join(parts[::-1])
        if len(parts) == 2 and flipped in table and table[flipped].kind == "disc|disc":
            chosen.append(table[flipped].reversed())
            continue
        raise ValueError(f"model {model.name!r} has no contact {name!r}; candidates are {sorted(table)}.")
    return chosen


def disc_pair_geometry(candidate, positions, angles, b, k):
    """A disc pair's ``(centre_a, centre_b, dist, normal, arm_a, arm_b)`` at body poses ``positions``, ``angles``.

    ``b`` and ``k`` are the indices of its first body and of ``candidate.other``.
    ``centre_a``, ``centre_b``: each disc's centre from its body's origin, in
    world axes; ``dist``: the distance between the centres; ``normal``: from
    the second disc's centre to the first's (``+y`` where they coincide);
    ``arm_a``, ``arm_b``: the touching material points from their bodies'
    origins (module docstring).
    """
    centre_a = rotation(angles[b]) @ candidate.local
    centre_b = rotation(angles[k]) @ candidate.other_local
    gap = positions[b] + centre_a - (positions[k] + centre_b)
    dist = float(np.linalg.norm(gap))
    normal = gap / dist if dist > 0 else np.array([0.0, 1.0])
    return (centre_a, centre_b, dist, normal, centre_a - candidate.radius * normal,
            centre_b + candidate.other_radius * normal)


def _evaluate(candidate, positions, angles, Jp, Jw, index):
    b = index[candidate.body]
    R = rotation(angles[b])
    if candidate.kind == "disc|disc":
        k = index[candidate.other]
        _, _, dist, normal, arm_a, arm_b = disc_pair_geometry(candidate, positions, angles, b, k)
        J = arm_jacobian(Jp[b], Jw[b], arm_a) - arm_jacobian(Jp[k], Jw[k], arm_b)
        phi = dist - candidate.radius - candidate.other_radius
        point = 0.5 * (positions[b] + arm_a + positions[k] + arm_b)
        other_point = rotation(angles[k]).T @ arm_b
    else:
        wall = candidate.wall
        normal = wall.normal
        arm = R @ candidate.local - candidate.radius * normal
        point = positions[b] + arm
        phi = float(wall.distance(point))
        J = arm_jacobian(Jp[b], Jw[b], arm)
        other_point = None
    tangent = np.array([normal[1], -normal[0]]) + 0.0  # + 0.0: no negative zeros
    return Contact(candidate.name, candidate.kind, phi, point, normal, tangent, normal @ J, tangent @ J,
                   candidate.body, R.T @ (point - positions[b]) if candidate.kind != "disc|disc" else R.T @ arm_a,
                   candidate.other, other_point)


def evaluate_contacts(model, q, names=None):
    """Evaluate the contact candidates (all, or ``names`` in that order) at q.

    Parameters
    ----------
    model : PlanarModel
    q : array_like, shape (nq,)
    names : sequence of str, optional

    Returns
    -------
    list of Contact
    """
    chosen = select_candidates(model, names)
    positions, angles, Jp, Jw = model.body_jacobians(q)
    index = {name: i for i, name in enumerate(model.bodies)}
    return [_evaluate(c, positions, angles, Jp, Jw, index) for c in chosen]


def impact_problem(model, q, v, mu, *, contacts=None, names=None, tol=None, check_active=True,
                   friction_directions=None):
    """Build the :class:`ImpactProblem` of ``model`` at (q, v); see :meth:`PlanarModel.impact_problem`."""
    tol = ACTIVE_TOL if tol is None else float(tol)
    q = model._as_q(q)
    v = model._as_q(v, "v")
    if contacts is None:
        chosen = [c for c in evaluate_contacts(model, q) if c.phi <= tol]
        if not chosen:
            phi = model.signed_distances(q)
            closest = model.contact_names()[int(np.argmin(phi))] if phi.size else None
            raise ValueError(f"model {model.name!r} has no active contact at this `q` (phi <= {tol:g}); "
                             f"the closest is {closest!r}." if closest else
                             f"model {model.name!r} has no contact candidates (add shapes and walls).")
    else:
        chosen = evaluate_contacts(model, q, contacts)
        if not chosen:
            raise ValueError("`contacts` must name at least one contact.")
        if check_active:
            inactive = [f"{c.name} (phi = {c.phi:.3g})" for c in chosen if c.phi > tol]
            if inactive:
                raise ValueError(f"contacts {inactive} are not active (phi > {tol:g}); pass "
                                 "`check_active=False` to use them anyway.")
    M = model.mass_matrix(q)
    Jn = np.array([c.Jn for c in chosen])
    Jt = np.array([c.Jt for c in chosen])
    labels = [c.name for c in chosen] if names is None else list(names)
    return ImpactProblem(M, Jn, Jt, mu, v, friction_directions=friction_directions, contact_names=labels)
