"""Impact problems from MuJoCo models: MJCF or URDF at touchdown -> :class:`~reach.ImpactProblem`.

Given a MuJoCo ``MjModel`` and an ``MjData`` holding the touchdown state
(``qpos`` with the contacts closed, ``qvel`` the pre-impact velocity),
:func:`impact_from_mujoco` reads everything the impact law needs (SPEC §2):

``M``
    the full joint-space inertia matrix (armature included), from
    ``mj_fullM`` -- whose signature changed across MuJoCo versions, see
    :func:`full_mass_matrix`;
``Jn``, ``Jt``
    for every contact with ``dist <= dist_tol``, the *relative* velocity of the
    contact point on geom 1's body with respect to geom 0's body,
    ``J_rel = jac(body1, p) - jac(body0, p)`` (``mj_jac``, both bodies, point
    ``p`` = MuJoCo's contact position), projected on the contact frame.
    MuJoCo's contact normal points from geom 0 to geom 1, so ``n^T J_rel v``
    is **positive when the contact separates** and negative when it
    collides, as :class:`~reach.ImpactProblem` expects.  Spatial problems use
    MuJoCo's frame tangents (rows 2i, 2i+1 of ``Jt`` = ``frame[1]``,
    ``frame[2]``); planar ones the in-plane tangent ``t = e x n`` (below);
``mu``
    the contact's sliding friction ``friction[0]`` (0 for ``condim = 1``);
``v``
    ``data.qvel``.

**Velocity coordinates.**  Problems and results are in MuJoCo's ``qvel``
coordinates: a result's velocity can be written straight back to
``data.qvel``.  Mind the free joint: its ``qvel`` is the *world-frame*
linear velocity of the body frame's origin followed by the *body-frame*
angular velocity; ball joints likewise use body-frame angular velocity.
Contact-frame velocities (:meth:`MujocoImpact.contact_frame_velocities`,
per contact [normal, tangent(s)]) and world-frame contact-point velocities
(:meth:`MujocoImpact.world_contact_velocities`) do not depend on that
convention; :func:`body_velocity` gives a body's world-frame COM linear and
angular velocity for any ``qvel``.

**Touching contacts.**  MuJoCo reports a contact when ``dist < margin``;
some versions therefore drop contacts at exactly zero distance.  While
reading the contacts every geom margin (and pair margin, and the override
margin) is raised temporarily to ``2 dist_tol + 1e-12``; the model is
restored afterwards and ``mj_forward`` re-run, so ``data`` is left as the
model itself computes it.

**Planar models.**  With ``planar=None`` the problem is planar when the
relative contact-point velocities of all contacts lie in one plane for every
``qvel`` (e.g. slide x, slide z, hinge y) and every contact normal lies in
that plane.  ``e`` is the plane's unit normal, signed so that its largest
component is positive; the tangent of each contact is ``t = e x n``.  For a
model moving in the x-z plane ``e = +y`` and ``t = (n_z, 0, -n_x)``: the
project's planar convention ``t = (n_y, -n_x)`` with planar y = MuJoCo z.
Note that a hinge about ``+y`` turns z towards x, i.e. *clockwise* in the
(x, z) picture: use ``axis="0 -1 0"`` to get the planar modeller's
counter-clockwise ``theta``.

**Coincident contacts** -- same normal and same relative-velocity Jacobian,
e.g. the front and back corner of a box in a planar model -- are merged into
one (the first); :attr:`MujocoContact.merged` lists the MuJoCo contact
indices behind each.

**Not represented** (the impact law has point contacts with isotropic
Coulomb friction): torsional and rolling friction (``condim`` 4 and 6, as
distributed robot models set on their feet) -- dropped, with one warning that
names the contacts (``torsional_friction="warn"``, the default), silently
(``"ignore"``), or refused with a ``ValueError`` (``"error"``, the strict
mode); anisotropic sliding friction (``friction[0]
!= friction[1]``, explicit contact pairs only) -- refused; flex contacts --
refused; equality constraints and joint limits -- ignored (a warning for
active equality constraints).

Examples
--------
>>> import numpy as np
>>> xml = '''<mujoco><worldbody><geom type="plane" size="0 0 1"/>
...   <body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
... </worldbody></mujoco>'''
>>> problem = problem_from_mjcf(xml, [0, 0, 0.1, 1, 0, 0, 0], [0, 0, -1, 0, 0, 0])
>>> problem.m, problem.planar, problem.Jn @ problem.v
(1, False, array([-1.]))
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from reach.models.mujoco_model import (body_velocity, data_at, full_mass_matrix, load_model, raised_margins,
                                       urdf_model)
from reach.models.spatial import coincident_groups, contact_plane, tangent_basis
from reach.problem.impact import ImpactProblem

try:
    import mujoco
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("reach.models.mujoco needs MuJoCo: pip install 'reach[mujoco]' "
                      "(the numpy-only mujoco-core wheel)") from exc

__all__ = [
    "MujocoContact",
    "MujocoImpact",
    "contact_geoms",
    "body_velocity",
    "full_mass_matrix",
    "impact_from_mujoco",
    "load_model",
    "problem_from_mjcf",
    "problem_from_mujoco",
    "problem_from_urdf",
    "urdf_model",
]


@dataclass(frozen=True)
class MujocoContact:
    """One contact of an impact problem, as MuJoCo reported it.

    Attributes
    ----------
    name : str
        ``"<geom0>|<geom1>"`` (geom names, or ``geom<id>``), with ``:<k>``
        appended when a geom pair has several contacts.
    geom, body : (int, int)
        Geom and body ids; the normal points from ``geom[0]`` to ``geom[1]``.
    position : ndarray, shape (3,)
        Contact point (world frame).
    normal : ndarray, shape (3,)
    tangents : ndarray, shape (d, 3)
        The tangent directions of ``Jt``'s rows: MuJoCo's frame tangents
        (spatial, d = 2) or the in-plane tangent (planar, d = 1).
    distance : float
        Signed distance (negative: penetrating).
    mu : float
    condim : int
    merged : tuple of int
        Indices into ``data.contact`` merged into this contact.
    jacobian : ndarray, shape (3, nv)
        World-frame relative velocity Jacobian of the contact point.
    """

    name: str
    geom: tuple
    body: tuple
    position: np.ndarray
    normal: np.ndarray
    tangents: np.ndarray
    distance: float
    mu: float
    condim: int
    merged: tuple
    jacobian: np.ndarray


@dataclass(frozen=True)
class MujocoImpact:
    """An :class:`~reach.ImpactProblem` read from MuJoCo, with its contacts.

    Attributes
    ----------
    problem : ImpactProblem
        In MuJoCo ``qvel`` coordinates (see the module docstring).
    contacts : tuple of MujocoContact
        In the problem's contact order.
    plane_normal : ndarray (3,) or None
        ``e`` of a planar problem (tangent ``t = e x n``), None if spatial.
    qpos, qvel : ndarray
        The state the problem was read at.
    """

    problem: ImpactProblem
    contacts: tuple
    plane_normal: np.ndarray | None
    qpos: np.ndarray
    qvel: np.ndarray

    def contact_frame_velocities(self, V):
        """Per contact [normal, tangent(s)] velocity of ``V`` (..., nv): shape (..., m, 1 + d).

        Convention-free: the same numbers whatever joint coordinates produced ``V``.
        """
        return self.problem.contact_velocities(V)

    def world_contact_velocities(self, V):
        """Relative velocity of each contact point in the world frame: shape (..., m, 3)."""
        V = np.asarray(V, dtype=float)
        J = np.stack([c.jacobian for c in self.contacts])  # (m, 3, nv)
        return np.einsum("mij,...j->...mi", J, V)


def _name(model, obj, index, fallback):
    name = mujoco.mj_id2name(model, obj, index)
    return name if name else f"{fallback}{index}"


def contact_geoms(contact):
    """The two geom ids of a MuJoCo contact (``contact.geom`` from MuJoCo 3.1, ``geom1``/``geom2`` before)."""
    geom = getattr(contact, "geom", None)
    if geom is not None:
        return int(geom[0]), int(geom[1])
    return int(contact.geom1), int(contact.geom2)  # MuJoCo < 3.1


#: What :func:`impact_from_mujoco` does with torsional and rolling friction (condim 4 and 6).
TORSIONAL_FRICTION = ("warn", "ignore", "error")


def _contact_mu(index, contact, geoms_text, torsional_friction):
    condim = int(contact.dim)
    friction = np.asarray(contact.friction, dtype=float)
    if condim == 1:
        return 0.0
    if condim in (4, 6):
        what = "torsional" if condim == 4 else "torsional and rolling"
        if torsional_friction == "error":
            raise ValueError(
                f"contact {index} ({geoms_text}) has condim {condim}: {what} friction is not represented "
                "by the impact model (point contacts with Coulomb sliding friction). Set condim=3 on the "
                "geoms, or pass `torsional_friction='warn'` (or 'ignore') to drop it.")
    elif condim != 3:
        raise ValueError(f"contact {index} ({geoms_text}) has unsupported condim {condim}.")
    if abs(friction[0] - friction[1]) > 1e-12 * max(abs(friction[0]), abs(friction[1]), 1e-300):
        raise ValueError(
            f"contact {index} ({geoms_text}) has anisotropic friction {friction[:2].tolist()}; the impact "
            "model needs isotropic sliding friction (friction[0] == friction[1]).")
    return float(friction[0])


def _read_contacts(model, data, dist_tol, torsional_friction):
    """Every contact within ``dist_tol`` (with margins raised meanwhile) as a dict, and the mass matrix."""
    with raised_margins(model, 2.0 * dist_tol + 1e-12):
        mujoco.mj_forward(model, data)
        raw = []
        for index in range(data.ncon):
            c = data.contact[index]
            if c.dist > dist_tol or c.exclude >= 2:
                continue
            g0, g1 = contact_geoms(c)
            if g0 < 0 or g1 < 0:
                raise ValueError(f"contact {index} involves a flex; flex contacts are not supported.")
            names = tuple(_name(model, mujoco.mjtObj.mjOBJ_GEOM, g, "geom") for g in (g0, g1))
            mu = _contact_mu(index, c, "|".join(names), torsional_friction)
            b0, b1 = int(model.geom_bodyid[g0]), int(model.geom_bodyid[g1])
            point = np.array(c.pos, dtype=float)
            jacobian = np.zeros((3, model.nv))
            for body, sign in ((b1, 1.0), (b0, -1.0)):
                if body == 0:
                    continue
                jacp = np.zeros((3, model.nv))
                mujoco.mj_jac(model, data, jacp, None, point, body)
                jacobian += sign * jacp
            frame = np.array(c.frame, dtype=float).reshape(3, 3)
            raw.append(dict(index=index, geom=(g0, g1), body=(b0, b1), names=names, point=point,
                            frame=frame, dist=float(c.dist), mu=mu, condim=int(c.dim), jacobian=jacobian))
        M = full_mass_matrix(model, data)
    mujoco.mj_forward(model, data)  # leave data as the unmodified model computes it
    if not raw:
        raise ValueError(f"no contact within `dist_tol` = {dist_tol:g} m at this state "
                         f"(MuJoCo found {data.ncon} contacts with the model's own margins).")
    dropped = [f"{r['names'][0]}|{r['names'][1]} (condim {r['condim']})" for r in raw if r["condim"] in (4, 6)]
    if dropped and torsional_friction == "warn":
        warnings.warn(f"{len(dropped)} contact{'s' if len(dropped) > 1 else ''} with torsional or rolling "
                      f"friction: {', '.join(dropped)}; only their sliding friction enters the impact problem "
                      "(torsional_friction='error' refuses such models, 'ignore' drops it silently).",
                      stacklevel=3)
    if model.neq and np.any(data.eq_active if hasattr(data, "eq_active") else model.eq_active0):
        warnings.warn("the model has active equality constraints; they are not part of the impact problem.",
                      stacklevel=3)
    return raw, M


def _merge_coincident(raw):
    """One contact per group of coincident ones (same Jacobian and normal), keeping the first's friction."""
    kept = []
    for group in coincident_groups([r["jacobian"] for r in raw], [r["frame"][0] for r in raw]):
        first = raw[group[0]]
        mus = {raw[i]["mu"] for i in group}
        if len(mus) > 1:
            warnings.warn(f"coincident contacts {[raw[i]['index'] for i in group]} have different friction "
                          f"{sorted(mus)}; using the first's.", stacklevel=3)
        kept.append(dict(first, merged=tuple(raw[i]["index"] for i in group)))
    return kept


