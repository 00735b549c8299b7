"""Drake plants for the impact adapter: loading models, and the SDFormat files the project writes itself.

* :func:`load_plant` parses an SDFormat or URDF file (or string) into a
  ``MultibodyPlant`` connected to a ``SceneGraph`` (the adapter needs its
  geometry queries), and returns a :class:`DrakePlant`.
* :func:`block_sdf` is the project's rocking block in SDFormat, planar or 3-D,
  touching down through small spheres at its bottom corners, as
  :func:`reach.models.mujoco_model.block_mjcf` writes it for MuJoCo.
* :func:`sdf_from_mujoco` writes the SDFormat of a MuJoCo model built from
  free, hinge and slide joints (the quadruped of ``examples/``), with the
  masses and inertias MuJoCo compiled, its colliding spheres, boxes and planes,
  and joint armature as Drake rotor inertia; :func:`state_from_mujoco` maps a
  MuJoCo ``qpos, qvel`` to the plant's state.

Drake reports **one contact point per pair of geometries**: model a foot or a
box corner that should be its own contact as its own small sphere (as the
writers here do).  Drake's floating joints take the angular velocity in the
*world* frame, followed by the body origin's world-frame velocity; MuJoCo's
free joints take the linear velocity first and the angular one in the body
frame.  Velocity-coordinate conventions do not change the impact: compare
problems through their contact velocities and Delassus matrices.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reach.models.block import RigidBlock

try:
    from pydrake.geometry import SceneGraph  # noqa: F401 (checks the extra is there)
    from pydrake.math import RigidTransform
    from pydrake.multibody.math import SpatialVelocity
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("reach.models.drake needs Drake: pip install 'reach[drake]'") from exc

__all__ = ["DrakePlant", "load_plant", "block_sdf", "sdf_from_mujoco", "state_from_mujoco"]


@dataclass(frozen=True)
class DrakePlant:
    """A finalized ``MultibodyPlant`` with its ``SceneGraph`` in a built diagram.

    Attributes
    ----------
    diagram, plant, scene_graph
        The pydrake objects.
    source : str
        ``"sdf"`` or ``"urdf"``.
    """

    diagram: object
    plant: object
    scene_graph: object
    source: str

    def context(self, q=None, v=None):
        """A new diagram context; returns the plant's (sub)context, at ``q``, ``v`` when given."""
        root = self.diagram.CreateDefaultContext()
        context = self.plant.GetMyMutableContextFromRoot(root)
        if q is not None:
            self.plant.SetPositions(context, np.asarray(q, dtype=float))
        if v is not None:
            self.plant.SetVelocities(context, np.asarray(v, dtype=float))
        return context


def _file_type(source, file_type):
    if file_type is not None:
        if file_type not in ("sdf", "urdf"):
            raise ValueError(f"`file_type` must be 'sdf' or 'urdf'; got {file_type!r}.")
        return file_type
    text = str(source)
    if text.lstrip().startswith("<"):
        return "urdf" if "<robot" in text[:2000] else "sdf"
    suffix = Path(text).suffix.lower()
    if suffix not in (".sdf", ".urdf"):
        raise ValueError(f"cannot tell the format of {text!r}: give a .sdf or .urdf file, or `file_type`.")
    return suffix[1:]


def load_plant(source, *, time_step=0.0, file_type=None, configure=None):
    """Parse an SDFormat/URDF file or string into a finalized plant with a SceneGraph.

    Parameters
    ----------
    source : str or path-like
        A file path, or the model's text (starting with ``<``).
    time_step : float
        The plant's discrete time step (0: continuous).  The impact adapter
        does not use it; simulations (:mod:`reach.analysis.compare.drake`) do.
    file_type : {"sdf", "urdf"}, optional
        Needed only for text that is neither recognisably URDF nor SDFormat.
    configure : callable, optional
        ``configure(plant)`` before ``Finalize`` (e.g. the discrete contact approximation).

    Returns
    -------
    DrakePlant
    """
    kind = _file_type(source, file_type)
    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, float(time_step))
    parser = Parser(plant)
    text = str(source)
    try:
        if text.lstrip().startswith("<"):
            parser.AddModelsFromString(text, kind)
        else:
            if not Path(text).is_file():
                raise ValueError(f"no model file {text!r}.")
            parser.AddModels(text)
    except RuntimeError as exc:
        raise ValueError(f"Drake could not parse the model: {exc}") from exc
    if configure is not None:
        configure(plant)
    plant.Finalize()
    return DrakePlant(builder.Build(), plant, scene_graph, kind)


