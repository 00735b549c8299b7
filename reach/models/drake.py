"""Impact problems from Drake: a ``MultibodyPlant`` and its ``Context`` at touchdown -> :class:`~reach.ImpactProblem`.

:func:`impact_from_drake` reads, with exactly the conventions of
:mod:`reach.models.mujoco`:

``M``
    ``plant.CalcMassMatrix`` (reflected rotor inertia included);
``Jn``, ``Jt``
    for every pair of geometries whose signed distance is ``<= dist_tol``
    (SceneGraph's ``ComputeSignedDistancePairwiseClosestPoints``): the contact
    point ``C`` midway between the two witness points, the Jacobian of the
    velocity of ``C`` fixed on geometry A's body *relative to* ``C`` fixed on
    geometry B's body (``CalcJacobianTranslationalVelocity``, both bodies), and
    Drake's normal ``nhat_BA_W``, which points from B to A: so ``n^T J_rel v``
    is **positive when the contact separates**, as :class:`~reach.ImpactProblem`
    expects.  Planar problems use the in-plane tangent ``t = e x n``
    (:func:`reach.models.spatial.tangent_basis`), spatial ones an orthonormal
    pair ``t1, t2 = n x t1``;
``mu``
    the pair's dynamic friction, combined from the two geometries'
    ``("material", "coulomb_friction")`` proximity properties by Drake's own
    rule (``CalcContactFrictionFromSurfaceProperties``);
``v``
    the plant's generalized velocities (Drake's coordinates: a floating body's
    angular velocity in the world frame, then its origin's velocity).

**Planar models** are detected as for MuJoCo: the relative contact-point
velocities of all contacts lie in one plane for every ``v`` and the normals lie
in it (:func:`reach.models.spatial.contact_plane`).  **Coincident contacts**
(same normal, same Jacobian) are merged, the first kept.

**One point per geometry pair.**  Drake's signed-distance query gives one
contact per pair of geometries, where MuJoCo's box-plane collider gives up to
four: model each contact that should be its own (a box corner, a foot) as its
own small sphere, as :func:`reach.models.drake_model.block_sdf` does.  Shape
pairs Drake cannot measure (e.g. a box against a half space) raise a
ValueError saying so.

Examples
--------
>>> from reach.models.drake_model import block_sdf, load_plant
>>> sdf, q, v = block_sdf()
>>> system = load_plant(sdf)
>>> problem = impact_from_drake(system.plant, system.context(q, v)).problem
>>> problem.m, problem.planar, (problem.Jn @ problem.v).round(4).tolist()
(2, True, [-0.4429, -0.4429])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reach.models.drake_model import DrakePlant, block_sdf, load_plant, sdf_from_mujoco, state_from_mujoco
from reach.models.spatial import coincident_groups, contact_plane, tangent_basis
from reach.problem.impact import ImpactProblem

try:
    from pydrake.multibody.plant import CalcContactFrictionFromSurfaceProperties
    from pydrake.multibody.tree import JacobianWrtVariable
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("reach.models.drake needs Drake: pip install 'reach[drake]'") from exc

__all__ = ["DrakeContact", "DrakeImpact", "impact_from_drake", "problem_from_drake", "problem_from_sdf",
           "DrakePlant", "load_plant", "block_sdf", "sdf_from_mujoco", "state_from_mujoco"]


@dataclass(frozen=True)
class DrakeContact:
    """One contact of an impact problem, as Drake's geometry query reported it.

    Attributes
    ----------
    name : str
        ``"<geometry A>|<geometry B>"`` (SceneGraph's names, without the model
        scope ``model::`` unless two contacts would share a name).
    bodies : (str, str)
        The bodies of A and B; the normal points from B to A.
    position : ndarray (3,)
        Contact point, world frame.
    normal : ndarray (3,)
    tangents : ndarray (d, 3)
    distance : float
        Signed distance (negative: penetrating).
    mu : float
    merged : tuple of int
        Indices of the geometry pairs merged into this contact.
    jacobian : ndarray (3, nv)
        World-frame Jacobian of the relative velocity of the contact point.
    """

    name: str
    bodies: tuple
    position: np.ndarray
    normal: np.ndarray
    tangents: np.ndarray
    distance: float
    mu: float
    merged: tuple
    jacobian: np.ndarray


@dataclass(frozen=True)
class DrakeImpact:
    """An :class:`~reach.ImpactProblem` read from Drake, with its contacts and the state it was read at."""

    problem: ImpactProblem
    contacts: tuple
    plane_normal: np.ndarray | None
    q: np.ndarray
    v: np.ndarray

    def contact_frame_velocities(self, V):
        """Per contact [normal, tangent(s)] velocity of ``V`` (..., nv): shape (..., m, 1 + d)."""
        return self.problem.contact_velocities(V)


def _query(plant, context):
    port = plant.get_geometry_query_input_port()
    if not port.HasValue(context):
        raise ValueError("the plant has no SceneGraph connected: build it with AddMultibodyPlantSceneGraph "
                         "(reach.models.drake.load_plant does) and pass the plant's context from that diagram.")
    return port.Eval(context)


def _friction(inspector, geometry):
    props = inspector.GetProximityProperties(geometry)
    if props is None or not props.HasProperty("material", "coulomb_friction"):
        raise ValueError(f"geometry {inspector.GetName(geometry)!r} has no ('material', 'coulomb_friction') "
                         "proximity property: give it a <surface><friction> (SDFormat) or <drake:mu_dynamic>.")
    return props.GetProperty("material", "coulomb_friction")


def _pairs(query, dist_tol):
    try:
        return query.ComputeSignedDistancePairwiseClosestPoints(max_distance=dist_tol)
    except RuntimeError as exc:
        raise ValueError(f"Drake cannot measure the distance of some geometry pair at this state ({exc}); model "
                         "contacts as spheres (box corners, feet) against planes or boxes.") from exc


def _relative_jacobian(plant, context, bodies, point):
    """3 x nv Jacobian of the velocity of ``point`` on ``bodies[0]`` relative to ``point`` on ``bodies[1]``."""
    world = plant.world_frame()
    J = np.zeros((3, plant.num_velocities()))
    for body, sign in zip(bodies, (1.0, -1.0)):
        if body.index() == plant.world_body().index():
            continue
        local = plant.EvalBodyPoseInWorld(context, body).inverse().multiply(point)
        J += sign * plant.CalcJacobianTranslationalVelocity(context, JacobianWrtVariable.kV, body.body_frame(),
                                                             local, world, world)
    return J


def _read_contacts(plant, context, dist_tol):
    query = _query(plant, context)
    inspector = query.inspector()
    raw = []
    for k, pair in enumerate(_pairs(query, dist_tol)):
        ids = (pair.id_A, pair.id_B)
        bodies = tuple(plant.GetBodyFromFrameId(inspector.GetFrameId(g)) for g in ids)
        witness = [query.GetPoseInWorld(g).multiply(p) for g, p in zip(ids, (pair.p_ACa, pair.p_BCb))]
        point = 0.5 * (witness[0] + witness[1])
        mu = CalcContactFrictionFromSurfaceProperties(*(_friction(inspector, g) for g in ids)).dynamic_friction()
        raw.append(dict(index=k, names="|".join(inspector.GetName(g) for g in ids),
                        bodies=tuple(b.name() for b in bodies), point=point,
                        normal=np.array(pair.nhat_BA_W, dtype=float), dist=float(pair.distance), mu=float(mu),
                        jacobian=_relative_jacobian(plant, context, bodies, point)))
    if not raw:
        raise ValueError(f"no pair of geometries within `dist_tol` = {dist_tol:g} m at this state.")
    short = ["|".join(part.rsplit("::", 1)[-1] for part in r["names"].split("|")) for r in raw]
    if len(set(short)) == len(short):  # drop the model scopes when the names stay unique
        for r, name in zip(raw, short):
            r["names"] = name
    return raw


def impact_from_drake(plant, context, *, dist_tol=1e-6, planar=None, friction_directions=8):
    """Read the impact problem at ``context``'s state; see the module docstring.

    Parameters
    ----------
    plant : pydrake.multibody.plant.MultibodyPlant
        Finalized, with a SceneGraph connected.
    context : pydrake.systems.framework.Context
        The plant's context: positions at touchdown, velocities pre-impact.
    dist_tol : float
        Geometry pairs with signed distance ``<= dist_tol`` (m) take part.
    planar : bool or None
        Force a planar (True) or spatial (False) problem; None detects it.
    friction_directions : int
        Friction directions per contact of a spatial problem (>= 4).

    Returns
    -------
    DrakeImpact
    """
    dist_tol = float(dist_tol)
    if not np.isfinite(dist_tol) or dist_tol < 0:
        raise ValueError(f"`dist_tol` must be a finite number >= 0; got {dist_tol!r}.")
    if planar not in (None, True, False):
        raise ValueError(f"`planar` must be None, True or False; got {planar!r}.")
    if not plant.is_finalized():
        raise ValueError("`plant` is not finalized: call plant.Finalize() first.")
    if plant.num_velocities() == 0:
        raise ValueError("`plant` has no degrees of freedom.")
    raw = _read_contacts(plant, context, dist_tol)
    groups = coincident_groups([r["jacobian"] for r in raw], [r["normal"] for r in raw])
    kept = [dict(raw[g[0]], merged=tuple(raw[i]["index"] for i in g)) for g in groups]
    plane = None if planar is False else contact_plane([r["jacobian"] for r in kept], [r["normal"] for r in kept])
    if planar is True and plane is None:
        raise ValueError("`planar=True` but the contact-point velocities do not lie in one plane containing "
                         "the contact normals; use planar=None or False.")
    contacts = []
    for r in kept:
        tangents = tangent_basis(r["normal"], plane)
        jac = r["jacobian"].copy()
        jac.setflags(write=False)
        contacts.append(DrakeContact(r["names"], r["bodies"], r["point"], r["normal"], tangents, r["dist"],
                                     r["mu"], r["merged"], jac))
    Jn = np.array([c.normal @ c.jacobian for c in contacts])
    Jt = np.vstack([c.tangents @ c.jacobian for c in contacts])
    q, v = np.array(plant.GetPositions(context)), np.array(plant.GetVelocities(context))
    problem = ImpactProblem(plant.CalcMassMatrix(context), Jn, Jt, [c.mu for c in contacts], v,
                            friction_directions=None if plane is not None else friction_directions,
                            contact_names=[c.name for c in contacts])
    return DrakeImpact(problem, tuple(contacts), plane, q, v)


def problem_from_drake(plant, context, **options):
    """The :class:`~reach.ImpactProblem` at ``context``'s state (see :func:`impact_from_drake`)."""
    return impact_from_drake(plant, context, **options).problem


def problem_from_sdf(source, q, v, **options):
    """:func:`problem_from_drake` for an SDFormat or URDF file or string, at positions ``q`` and velocities ``v``."""
    system = load_plant(source)
    return problem_from_drake(system.plant, system.context(q, v), **options)