def _contact_rows(kept, plane):
    """Normal and tangential Jacobian rows and :class:`MujocoContact` records, named by geom pair."""
    rows_n, rows_t, contacts = [], [], []
    pair_counts = {}
    for r in kept:
        pair_counts[r["names"]] = pair_counts.get(r["names"], 0) + 1
    pair_seen = {}
    for r in kept:
        n = r["frame"][0]
        tangents = tangent_basis(n, plane) if plane is not None else r["frame"][1:3]
        rows_n.append(n @ r["jacobian"])
        rows_t.extend(tangents @ r["jacobian"])
        base = "|".join(r["names"])
        if pair_counts[r["names"]] > 1:
            k = pair_seen.get(r["names"], 0)
            pair_seen[r["names"]] = k + 1
            base = f"{base}:{k}"
        jac = r["jacobian"].copy()
        jac.setflags(write=False)
        contacts.append(MujocoContact(name=base, geom=r["geom"], body=r["body"], position=r["point"],
                                      normal=n.copy(), tangents=tangents.copy(), distance=r["dist"],
                                      mu=r["mu"], condim=r["condim"], merged=r["merged"], jacobian=jac))
    return rows_n, rows_t, contacts


def impact_from_mujoco(model, data, *, dist_tol=1e-6, planar=None, friction_directions=8,
                       torsional_friction="warn"):
    """Read the impact problem at ``data``'s state; see the module docstring.

    Parameters
    ----------
    model : mujoco.MjModel
        Margins are raised temporarily while the contacts are read, then restored.
    data : mujoco.MjData
        ``qpos`` at touchdown, ``qvel`` pre-impact.  ``mj_forward`` is run.
    dist_tol : float
        Contacts with signed distance ``<= dist_tol`` (m) take part.
    planar : bool or None
        Force a planar (True) or spatial (False) problem; None detects it.
    friction_directions : int
        Friction directions per contact of a spatial problem (>= 4).
    torsional_friction : {"warn", "ignore", "error"}
        What to do with condim 4/6 contacts: drop their torsional and rolling
        friction with one warning (default) or silently, or refuse the model.

    Returns
    -------
    MujocoImpact
    """
    dist_tol = float(dist_tol)
    if not np.isfinite(dist_tol) or dist_tol < 0:
        raise ValueError(f"`dist_tol` must be a finite number >= 0; got {dist_tol!r}.")
    if planar not in (None, True, False):
        raise ValueError(f"`planar` must be None, True or False; got {planar!r}.")
    if torsional_friction not in TORSIONAL_FRICTION:
        raise ValueError(f"`torsional_friction` must be one of {TORSIONAL_FRICTION}; got {torsional_friction!r}.")
    if model.nv == 0:
        raise ValueError("`model` has no degrees of freedom.")

    raw, M = _read_contacts(model, data, dist_tol, torsional_friction)
    kept = _merge_coincident(raw)
    normals = [r["frame"][0] for r in kept]
    jacobians = [r["jacobian"] for r in kept]
    plane = None if planar is False else contact_plane(jacobians, normals)
    if planar is True and plane is None:
        raise ValueError("`planar=True` but the contact-point velocities do not lie in one plane containing "
                         "the contact normals; use planar=None or False.")
    rows_n, rows_t, contacts = _contact_rows(kept, plane)
    problem = ImpactProblem(M, np.array(rows_n), np.array(rows_t), [c.mu for c in contacts],
                            np.array(data.qvel, dtype=float),
                            friction_directions=None if plane is not None else friction_directions,
                            contact_names=[c.name for c in contacts])
    return MujocoImpact(problem, tuple(contacts), plane, np.array(data.qpos, dtype=float),
                        np.array(data.qvel, dtype=float))