def _pose(position=(0.0, 0.0, 0.0), quaternion=None):
    """An SDFormat ``<pose>``: position and extrinsic roll-pitch-yaw from a w-x-y-z quaternion."""
    rpy = (0.0, 0.0, 0.0)
    if quaternion is not None:
        from scipy.spatial.transform import Rotation

        w, x, y, z = (float(c) for c in quaternion)
        rpy = Rotation.from_quat([x, y, z, w]).as_euler("xyz")
    return "<pose>" + " ".join(f"{c:.17g}" for c in (*position, *rpy)) + "</pose>"


def _inertial(mass, principal, position=(0.0, 0.0, 0.0), quaternion=None):
    ixx, iyy, izz = (float(c) for c in principal)
    return (f"<inertial>{_pose(position, quaternion)}<mass>{float(mass):.17g}</mass><inertia>"
            f"<ixx>{ixx:.17g}</ixx><iyy>{iyy:.17g}</iyy><izz>{izz:.17g}</izz>"
            "<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>")


def _friction(mu):
    return (f"<surface><friction><ode><mu>{float(mu):.17g}</mu><mu2>{float(mu):.17g}</mu2></ode></friction>"
            "</surface>")


def _proximity(props, size):
    """``<drake:proximity_properties>`` from a dict (``hydroelastic_modulus`` makes the geometry compliant)."""
    if not props:
        return ""
    props = dict(props)
    known = {"point_contact_stiffness", "relaxation_time", "hunt_crossley_dissipation", "hydroelastic_modulus",
             "mesh_resolution_hint"}
    unknown = sorted(set(props) - known)
    if unknown:
        raise ValueError(f"unknown Drake proximity properties {unknown}; known: {sorted(known)}.")
    body = ""
    if "hydroelastic_modulus" in props:
        props.setdefault("mesh_resolution_hint", 0.5 * size)
        body += "<drake:compliant_hydroelastic/>"
    body += "".join(f"<drake:{key}>{float(value):.17g}</drake:{key}>" for key, value in props.items())
    return f"<drake:proximity_properties>{body}</drake:proximity_properties>"


def _sphere(name, radius, position, mu, props=None):
    return (f'<collision name="{name}">{_pose(position)}<geometry><sphere><radius>{float(radius):.17g}</radius>'
            f"</sphere></geometry>{_friction(mu)}{_proximity(props, radius)}</collision>")


_DRAKE = "http://drake.mit.edu"
# A thick box, top face z = 0: Drake measures box-box and sphere-box distances, but not box-half-space.
_FLOOR = ('<link name="floor"><collision name="floor"><pose>0 0 -0.5 0 0 0</pose><geometry><box>'
          '<size>100 100 1</size></box></geometry>{friction}'
          '<drake:proximity_properties><drake:rigid_hydroelastic/></drake:proximity_properties></collision></link>'
          '<joint name="floor_weld" type="fixed"><parent>world</parent><child>floor</child></joint>')


def block_sdf(block=None, *, spatial=False, depth=None, foot_radius=1e-3, proximity=None):
    """The project's rocking block in SDFormat at touchdown (see :func:`reach.models.mujoco_model.block_mjcf`).

    ``block`` is a :class:`~reach.models.block.RigidBlock` (default: the paper's).

    The block touches a floor plane z = 0 through spheres of ``foot_radius`` whose
    bottoms are exactly its bottom corners (A, B planar; A-D spatial), the box
    itself not colliding.  Planar: links on prismatic x, prismatic z and a hinge
    about ``-y`` (so ``theta`` turns counter-clockwise in the x-z picture, the
    planar modeller's convention); spatial: a free body (Drake's floating joint).
    ``proximity`` gives Drake proximity properties per foot (a list of dicts:
    ``point_contact_stiffness``, ``relaxation_time``, ``hydroelastic_modulus``, ...).

    Returns
    -------
    sdf : str
    q, v : ndarray
        Touchdown (bottom face on the floor), falling at ``sqrt(2 g drop_height)``, in
        the plant's coordinates: planar ``[x, z, theta]``; spatial Drake's
        ``[qw, qx, qy, qz, x, y, z]`` and ``[w_W, v_W]``.
    """
    block = RigidBlock() if block is None else block
    width, height, mass, mu = block.width, block.height, block.mass, block.mu
    depth = (width if spatial else 0.5 * width) if depth is None else depth
    v0 = block.drop_speed
    inertia = (mass * (depth**2 + height**2) / 12.0, mass * (width**2 + height**2) / 12.0,
               mass * (width**2 + depth**2) / 12.0)
    ys = (-0.5 * depth, 0.5 * depth) if spatial else (0.0,)
    labels = "ABCD" if spatial else "AB"
    corners = [(x, y) for y in ys for x in (-0.5 * width, 0.5 * width)]
    proximity = [None] * len(corners) if proximity is None else list(proximity)
    if len(proximity) != len(corners):
        raise ValueError(f"`proximity` needs one dict per foot ({len(corners)}); got {len(proximity)}.")
    feet = "".join(_sphere(f"foot{label}", foot_radius, (x, y, -0.5 * height + foot_radius), mu, props)
                   for label, (x, y), props in zip(labels, corners, proximity))
    link = f'<link name="block"><pose>0 0 {0.5 * height:.17g} 0 0 0</pose>{_inertial(mass, inertia)}{feet}</link>'
    if spatial:
        joints = ""
        q = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5 * height])
        v = np.array([0.0, 0.0, 0.0, 0.0, 0.0, -v0])
    else:
        massless = _inertial(0.0, (0.0, 0.0, 0.0))
        joints = (f'<link name="slider_x">{massless}</link><link name="slider_z">{massless}</link>'
                  '<joint name="x" type="prismatic"><parent>world</parent><child>slider_x</child>'
                  '<axis><xyz>1 0 0</xyz></axis></joint>'
                  '<joint name="z" type="prismatic"><parent>slider_x</parent><child>slider_z</child>'
                  '<axis><xyz>0 0 1</xyz></axis></joint>'
                  '<joint name="theta" type="revolute"><parent>slider_z</parent><child>block</child>'
                  '<axis><xyz>0 -1 0</xyz></axis></joint>')
        link = link.replace(f"<pose>0 0 {0.5 * height:.17g} 0 0 0</pose>", "", 1)
        q = np.array([0.0, 0.5 * height, 0.0])
        v = np.array([0.0, -v0, 0.0])
    sdf = (f'<?xml version="1.0"?><sdf version="1.9" xmlns:drake="{_DRAKE}"><model name="rocking_block">'
           f'{link}{joints}'
           f'{_FLOOR.format(friction=_friction(mu))}</model></sdf>')
    return sdf, q, v


