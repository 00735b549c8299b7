"""MuJoCo as a comparison simulator: its single outcome against the post-impact set.

The impact read by :func:`reach.models.mujoco.impact_from_mujoco` is
simulated in MuJoCo itself, with everything but the contacts switched off and
the contacts made stiff and strongly damped, i.e. nearly plastic, so that
MuJoCo's soft contacts approximate a rigid inelastic impact:

* gravity, joint springs and dampers and actuation disabled
  (``mjDSBL_GRAVITY | mjDSBL_SPRING | mjDSBL_DAMPER | mjDSBL_ACTUATION``);
* for every geom: ``solref = (timeconst / sqrt(s_i), dampratio)`` -- MuJoCo's
  standard (time constant, damping ratio) format; the stiffness of contact i
  scales as ``s_i / timeconst^2`` -- ``solimp = (0.99, 0.99, 0.001, 0.5, 2)``,
  ``margin = gap = 0``; world geoms get ``solmix = 0`` so that the moving
  geom's ``solref`` decides (MuJoCo mixes the two geoms' parameters by
  ``solmix``); explicit pairs get the unscaled parameters;
* elliptic friction cones, Newton solver at tolerance 1e-12, and a timestep
  ``timeconst_min / 20`` where ``timeconst_min`` is the stiffest contact's.

The simulation starts at the touchdown state.  The impact is over once the
constraint forces ``qfrc_constraint`` have dropped below ``force_rtol`` (1e-4)
times their peak and stayed there for ``quiet_time`` (20 time constants); the
outcome is the state at the *start* of that quiet window.  Taking it there,
not at the end of the window, matters for robots: after the impulsive phase
(about 5 time constants) their joints keep moving and bias forces keep
changing ``qvel``, and sustained contact forces of order 1e-5 of the peak may
remain (a quadruped's passive knees folding under its stance feet).  The
outcome's contact velocities are those of the same material points, followed
to the end configuration (:func:`contact_velocities_at`).

MuJoCo's reference acceleration ``aref = -b v - k r`` with
``b = 2 / timeconst`` and ``k = 1 / (timeconst dampratio)^2`` leaves the
contacts slightly penetrated when their force vanishes; the penetration then
releases at a small separating speed, about
``depth / (2 timeconst dampratio^2)``: 1e-3 m/s for the rocking block (0.24 %
of its pre-impact speed) at ``timeconst = 2e-4``, ``dampratio = 10``.  This is
MuJoCo's residual restitution, the floor of the distances reported below.

**Perturbations**, as in the compliant comparison (paper §5.4.1): a tiny tilt
of the touchdown configuration (:func:`tilted_state`: one hinge or the free
joint rotated, then lowered so the lowest contact touches) and per-contact
stiffness (``s_i``).  Per-contact stiffness needs one geom per contact --
MuJoCo gives contacts the parameters of their geoms -- so the corners of a
box geom share theirs; model feet (e.g. small spheres) to vary them.

**Containment** (:func:`sweep`): the distance of every outcome's contact
velocities (all m (1 + d) coordinates) to the nearest sampled outcome of the
set, in m/s -- the measure of :meth:`reach.PostImpactSet.distance_to`.  It
sees only contact-point velocities: internal motions that leave the contacts
alone (a robot's swinging free joints) are not compared.  Distances to a
*sampled* set overestimate the distance to the set, most in many dimensions.
:func:`reach.plotting.plot_comparison` draws the outcomes over the set in one contact plane.

Examples
--------
>>> from reach.models.mujoco import impact_from_mujoco, load_model
>>> xml, qpos, qvel = block_mjcf(feet=True)
>>> model = load_model(xml)
>>> impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel))
>>> run = simulate_impact(impact, model)
>>> run.ended, bool(abs(run.contact_velocities[0, 0] - run.contact_velocities[1, 0]) < 1e-6)
(True, True)
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np

import mujoco
from reach.analysis.compare.regions import stiffness_patterns as ratio_patterns
from reach.models.mujoco_model import block_mjcf, data_at, raised_margins  # noqa: F401 (block_mjcf re-exported)

__all__ = [
    "MujocoRun",
    "MujocoSettings",
    "MujocoSweep",
    "block_mjcf",
    "contact_velocities_at",
    "mujoco_data",
    "simulate_impact",
    "sweep",
    "tilted_state",
]


def mujoco_data(model, qpos, qvel):
    """A fresh ``MjData`` at ``qpos``, ``qvel`` (lengths checked)."""
    return data_at(model, qpos, qvel)


@dataclass(frozen=True)
class MujocoSettings:
    """Contact and integration settings of the comparison (see the module docstring).

    Attributes
    ----------
    timeconst : float
        ``solref`` time constant of a contact with stiffness multiplier 1, s.
    dampratio : float
        ``solref`` damping ratio (>= 5: nearly plastic).
    timestep_fraction : float
        Timestep = ``timeconst_min * timestep_fraction`` (<= 1/20).
    solimp : tuple of 5 floats
    force_rtol : float
        Constraint force counting as zero, relative to its peak.
    quiet_time : float or None
        How long the forces must stay below it; default ``20 timeconst``.
    max_time : float
        Give up after this much simulated time (``ended = False``).
    """

    timeconst: float = 2e-4
    dampratio: float = 10.0
    timestep_fraction: float = 1.0 / 20.0
    solimp: tuple = (0.99, 0.99, 0.001, 0.5, 2.0)
    force_rtol: float = 1e-4
    quiet_time: float | None = None
    max_time: float = 2.0

    def __post_init__(self):
        if not self.timeconst > 0:
            raise ValueError(f"`timeconst` must be positive; got {self.timeconst!r}.")
        if not self.dampratio > 0:
            raise ValueError(f"`dampratio` must be positive; got {self.dampratio!r}.")
        if not 0 < self.timestep_fraction <= 1.0 / 20.0:
            raise ValueError(f"`timestep_fraction` must be in (0, 1/20]; got {self.timestep_fraction!r}.")
        if len(self.solimp) != 5:
            raise ValueError(f"`solimp` must have 5 entries; got {self.solimp!r}.")


@dataclass(frozen=True)
class MujocoRun:
    """One MuJoCo impact simulation.

    Attributes
    ----------
    qvel, qpos : ndarray
        Post-impact state: the state at which the contact forces dropped
        below ``force_rtol`` times their peak for good (MuJoCo coordinates).
    contact_velocities : ndarray, shape (m, 1 + d)
        Its contact-frame velocities (:func:`contact_velocities_at`).
    stiffness : ndarray, shape (m,)
        Stiffness multipliers ``s_i``.
    tilt : float
        Tilt of the start configuration, rad.
    duration : float
        Simulated time to the end of the impact, s.
    steps : int
    peak_force : float
        Largest ``|qfrc_constraint|`` entry.
    ended : bool
        The forces stayed below the threshold for ``quiet_time`` before ``max_time``.
    wall_time : float
    """

    qvel: np.ndarray
    qpos: np.ndarray
    contact_velocities: np.ndarray
    stiffness: np.ndarray
    tilt: float
    duration: float
    steps: int
    peak_force: float
    ended: bool
    wall_time: float


def _contact_geoms(impact, model):
    """For each contact, the geom whose parameters it takes (the one not on the world body)."""
    geoms = []
    for c in impact.contacts:
        g0, g1 = c.geom
        geoms.append(g1 if model.geom_bodyid[g1] != 0 else g0)
    return geoms


def comparison_model(impact, model, stiffness=None, settings=MujocoSettings()):
    """A copy of ``model`` set up for the comparison (see the module docstring)."""
    m = copy.deepcopy(model)
    stiffness = np.ones(impact.problem.m) if stiffness is None else np.asarray(stiffness, dtype=float)
    if stiffness.shape != (impact.problem.m,) or not np.all(np.isfinite(stiffness)) or np.any(stiffness <= 0):
        raise ValueError(f"`stiffness` must hold {impact.problem.m} positive multipliers; got {stiffness!r}.")
    off = (mujoco.mjtDisableBit.mjDSBL_GRAVITY | mujoco.mjtDisableBit.mjDSBL_SPRING
           | mujoco.mjtDisableBit.mjDSBL_DAMPER | mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    m.opt.disableflags |= int(off)
    m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_OVERRIDE)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    m.opt.tolerance, m.opt.iterations = 1e-12, 200
    m.opt.timestep = settings.timeconst / np.sqrt(stiffness.max()) * settings.timestep_fraction
    m.geom_margin[:], m.geom_gap[:] = 0.0, 0.0
    m.geom_solimp[:] = settings.solimp
    m.geom_solref[:] = (settings.timeconst, settings.dampratio)
    m.geom_solmix[:] = np.where(m.geom_bodyid == 0, 0.0, 1.0)
    if m.npair:
        m.pair_margin[:], m.pair_gap[:] = 0.0, 0.0
        m.pair_solref[:] = (settings.timeconst, settings.dampratio)
        m.pair_solimp[:] = settings.solimp
    assigned = {}
    for i, g in enumerate(_contact_geoms(impact, m)):
        if g in assigned and stiffness[assigned[g]] != stiffness[i]:
            names = impact.problem.contact_names
            raise ValueError(f"contacts {names[assigned[g]]} and {names[i]} share geom {g}: per-contact "
                             "stiffness needs one geom per contact (e.g. small sphere feet).")
        assigned[g] = i
        m.geom_solref[g, 0] = settings.timeconst / np.sqrt(stiffness[i])
    return m


def simulate_impact(impact, model, *, stiffness=None, qpos=None, tilt=0.0, settings=MujocoSettings()):
    """Simulate the impact in MuJoCo from touchdown until the contact forces are gone.

    Parameters
    ----------
    impact : MujocoImpact
        From :func:`reach.models.mujoco.impact_from_mujoco`; gives the
        pre-impact ``qvel``, the contacts and the contact frames for the result.
    model : mujoco.MjModel
        The model ``impact`` was read from (not modified: a copy is set up).
    stiffness : array_like, shape (m,), optional
        Per-contact stiffness multipliers (default all 1).
    qpos : array_like, optional
        Start configuration (default ``impact.qpos``; e.g. from :func:`tilted_state`).
    tilt : float
        Recorded with the run (the tilt that produced ``qpos``).
    settings : MujocoSettings

    Returns
    -------
    MujocoRun
    """
    m = comparison_model(impact, model, stiffness, settings)
    d = data_at(m, impact.qpos if qpos is None else qpos, impact.qvel)
    quiet_time = 20.0 * settings.timeconst if settings.quiet_time is None else settings.quiet_time
    quiet_steps = max(1, int(np.ceil(quiet_time / m.opt.timestep)))
    max_steps = int(np.ceil(settings.max_time / m.opt.timestep))
    peak, quiet, steps, started = 0.0, 0, 0, time.perf_counter()
    end_state = None
    while steps < max_steps:
        before = (np.array(d.qpos), np.array(d.qvel), float(d.time))
        mujoco.mj_step(m, d)
        steps += 1
        # qfrc_constraint of this step is the force acting from the state `before`
        force = float(np.max(np.abs(d.qfrc_constraint), initial=0.0))
        peak = max(peak, force)
        if peak > 0 and force <= settings.force_rtol * peak:
            if quiet == 0:
                end_state = before
            quiet += 1
        else:
            quiet = 0
        if quiet >= quiet_steps:
            break
    ended = quiet >= quiet_steps
    qpos_end, qvel_end, t_end = end_state if ended else (np.array(d.qpos), np.array(d.qvel), float(d.time))
    s = np.ones(impact.problem.m) if stiffness is None else np.asarray(stiffness, dtype=float)
    return MujocoRun(qvel=qvel_end, qpos=qpos_end,
                     contact_velocities=contact_velocities_at(impact, model, qpos_end, qvel_end),
                     stiffness=s, tilt=float(tilt), duration=t_end, steps=steps, peak_force=peak,
                     ended=ended, wall_time=time.perf_counter() - started)


def contact_velocities_at(impact, model, qpos, qvel):
    """Contact-frame velocities of the impact's contact points, followed to configuration ``qpos``.

    Each contact point is fixed in both bodies at the nominal configuration
    ``impact.qpos``, moved with them to ``qpos``, and its relative velocity
    under ``qvel`` is expressed in the nominal contact frame.  At
    ``impact.qpos`` this equals ``impact.contact_frame_velocities(qvel)``.

    Returns
    -------
    ndarray, shape (m, 1 + d)
    """
    nominal, moved = mujoco.MjData(model), mujoco.MjData(model)
    for data, q in ((nominal, impact.qpos), (moved, qpos)):
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
    out = np.empty((impact.problem.m, 1 + impact.problem.tangent_dim))
    jacp = np.zeros((3, model.nv))
    for i, c in enumerate(impact.contacts):
        velocity = np.zeros(3)
        for body, sign in ((c.body[1], 1.0), (c.body[0], -1.0)):
            if body == 0:
                continue
            local = nominal.xmat[body].reshape(3, 3).T @ (c.position - nominal.xpos[body])
            point = moved.xpos[body] + moved.xmat[body].reshape(3, 3) @ local
            mujoco.mj_jac(model, moved, jacp, None, point, body)
            velocity += sign * (jacp @ qvel)
        out[i] = np.concatenate([[c.normal @ velocity], c.tangents @ velocity])
    return out


def _joint_id(model, joint, kinds):
    if joint is None:
        for j in range(model.njnt):
            if model.jnt_type[j] in kinds:
                return j
        raise ValueError("the model has no joint to tilt; pass `joint`.")
    j = joint if isinstance(joint, (int, np.integer)) else mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint)
    if j < 0 or j >= model.njnt or model.jnt_type[j] not in kinds:
        raise ValueError(f"`joint` {joint!r} is not a hinge or free joint of the model.")
    return int(j)


def _vertical_coordinate(model, free_joint):
    """(qpos index, sign) of the coordinate that moves the model up."""
    if free_joint is not None:
        return int(model.jnt_qposadr[free_joint]) + 2, 1.0
    for j in range(model.njnt):
        if model.jnt_type[j] == int(mujoco.mjtJoint.mjJNT_SLIDE) and abs(abs(model.jnt_axis[j][2]) - 1.0) < 1e-12:
            return int(model.jnt_qposadr[j]), float(np.sign(model.jnt_axis[j][2]))
    raise ValueError("no free joint or vertical slide joint to lower the model with.")


def _lowest_distance(model, qpos, reach_margin=0.05):
    d = data_at(model, qpos, np.zeros(model.nv))
    with raised_margins(model, reach_margin):
        mujoco.mj_forward(model, d)
        dists = [d.contact[i].dist for i in range(d.ncon)]
    if not dists:
        raise ValueError("no contact within 5 cm after tilting.")
    return float(min(dists))


def tilted_state(model, qpos, angle, *, joint=None, axis=(0.0, 1.0, 0.0)):
    """``qpos`` rotated by ``angle`` (rad), then lowered so its lowest contact just touches.

    A hinge ``joint`` gets ``angle`` added; a free joint (the default when the
    model has one) is rotated about the world ``axis`` through its body origin.
    The model is lowered with the free joint's z or a slide joint along z.
    """
    qpos = np.array(qpos, dtype=float)
    hinge, free = int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_FREE)
    has_free = any(model.jnt_type[j] == free for j in range(model.njnt))
    j = _joint_id(model, joint, (free,) if joint is None and has_free else (hinge, free))
    if model.jnt_type[j] == hinge:
        qpos[model.jnt_qposadr[j]] += angle
        free_joint = None
    else:
        adr = model.jnt_qposadr[j]
        axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
        rotation = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, rotation, qpos[adr + 3:adr + 7])
        qpos[adr + 3:adr + 7] = quat
        free_joint = j
    index, sign = _vertical_coordinate(model, free_joint)
    for _ in range(3):
        qpos[index] -= sign * _lowest_distance(model, qpos)
    return qpos


@dataclass(frozen=True)
class MujocoSweep:
    """MuJoCo outcomes of perturbed impacts and their distances to the set.

    Attributes
    ----------
    runs : list of MujocoRun
    kind : ndarray of str, shape (n,)
        ``"tilt"`` or ``"stiffness"`` per run.
    distances : ndarray, shape (n,)
        Distance of each outcome's contact velocities to the nearest outcome
        of the set (m/s).
    eps : float
        Tolerance of :attr:`fraction_within`.
    """

    runs: list = field(repr=False)
    kind: np.ndarray
    distances: np.ndarray
    eps: float

    @property
    def fraction_within(self) -> float:
        """Fraction of outcomes within ``eps`` of the set."""
        return float(np.mean(self.distances <= self.eps))

    @property
    def qvel(self) -> np.ndarray:
        return np.array([r.qvel for r in self.runs])

    def summary(self) -> str:
        ended = sum(r.ended for r in self.runs)
        return (f"{len(self.runs)} MuJoCo runs ({ended} ended); {100 * self.fraction_within:.1f} % within "
                f"{self.eps:.3g} m/s of the set; distance median {np.median(self.distances):.3g}, "
                f"max {self.distances.max():.3g} m/s; {np.mean([r.wall_time for r in self.runs]):.3g} s/run")


def sweep(impact, model, result, *, tilts_deg=(-0.01, -0.003, 0.003, 0.01),
          stiffness_ratios=(1e-2, 1e-1, 1.0, 1e1, 1e2),
          stiffness_patterns=None, tilt_joint=None, tilt_axis=(0.0, 1.0, 0.0), eps=None,
          settings=MujocoSettings()):
    """Simulate perturbed impacts in MuJoCo and measure their distance to ``result``.

    Parameters
    ----------
    impact : MujocoImpact
    model : mujoco.MjModel
    result : PostImpactSet
        The set of ``impact.problem``.
    tilts_deg : sequence of float
        Tilts of the touchdown configuration (degrees; :func:`tilted_state`).
    stiffness_ratios : sequence of float
        ``k_0 / k_rest``: contact 0 against all others, with the softer
        stiffness fixed at the nominal one (needs one geom per contact).
    stiffness_patterns : array_like (p, m), optional
        Further per-contact stiffness multipliers, one run each.
    tilt_joint, tilt_axis
        See :func:`tilted_state`.
    eps : float, optional
        Containment tolerance, default 1 % of the pre-impact contact speed
        (``max |Jn v|``).
    settings : MujocoSettings

    Returns
    -------
    MujocoSweep
    """
    problem = impact.problem
    if result.problem.fingerprint() != problem.fingerprint():
        raise ValueError("`result` was computed for a different problem than `impact.problem`.")
    runs, kinds = [], []
    for tilt in tilts_deg:
        qpos = tilted_state(model, impact.qpos, np.deg2rad(tilt), joint=tilt_joint, axis=tilt_axis)
        runs.append(simulate_impact(impact, model, qpos=qpos, tilt=np.deg2rad(tilt), settings=settings))
        kinds.append("tilt")
    patterns = ratio_patterns(problem.m, stiffness_ratios)
    if stiffness_patterns is not None:
        patterns.extend(np.atleast_2d(np.asarray(stiffness_patterns, dtype=float)))
    for s in patterns:
        runs.append(simulate_impact(impact, model, stiffness=s, settings=settings))
        kinds.append("stiffness")
    if not runs:
        raise ValueError("nothing to simulate: `tilts_deg`, `stiffness_ratios` and `stiffness_patterns` are empty.")
    eps = 0.01 * float(np.max(np.abs(problem.Jn @ problem.v))) if eps is None else float(eps)
    from reach.sampling.nearest import kd_tree

    if len(result) == 0:
        raise ValueError("`result` is empty: no sample ended non-colliding.")
    points = result.contact_velocities().reshape(len(result), -1)
    outcomes = np.array([r.contact_velocities.ravel() for r in runs])
    distances = kd_tree(points).query(outcomes)[0]
    return MujocoSweep(runs, np.array(kinds), np.atleast_1d(distances), eps)
