"""Drake's SAP solver as a comparison simulator: its single outcome of an impact against the set.

The impact read by :func:`reach.models.drake.impact_from_drake` is simulated in
Drake with the SAP discrete contact approximation (Castro et al., the seed
paper ``castro-sap-compliant-contact``): a convex, compliant contact model
whose point contacts have a stiffness ``k`` and a linear dissipation set by a
relaxation time ``tau`` (``d = tau k``), or hydroelastic contact with a modulus
``E``.  Gravity is off, so that only the contacts act, as in
:mod:`reach.analysis.compare.mujoco`.

The model is rebuilt for every run from a *writer*: a function
``writer(proximity) -> SDFormat text`` that takes a list of Drake proximity
properties, one dict per contact geometry in the problem's contact order
(``point_contact_stiffness``, ``relaxation_time``, ``hydroelastic_modulus``,
...), such as :func:`reach.models.drake_model.block_sdf` and
:func:`reach.models.drake_model.sdf_from_mujoco` accept.  Per-contact stiffness
therefore needs one geometry per contact (spheres at the corners or feet).

**The end of the impact.**  The plant is stepped by the time step; the impact
is over once the total contact force has dropped below ``force_rtol`` times its
peak, no separated pair of geometries within 1 cm closes faster than 0.1 % of
``|vn0|`` (a tilted block's second corner still falling), and both have held for
``quiet_steps`` steps; the outcome is the state at the
start of that quiet window.  Its contact velocities are measured with the
problem's contact Jacobians (at touchdown: the configuration moves by less than
``|v| x`` the impact's duration, a few tenths of a millimetre here).

**Perturbations** (:func:`sweep`): tiny tilts of the touchdown configuration,
per-contact stiffness (point stiffness or hydroelastic modulus), the
dissipation (relaxation time) and the time step.  Each run reports its distance
to the set (contact-velocity coordinates, m/s and as a fraction of ``|vn0|``)
and the named outcome it lands near (:func:`reach.analysis.landing.name_outcome`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from reach.analysis.compare.regions import check_set_of, stiffness_patterns
from reach.analysis.landing import name_outcome
from reach.models.drake import load_plant

try:
    from pydrake.multibody.plant import ContactModel, DiscreteContactApproximation
    from pydrake.systems.analysis import Simulator
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("reach.analysis.compare.drake needs Drake: pip install 'reach[drake]'") from exc

__all__ = ["SapSettings", "SapRun", "SapSweep", "simulate_sap", "tilt_state", "sweep"]

CONTACT_MODELS = ("point", "hydroelastic")
#: A contact approaching faster than this fraction of ``|vn0|`` keeps the impact going (a later touchdown).
APPROACH_RTOL = 1e-3


@dataclass(frozen=True)
class SapSettings:
    """How a SAP impact is simulated.

    Attributes
    ----------
    time_step : float
        The plant's discrete step, s.
    contact_model : {"point", "hydroelastic"}
    stiffness : float
        Point contact stiffness ``k`` (N/m) of every contact geometry before the
        per-contact multipliers.
    hydroelastic_modulus : float
        ``E`` (Pa) of the compliant hydroelastic geometries (``"hydroelastic"``).
    relaxation_time : float
        SAP's linear dissipation time scale ``tau`` (s); larger is more dissipative.
    max_time : float
        Give up (``ended = False``) after this much simulated time, s.
    force_rtol : float
    quiet_steps : int
    """

    time_step: float = 1e-4
    contact_model: str = "point"
    stiffness: float = 1e6
    hydroelastic_modulus: float = 1e8
    relaxation_time: float = 1e-2
    max_time: float = 0.1
    force_rtol: float = 1e-4
    quiet_steps: int = 20

    def __post_init__(self):
        if self.contact_model not in CONTACT_MODELS:
            raise ValueError(f"`contact_model` must be one of {CONTACT_MODELS}; got {self.contact_model!r}.")
        for name in ("time_step", "stiffness", "hydroelastic_modulus", "max_time", "force_rtol"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"`{name}` must be a positive finite number; got {value!r}.")
        if not (np.isfinite(self.relaxation_time) and self.relaxation_time >= 0):
            raise ValueError(f"`relaxation_time` must be a finite number >= 0; got {self.relaxation_time!r}.")

    def proximity(self, scale):
        """Drake proximity properties of one contact geometry whose stiffness is scaled by ``scale``."""
        props = {"relaxation_time": self.relaxation_time}
        if self.contact_model == "point":
            props["point_contact_stiffness"] = self.stiffness * scale
        else:
            props["hydroelastic_modulus"] = self.hydroelastic_modulus * scale
        return props


@dataclass(frozen=True)
class SapRun:
    """One SAP impact simulation.

    Attributes
    ----------
    v : ndarray (nv,)
        The post-impact velocity (the plant's coordinates).
    contact_velocities : ndarray (m, 1 + d)
    stiffness : ndarray (m,)
        Per-contact multipliers of the stiffness (or modulus).
    tilt : float
        Tilt of the touchdown configuration, rad.
    settings : SapSettings
    duration : float
        Simulated time to the end of the impact, s.
    steps : int
    peak_force : float
        Largest total contact force, N.
    energy_ratio : float
        Kinetic energy after over before.
    colliding : bool
        A contact still approaches faster than 1e-3 ``|vn0|`` at the end.
    ended : bool
    wall_time : float
    """

    v: np.ndarray
    contact_velocities: np.ndarray
    stiffness: np.ndarray
    tilt: float
    settings: SapSettings
    duration: float
    steps: int
    peak_force: float
    energy_ratio: float
    colliding: bool
    ended: bool
    wall_time: float


def _configure(settings):
    def configure(plant):
        plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
        plant.set_contact_model(ContactModel.kPoint if settings.contact_model == "point"
                                else ContactModel.kHydroelasticWithFallback)
        plant.mutable_gravity_field().set_gravity_vector([0.0, 0.0, 0.0])
    return configure


def _contact_force(plant, context):
    results = plant.get_contact_results_output_port().Eval(context)
    total = 0.0
    for i in range(results.num_point_pair_contacts()):
        total += float(np.linalg.norm(results.point_pair_contact_info(i).contact_force()))
    for i in range(results.num_hydroelastic_contacts()):
        total += float(np.linalg.norm(results.hydroelastic_contact_info(i).F_Ac_W().translational()))
    return total


def _approaching(plant, context, gaps, closing):
    """Whether a separated pair of geometries (within 1 cm) closed by more than ``closing`` since the last step.

    ``gaps`` holds the previous step's signed distances by geometry pair and is updated.
    """
    query = plant.get_geometry_query_input_port().Eval(context)
    out = False
    for pair in query.ComputeSignedDistancePairwiseClosestPoints(max_distance=0.01):
        key = (pair.id_A, pair.id_B)
        if pair.distance > 0 and key in gaps and gaps[key] - pair.distance > closing:
            out = True
        gaps[key] = pair.distance
    return out


def tilt_state(system, context, angle, *, joint="theta"):
    """Tilt the touchdown configuration by ``angle`` (rad), then lower it until the lowest contact touches.

    A revolute joint named ``joint`` is turned when the plant has one (the planar
    block); otherwise the first floating body is pitched about the world y axis
    through its origin.  The vertical coordinate (a prismatic joint along z, or the
    floating body's height) is then lowered by the smallest signed distance.
    """
    from pydrake.math import RigidTransform, RotationMatrix

    plant = system.plant
    if angle == 0.0:
        return context
    if plant.HasJointNamed(joint):
        j = plant.GetJointByName(joint)
        q = plant.GetPositions(context)
        q[j.position_start()] += angle
        plant.SetPositions(context, q)
        body = None
    else:
        floating = sorted(plant.GetFloatingBaseBodies())
        if not floating:
            raise ValueError(f"no joint {joint!r} and no floating body to tilt.")
        body = plant.get_body(floating[0])
        pose = plant.EvalBodyPoseInWorld(context, body)
        plant.SetFreeBodyPose(context, body, RigidTransform(RotationMatrix.MakeYRotation(angle) @ pose.rotation(),
                                                            pose.translation()))
    query = plant.get_geometry_query_input_port().Eval(context)
    lowest = min(p.distance for p in query.ComputeSignedDistancePairwiseClosestPoints(max_distance=1.0))
    if body is None:
        z = plant.GetJointByName("z")
        q = plant.GetPositions(context)
        q[z.position_start()] -= lowest
        plant.SetPositions(context, q)
    else:
        pose = plant.EvalBodyPoseInWorld(context, body)
        plant.SetFreeBodyPose(context, body, RigidTransform(pose.rotation(), pose.translation() - [0, 0, lowest]))
    return context


def simulate_sap(writer, problem, q, v, *, stiffness=None, tilt=0.0, settings=SapSettings()):
    """Simulate one impact with SAP and return its outcome (see the module docstring).

    Parameters
    ----------
    writer : callable
        ``writer(proximity) -> SDFormat text``, one proximity dict per contact.
    problem : ImpactProblem
        The impact's problem (read at ``q``, ``v`` without tilt): its Jacobians
        measure the outcome's contact velocities.
    q, v : array_like
        Touchdown positions and pre-impact velocities (the plant's coordinates).
    stiffness : array_like (m,), optional
        Per-contact multipliers of the stiffness (or modulus); default ones.
    tilt : float
        Tilt of the touchdown configuration, rad (:func:`tilt_state`).
    settings : SapSettings

    Returns
    -------
    SapRun
    """
    start = time.perf_counter()
    scales = np.ones(problem.m) if stiffness is None else np.asarray(stiffness, dtype=float)
    if scales.shape != (problem.m,) or not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise ValueError(f"`stiffness` must hold {problem.m} positive multipliers; got {stiffness!r}.")
    system = load_plant(writer([settings.proximity(s) for s in scales]), time_step=settings.time_step,
                        configure=_configure(settings))
    simulator = Simulator(system.diagram)
    root = simulator.get_mutable_context()
    plant = system.plant
    context = plant.GetMyMutableContextFromRoot(root)
    plant.SetPositions(context, np.asarray(q, dtype=float))
    plant.SetVelocities(context, np.asarray(v, dtype=float))
    tilt_state(system, context, float(tilt))
    energy_before = 0.5 * float(v @ plant.CalcMassMatrix(context) @ v)
    simulator.Initialize()
    peak, quiet, steps, outcome, ended, gaps = 0.0, 0, 0, None, False, {}
    scale = float(np.max(np.abs(problem.Jn @ problem.v)))
    while root.get_time() < settings.max_time:
        simulator.AdvanceTo(root.get_time() + settings.time_step)
        steps += 1
        force = _contact_force(plant, context)
        peak = max(peak, force)
        approaching = _approaching(plant, context, gaps, APPROACH_RTOL * scale * settings.time_step)
        if peak > 0 and force <= settings.force_rtol * peak and not approaching:
            if quiet == 0:
                outcome = (np.array(plant.GetVelocities(context)), root.get_time(), plant.CalcMassMatrix(context))
            quiet += 1
            if quiet >= settings.quiet_steps:
                ended = True
                break
        else:
            quiet = 0
    if outcome is None:
        outcome = (np.array(plant.GetVelocities(context)), root.get_time(), plant.CalcMassMatrix(context))
    v_after, duration, M_after = outcome
    cv = problem.contact_velocities(v_after)
    return SapRun(v_after, cv, scales, float(tilt), settings, duration, steps, peak,
                  0.5 * float(v_after @ M_after @ v_after) / energy_before,
                  bool(np.any(cv[:, 0] < -APPROACH_RTOL * scale)),
                  ended, time.perf_counter() - start)


@dataclass
class SapSweep:
    """SAP outcomes of perturbed impacts, and where they land against the set.

    Attributes
    ----------
    runs : list of SapRun
    kind : ndarray of str
        ``"tilt"``, ``"stiffness"``, ``"dissipation"`` or ``"time step"`` per run.
    distances : ndarray
        Distance of each outcome's contact velocities to the nearest outcome of the set, m/s.
    fractions : ndarray
        ``distances / |vn0|``.
    outcomes : list of str
        The named outcome of each run (:func:`reach.analysis.landing.name_outcome`).
    """

    runs: list = field(repr=False)
    kind: np.ndarray
    distances: np.ndarray
    fractions: np.ndarray
    outcomes: list

    def summary(self) -> str:
        ended = sum(r.ended for r in self.runs)
        return (f"{len(self.runs)} SAP runs ({ended} ended); distance to the set: median "
                f"{100 * np.median(self.fractions):.2f} %, max {100 * self.fractions.max():.2f} % of |vn0|; "
                f"{np.mean([r.wall_time for r in self.runs]):.2g} s/run")

    def rows(self):
        """One dict per run: kind, parameters, distance (m/s and fraction), named outcome, energy ratio."""
        return [dict(kind=k, contact_model=r.settings.contact_model, time_step=r.settings.time_step,
                     relaxation_time=r.settings.relaxation_time, tilt_deg=float(np.rad2deg(r.tilt)),
                     stiffness=r.stiffness.tolist(), distance=float(d), fraction=float(f), outcome=o,
                     energy_ratio=r.energy_ratio, ended=r.ended)
                for r, k, d, f, o in zip(self.runs, self.kind, self.distances, self.fractions, self.outcomes)]


def sweep(writer, impact, result, *, tilts_deg=(-0.01, 0.01), stiffness_ratios=(1e-2, 1e2),
          relaxation_times=(1e-3, 1e-1), time_steps=(1e-3, 1e-5), settings=SapSettings()):
    """Simulate perturbed impacts with SAP and measure them against ``result``.

    Each perturbation changes one thing from ``settings``: the tilt; the stiffness
    of contact 0 against the others (``k_0 / k_rest``); the relaxation time; the
    time step.  ``impact`` is the :class:`~reach.models.drake.DrakeImpact` at
    touchdown, ``result`` the set of ``impact.problem``.

    Returns
    -------
    SapSweep
    """
    problem = impact.problem
    check_set_of(problem, result)
    plan = [("tilt", dict(tilt=np.deg2rad(t))) for t in tilts_deg]
    plan += [("stiffness", dict(stiffness=s)) for s in stiffness_patterns(problem.m, stiffness_ratios)]
    plan += [("dissipation", dict(settings=replace(settings, relaxation_time=t))) for t in relaxation_times]
    plan += [("time step", dict(settings=replace(settings, time_step=h))) for h in time_steps]
    if not plan:
        raise ValueError("nothing to simulate: every perturbation list is empty.")
    runs = [simulate_sap(writer, problem, impact.q, impact.v, **dict(dict(settings=settings), **options))
            for _, options in plan]
    from reach.sampling.nearest import kd_tree

    points = result.contact_velocities().reshape(len(result), -1)
    distances = np.atleast_1d(kd_tree(points).query(np.array([r.contact_velocities.ravel() for r in runs]))[0])
    scale = float(np.max(np.abs(problem.Jn @ problem.v)))
    return SapSweep(runs, np.array([k for k, _ in plan]), distances, distances / scale,
                    [name_outcome(problem, r.v) for r in runs])