def _mujoco_collisions(mj, mujoco, body, proximity):
    """SDFormat collisions of one MuJoCo body's colliding geoms (spheres and boxes)."""
    out = []
    for g in range(mj.ngeom):
        if mj.geom_bodyid[g] != body or (mj.geom_contype[g] == 0 and mj.geom_conaffinity[g] == 0):
            continue
        name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom{g}"
        kind, size, mu = int(mj.geom_type[g]), mj.geom_size[g], float(mj.geom_friction[g][0])
        if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
            shape = f"<sphere><radius>{size[0]:.17g}</radius></sphere>"
        elif kind == mujoco.mjtGeom.mjGEOM_BOX:
            shape = f"<box><size>{2 * size[0]:.17g} {2 * size[1]:.17g} {2 * size[2]:.17g}</size></box>"
        else:
            raise ValueError(f"geom {name!r}: only colliding spheres and boxes on moving bodies are written "
                             "(and planes on the world body).")
        props = _proximity(proximity.get(name), float(np.min(size[:1 if kind == mujoco.mjtGeom.mjGEOM_SPHERE else 3])))
        out.append(f'<collision name="{name}">{_pose(mj.geom_pos[g], mj.geom_quat[g])}<geometry>{shape}'
                   f"</geometry>{_friction(mu)}{props}</collision>")
    return "".join(out)


def _mujoco_floor(mj, mujoco):
    planes = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == 0 and mj.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE]
    if len(planes) != 1 or np.any(mj.geom_pos[planes[0]] != 0) or np.any(mj.geom_quat[planes[0]] != (1, 0, 0, 0)):
        raise ValueError("sdf_from_mujoco writes models with exactly one world plane, the floor z = 0.")
    return _FLOOR.format(friction=_friction(float(mj.geom_friction[planes[0]][0])))


def _mujoco_joint(mj, mujoco, body, parent):
    """The SDFormat joint of a MuJoCo body (none for a free root: Drake floats it)."""
    joints = [j for j in range(mj.njnt) if mj.jnt_bodyid[j] == body]
    if not joints:
        return f'<joint name="{parent}_to_{body}" type="fixed"><parent>{parent}</parent><child>b{body}</child></joint>'
    if len(joints) > 1:
        raise ValueError(f"body {body}: several joints on one body are not written; use one per body.")
    j = joints[0]
    kind = int(mj.jnt_type[j])
    if kind == mujoco.mjtJoint.mjJNT_FREE:
        if parent != "world":
            raise ValueError("a free joint is written only on a root body.")
        return ""
    types = {int(mujoco.mjtJoint.mjJNT_HINGE): "revolute", int(mujoco.mjtJoint.mjJNT_SLIDE): "prismatic"}
    if kind not in types:
        raise ValueError(f"joint {j}: only free, hinge and slide joints are written.")
    name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint{j}"
    armature = float(mj.dof_armature[mj.jnt_dofadr[j]])
    # Drake adds reflected rotor inertia through an actuator, which a joint gets from a positive effort limit
    rotor = (f"<drake:rotor_inertia>{armature:.17g}</drake:rotor_inertia><drake:gear_ratio>1</drake:gear_ratio>"
             if armature > 0 else "")
    axis = " ".join(f"{c:.17g}" for c in mj.jnt_axis[j])
    return (f'<joint name="{name}" type="{types[kind]}">{_pose(mj.jnt_pos[j])}<parent>{parent}</parent>'
            f"<child>b{body}</child><axis><xyz>{axis}</xyz><limit><effort>1e6</effort></limit></axis>{rotor}</joint>")