def problem_from_mjcf(path_or_xml, qpos, qvel, **options):
    """:func:`problem_from_mujoco` for an MJCF file or string at ``qpos``, ``qvel``."""
    model = load_model(path_or_xml)
    return problem_from_mujoco(model, data_at(model, qpos, qvel), **options)


def problem_from_urdf(path_or_xml, qpos, qvel, *, floating_base=True, floor_height=0.0,
                      floor_friction=1.0, **options):
    """:func:`problem_from_mujoco` for a URDF (see :func:`urdf_model`) at ``qpos``, ``qvel``.

    With ``floating_base`` the free joint's 7 ``qpos`` (position, unit
    quaternion w-x-y-z) and 6 ``qvel`` come first.
    """
    model = urdf_model(path_or_xml, floating_base=floating_base, floor_height=floor_height,
                       floor_friction=floor_friction)
    return problem_from_mujoco(model, data_at(model, qpos, qvel), **options)


# ---------------------------------------------------------------------- mass matrix
def problem_from_mujoco(model, data, *, dist_tol=1e-6, planar=None, friction_directions=8,
                        torsional_friction="warn"):
    """The :class:`~reach.ImpactProblem` at ``data``'s state (see :func:`impact_from_mujoco`)."""
    return impact_from_mujoco(model, data, dist_tol=dist_tol, planar=planar,
                              friction_directions=friction_directions,
                              torsional_friction=torsional_friction).problem
