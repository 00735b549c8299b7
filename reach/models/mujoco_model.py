"""MuJoCo models and states: loading MJCF or URDF, a state's data, the mass matrix, contact margins.

The building blocks of :mod:`reach.models.mujoco` (which reads impact problems
from them) and of :mod:`reach.analysis.compare.mujoco` (which simulates them).
:func:`block_mjcf` writes the rocking block as an MJCF model, planar or 3-D.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from reach.models.block import RigidBlock

try:
    import mujoco
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("reach.models.mujoco_model needs MuJoCo: pip install 'reach[mujoco]' "
                      "(the numpy-only mujoco-core wheel)") from exc

__all__ = ["load_model", "urdf_model", "data_at", "full_mass_matrix", "body_velocity", "raised_margins",
           "block_mjcf"]


def _is_xml_text(path_or_xml):
    return isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<")


def _is_urdf(path_or_xml):
    if _is_xml_text(path_or_xml):
        text = path_or_xml.lstrip()
        # skip an XML declaration and comments
        while text.startswith("<?") or text.startswith("<!--"):
            end = text.find("?>") + 2 if text.startswith("<?") else text.find("-->") + 3
            text = text[end:].lstrip()
        return text.startswith("<robot")
    return str(path_or_xml).lower().endswith(".urdf")


def load_model(path_or_xml):
    """An ``MjModel`` from an MJCF file path or XML string (URDF: see :func:`urdf_model`)."""
    if _is_urdf(path_or_xml):
        return urdf_model(path_or_xml)
    if _is_xml_text(path_or_xml):
        return mujoco.MjModel.from_xml_string(path_or_xml)
    path = Path(os.fspath(path_or_xml))
    if not path.exists():
        raise ValueError(f"`path_or_xml` {str(path)!r} is neither an existing file nor XML text.")
    return mujoco.MjModel.from_xml_path(str(path))


def urdf_model(path_or_xml, *, floating_base=True, floor_height=0.0, floor_friction=1.0):
    """Load a URDF through ``MjSpec``, give its root links a free joint and add a floor.

    Parameters
    ----------
    path_or_xml : str or path
        URDF file or text.  Meshes are resolved by MuJoCo relative to the
        file (``package://`` URIs are not resolved).
    floating_base : bool
        Give every root link (a child of the world without a joint) a free
        joint; MuJoCo's URDF import otherwise welds it to the world.
    floor_height : float or None
        Height of a plane geom ``floor`` (normal +z) added to the world; None
        for no floor.
    floor_friction : float
        Its sliding friction.

    Returns
    -------
    mujoco.MjModel
    """
    if _is_xml_text(path_or_xml):
        spec = mujoco.MjSpec.from_string(path_or_xml)
    else:
        path = Path(os.fspath(path_or_xml))
        if not path.exists():
            raise ValueError(f"`path_or_xml` {str(path)!r} is neither an existing file nor URDF text.")
        spec = mujoco.MjSpec.from_file(str(path))
    if floating_base:
        spec.compiler.fusestatic = False  # keep the root link a body of its own
        for body in spec.worldbody.bodies:
            if len(body.joints) == 0:
                body.add_freejoint()
    if floor_height is not None:
        spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 1.0],
                                pos=[0.0, 0.0, float(floor_height)],
                                friction=[float(floor_friction), 0.005, 0.0001])
    return spec.compile()


def data_at(model, qpos, qvel):
    """A fresh ``MjData`` of ``model`` at (qpos, qvel), forward-computed; shapes are checked."""
    qpos = np.asarray(qpos, dtype=float).ravel()
    qvel = np.asarray(qvel, dtype=float).ravel()
    if qpos.shape != (model.nq,):
        raise ValueError(f"`qpos` must have nq = {model.nq} entries; got {qpos.shape[0]}.")
    if qvel.shape != (model.nv,):
        raise ValueError(f"`qvel` must have nv = {model.nv} entries; got {qvel.shape[0]}.")
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    data.qvel[:] = qvel
    return data


def full_mass_matrix(model, data):
    """Dense joint-space inertia ``M`` (nv, nv) at ``data``'s state (``mj_forward`` done).

    ``mj_fullM`` takes ``(m, dst, qM)`` up to MuJoCo 3.9 and ``(m, d, dst)``
    from 3.10 on, when ``MjData.qM`` also began to go (gone in 3.11).  Both
    are tried; if neither works, ``M`` is assembled column by column with
    ``mj_mulM``, whose signature has not changed.
    """
    nv = model.nv
    M = np.zeros((nv, nv))
    try:
        mujoco.mj_fullM(model, data, M)  # MuJoCo >= 3.10
    except TypeError:
        try:
            mujoco.mj_fullM(model, M, data.qM)  # MuJoCo < 3.10
        except (TypeError, AttributeError):
            unit, column = np.zeros(nv), np.zeros(nv)
            for j in range(nv):
                unit[:] = 0.0
                unit[j] = 1.0
                mujoco.mj_mulM(model, data, column, unit)
                M[:, j] = column
    return 0.5 * (M + M.T)


# ---------------------------------------------------------------------- velocities
def body_velocity(model, data, body, V):
    """World-frame velocity of a body's centre of mass for generalized velocities ``V``.

    Parameters
    ----------
    model, data
        ``data`` at the configuration of interest (kinematics computed).
    body : int or str
    V : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., 6)
        ``[linear velocity of the COM, angular velocity]``, both in the world
        frame -- free of the free joint's mixed world/body convention.
    """
    body_id = body if isinstance(body, (int, np.integer)) else mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    if body_id < 0 or body_id >= model.nbody:
        raise ValueError(f"`body` {body!r} is not a body of the model.")
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jacBodyCom(model, data, jacp, jacr, int(body_id))
    return np.asarray(V, dtype=float) @ np.vstack([jacp, jacr]).T


# ---------------------------------------------------------------------- contacts
class raised_margins:
    """Context: every geom, pair and override margin at least ``margin``; restored on exit."""

    def __init__(self, model, margin):
        self.model, self.margin = model, margin

    def __enter__(self):
        m = self.model
        self.saved = (m.geom_margin.copy(), m.pair_margin.copy(), float(m.opt.o_margin))
        np.maximum(m.geom_margin, self.margin, out=m.geom_margin)
        if m.npair:
            np.maximum(m.pair_margin, self.margin, out=m.pair_margin)
        m.opt.o_margin = max(m.opt.o_margin, self.margin)
        return m

    def __exit__(self, *exc):
        m = self.model
        m.geom_margin[:], m.pair_margin[:] = self.saved[0], self.saved[1]
        m.opt.o_margin = self.saved[2]
        return False


def block_mjcf(block=None, *, spatial=False, feet=False, depth=None, foot_radius=1e-3):
    """The project's rocking block (scenario ``rocking-block``) in MJCF, at touchdown.

    Parameters
    ----------
    block : RigidBlock, optional
        Its size, mass, friction and drop (default :class:`~reach.models.block.RigidBlock`'s, the paper's).
    spatial : bool
        False: the planar block, joints slide x, slide z, hinge about ``-y``
        (so that ``theta`` is the planar modeller's counter-clockwise angle in
        the x-z plane; MuJoCo is z-up, the planar model's y is MuJoCo's z).
        True: a free joint, depth = width (a 1 x 1 x 2 box on four corners).
    feet : bool
        Contact through small spheres at the bottom corners (one geom per
        contact: per-contact stiffness), the box itself not colliding.  The
        sphere bottoms are exactly the corners.
    depth, foot_radius : float
        ``depth`` is the box's y size (default 0.5 planar -- it has no effect
        there -- and ``width`` spatial).  The inertia about y is
        ``m (w^2 + h^2) / 12`` as in the planar scenario.

    Returns
    -------
    xml : str
    qpos, qvel : ndarray
        Touchdown: bottom face on the floor z = 0, falling at
        ``sqrt(2 g drop_height)``.
    """
    block = RigidBlock() if block is None else block
    width, height, mass, mu = block.width, block.height, block.mass, block.mu
    depth = (width if spatial else 0.5 * width) if depth is None else depth
    v0 = block.drop_speed
    if spatial:
        joints = '<freejoint name="root"/>'
        qpos = np.array([0.0, 0.0, 0.5 * height, 1.0, 0.0, 0.0, 0.0])
        qvel = np.array([0.0, 0.0, -v0, 0.0, 0.0, 0.0])
        ys = (-0.5 * depth, 0.5 * depth)
    else:
        joints = ('<joint name="x" type="slide" axis="1 0 0"/><joint name="z" type="slide" axis="0 0 1"/>'
                  '<joint name="theta" type="hinge" axis="0 -1 0"/>')
        qpos = np.array([0.0, 0.5 * height, 0.0])
        qvel = np.array([0.0, -v0, 0.0])
        ys = (0.0,)
    box_contact = ' contype="0" conaffinity="0"' if feet else ""
    geoms = [f'<geom name="box" type="box" size="{0.5 * width} {0.5 * depth} {0.5 * height}" '
             f'mass="{mass}"{box_contact}/>']
    if feet:
        labels = "AB" if not spatial else "ABCD"
        corners = [(x, y) for y in ys for x in (-0.5 * width, 0.5 * width)]
        for label, (x, y) in zip(labels, corners):
            geoms.append(f'<geom name="foot{label}" type="sphere" size="{foot_radius}" '
                         f'pos="{x} {y} {-0.5 * height + foot_radius}" mass="0"/>')
    xml = (f'<mujoco model="rocking-block"><default><geom friction="{mu} 0.005 0.0001"/></default>'
           '<worldbody><geom name="floor" type="plane" size="0 0 1"/>'
           f'<body name="block">{joints}{"".join(geoms)}</body></worldbody></mujoco>')
    return xml, qpos, qvel