def _named_proximity(mj, mujoco, proximity):
    """``proximity`` as a dict of geom name -> properties (a list follows the colliding geoms of moving bodies)."""
    if proximity is None:
        return {}
    if isinstance(proximity, dict):
        return proximity
    names = [mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom{g}" for g in range(mj.ngeom)
             if mj.geom_bodyid[g] != 0 and (mj.geom_contype[g] or mj.geom_conaffinity[g])]
    proximity = list(proximity)
    if len(proximity) != len(names):
        raise ValueError(f"`proximity` lists {len(proximity)} geoms; the model has {len(names)} colliding ones {names}.")
    return dict(zip(names, proximity))


def sdf_from_mujoco(mj_model, proximity=None):
    """The SDFormat of a MuJoCo model of free/hinge/slide joints, spheres and boxes on a floor plane.

    Links are named ``b<body id>`` and posed as MuJoCo places them at ``qpos0``;
    inertials are MuJoCo's compiled masses, centres and principal inertias;
    joints keep their MuJoCo names, with armature as ``drake:rotor_inertia``
    (gear ratio 1, so Drake adds it to the mass matrix as MuJoCo does);
    geoms that collide become collisions (spheres, boxes), the world plane the
    floor.  ``proximity`` maps geom names to Drake proximity properties (dicts,
    as :func:`block_sdf` takes), or is a list in the order of the colliding geoms
    of moving bodies.  Anything else raises a ValueError naming it.
    """
    import mujoco

    mj = mj_model
    proximity = _named_proximity(mj, mujoco, proximity)
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    parts = []
    for body in range(1, mj.nbody):
        parent = int(mj.body_parentid[body])
        inertial = _inertial(mj.body_mass[body], mj.body_inertia[body], mj.body_ipos[body], mj.body_iquat[body])
        pose = _pose(data.xpos[body], data.xquat[body])
        parts.append(f'<link name="b{body}">{pose}{inertial}{_mujoco_collisions(mj, mujoco, body, proximity)}</link>')
        parts.append(_mujoco_joint(mj, mujoco, body, "world" if parent == 0 else f"b{parent}"))
    name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_MODEL, 0) or "model"
    return (f'<?xml version="1.0"?><sdf version="1.9" xmlns:drake="{_DRAKE}"><model name="{name}">'
            f'{"".join(parts)}{_mujoco_floor(mj, mujoco)}</model></sdf>')


def state_from_mujoco(system, mj_model, qpos, qvel, context=None):
    """The plant context at a MuJoCo state of a model written by :func:`sdf_from_mujoco`.

    Hinge and slide joints are matched by name; a free root body gets its pose
    and its spatial velocity (MuJoCo's body-frame angular velocity rotated to the
    world frame).
    """
    import mujoco

    mj, plant = mj_model, system.plant
    context = system.context() if context is None else context
    qpos, qvel = np.asarray(qpos, dtype=float), np.asarray(qvel, dtype=float)
    for j in range(mj.njnt):
        a, d, kind = mj.jnt_qposadr[j], mj.jnt_dofadr[j], int(mj.jnt_type[j])
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            from pydrake.common.eigen_geometry import Quaternion

            body = plant.GetBodyByName(f"b{mj.jnt_bodyid[j]}")
            w, x, y, z = qpos[a + 3:a + 7] / np.linalg.norm(qpos[a + 3:a + 7])
            pose = RigidTransform(Quaternion(w, x, y, z), qpos[a:a + 3])
            plant.SetFreeBodyPose(context, body, pose)
            omega_world = pose.rotation().matrix() @ qvel[d + 3:d + 6]
            plant.SetFreeBodySpatialVelocity(context, body, SpatialVelocity(omega_world, qvel[d:d + 3]))
        else:
            joint = plant.GetJointByName(mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, j))
            plant.SetPositions(context, _with(plant.GetPositions(context), joint.position_start(), qpos[a]))
            plant.SetVelocities(context, _with(plant.GetVelocities(context), joint.velocity_start(), qvel[d]))
    return context


def _with(vector, index, value):
    out = np.array(vector, dtype=float)
    out[index] = value
    return out
