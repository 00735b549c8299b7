"""Compliant-contact comparison of the rocking block (paper §5.4.1, Fig. 12).

The rocking block (1 m × 2 m, 1 kg, ``I = m (w² + h²) / 12``, ``μ = 1``) hits
the floor ``y = 0`` at its bottom corners A (left) and B (right).  Instead of
a rigid impact law it is integrated through the impact with penalty contact:

* Kelvin–Voigt normal forces (eq. 88), for ``φ_i ≤ 0``::

      λn,i = max(0, −k_i φ_i − 2 ζ sqrt(k_i / m) φ̇_i),   ζ = 5,

  and ``λn,i = 0`` for ``φ_i > 0``;
* regularised Coulomb friction (eq. 89-90)::

      λt,i = −μ λn,i Unit_ε(J_t,i v),   Unit_ε(r) = r / max(|r|, ε),  ε = 1e-10;

* gravity, and the rigid-body equations ``M v̇ = F_g + Σ J_n,iᵀ λn,i + J_t,iᵀ λt,i``
  with ``q = (x, y, θ)``, ``M = diag(m, m, I)``, normal n = (0, 1), tangent
  t = (n_y, −n_x) = (1, 0).

The state ``[q; v; Λn,A; Λn,B]`` (8,) is integrated with
:func:`scipy.integrate.solve_ivp` (Radau, analytic Jacobian, ``rtol = 1e-10``,
``atol = 1e-12``) until a terminal event: every *active* contact
(``φ_i ≤ 0``) has ``J_n,i v ≥ −δ`` **and** each contact has accumulated a
normal impulse of at least ``Λ_min = 1e-2 m v₀`` (so that a run cannot stop
before the second corner engages).  The paper prints
``δ_i = m / min_i k_i · 1e-3 m/s``; the units of ``m / k`` are s², so we read
it as the number ``1e-3 · m / min_i k_i`` in m/s, i.e. ``δ = 1e-9`` m/s for
``k = 1e6`` N/m (this is also what the authors' published script uses).

Two sweeps (51 runs each in the paper):

* **ratio** — ``k_A / k_B`` log-spaced over ``[1e-5, 1e5]`` with
  ``min(k_A, k_B) = 1e6`` N/m, the nominal pre-impact state (flat,
  ``v = (0, −v₀, 0)``, ``v₀ = sqrt(2 · 9.81 · 0.01)``);
* **tilt** — ``θ₀`` over ``[−0.01°, +0.01°]`` with ``k_A = k_B = 1e6``; the
  block is raised so its lower corner just touches, and its downward speed
  lowered so that kinetic plus gravitational energy equals the flat case.
  ``θ₀ > 0`` (counter-clockwise) puts corner A lower, so A strikes first.

For comparison with the set, :func:`containment` and :func:`coverage`
measure outcomes in the (A-normal, B-normal) velocity plane against the
set's region, the concave hull of its points (:func:`set_region`).

Examples
--------
>>> from reach.analysis.compare.compliant import simulate_impact
>>> run = simulate_impact((1e6, 1e6))
>>> bool(run.success), bool(abs(run.normal_velocity[0] - run.normal_velocity[1]) < 1e-6)
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from reach.models.block import RigidBlock
from reach.analysis.compare.regions import Containment, Coverage, containment, coverage, set_region  # noqa: F401

__all__ = [
    "CompliantBlock",
    "CompliantRun",
    "CompliantSweep",
    "simulate_impact",
    "initial_state",
    "sweep_stiffness_ratio",
    "sweep_initial_tilt",
    "sequential_outcome",
    "set_region",
    "containment",
    "coverage",
]


@dataclass(frozen=True)
class CompliantBlock(RigidBlock):
    """The rocking block (:class:`~reach.models.block.RigidBlock`) with Kelvin–Voigt contact at its bottom corners."""

    zeta: float = 5.0
    epsilon: float = 1e-10
    min_stiffness: float = 1e6

    def offsets(self, theta: float) -> np.ndarray:
        """World-frame corner offsets ``d_i = R(θ) c_i``, shape (2, 2)."""
        c, s = math.cos(theta), math.sin(theta)
        return self.corners @ np.array([[c, s], [-s, c]])

    def jacobians(self, theta: float):
        """Contact Jacobians ``Jn``, ``Jt``, each shape (2, 3) (rows A, B)."""
        d = self.offsets(theta)
        Jn = np.column_stack([np.zeros(2), np.ones(2), d[:, 0]])
        Jt = np.column_stack([np.ones(2), np.zeros(2), -d[:, 1]])
        return Jn, Jt

    def gaps(self, q) -> np.ndarray:
        """Signed corner heights ``φ`` (2,)."""
        return q[1] + self.offsets(q[2])[:, 1]

    def kinetic_energy(self, v) -> float:
        return 0.5 * (self.mass * (v[0] ** 2 + v[1] ** 2) + self.inertia * v[2] ** 2)

    def energy(self, q, v) -> float:
        """Kinetic plus gravitational energy (no spring energy)."""
        return self.kinetic_energy(v) + self.mass * self.gravity * q[1]

    def velocity_tolerance(self, stiffness) -> float:
        """``δ = 1e-3 · m / min(k)`` (see the module docstring)."""
        return 1e-3 * self.mass / float(np.min(stiffness))

    def impulse_threshold(self) -> float:
        """``Λ_min = 1e-2 m v₀``: impulse each contact must receive before the end."""
        return 1e-2 * self.mass * self.drop_speed


def initial_state(block: CompliantBlock, theta0: float = 0.0):
    """Pre-impact state with tilt ``theta0`` and the flat case's total energy.

    Parameters
    ----------
    block : CompliantBlock
    theta0 : float
        Initial angle, rad (counter-clockwise; > 0 lowers corner A).

    Returns
    -------
    q, v : ndarray, shape (3,)
        The block raised so its lower corner has ``φ = 0``, falling straight
        down with ``½ m ẏ² = ½ m v₀² − m g Δy``.
    """
    height = -float(np.min(block.offsets(theta0)[:, 1]))
    raise_by = height - 0.5 * block.height
    kinetic = 0.5 * block.drop_speed**2 - block.gravity * raise_by
    if kinetic <= 0:
        raise ValueError(f"`theta0` = {theta0!r} is too large: the block would start above its drop height.")
    return np.array([0.0, height, theta0]), np.array([0.0, -math.sqrt(2.0 * kinetic), 0.0])


class _Dynamics:
    """Right-hand side, Jacobian and terminal event of the compliant block."""

    def __init__(self, block: CompliantBlock, stiffness):
        self.block = block
        self.k = np.asarray(stiffness, dtype=float)
        self.c = 2.0 * block.zeta * np.sqrt(self.k / block.mass)
        self.cx, self.cy = block.corners[:, 0], block.corners[:, 1]
        self.delta = block.velocity_tolerance(self.k)
        self.min_impulse = block.impulse_threshold()

    def _contacts(self, y):
        b = self.block
        cos, sin = math.cos(y[2]), math.sin(y[2])
        out = []
        for i in range(2):
            dx = cos * self.cx[i] - sin * self.cy[i]
            dy = sin * self.cx[i] + cos * self.cy[i]
            phi = y[1] + dy
            vn = y[4] + dx * y[5]
            vt = y[3] - dy * y[5]
            lam_n = 0.0
            if phi <= 0.0:
                lam_n = max(0.0, -self.k[i] * phi - self.c[i] * vn)
            unit = vt / max(abs(vt), b.epsilon)
            out.append((dx, dy, phi, vn, vt, lam_n, -b.mu * lam_n * unit, unit))
        return out

    def rhs(self, _, y):
        b = self.block
        force = [0.0, -b.mass * b.gravity, 0.0]
        dy_dt = np.empty(8)
        for i, (dx, dy, _, _, _, lam_n, lam_t, _) in enumerate(self._contacts(y)):
            force[0] += lam_t
            force[1] += lam_n
            force[2] += lam_n * dx - lam_t * dy
            dy_dt[6 + i] = lam_n
        dy_dt[:3] = y[3:6]
        dy_dt[3] = force[0] / b.mass
        dy_dt[4] = force[1] / b.mass
        dy_dt[5] = force[2] / b.inertia
        return dy_dt

    def jac(self, _, y):
        b = self.block
        J = np.zeros((8, 8))
        J[0, 3] = J[1, 4] = J[2, 5] = 1.0
        dforce = np.zeros((3, 8))
        omega = y[5]
        for i, (dx, dy, phi, vn, vt, lam_n, lam_t, unit) in enumerate(self._contacts(y)):
            # Gradients (over the 8 states) of φ̇ = vn, vt and λn.
            g_vn = np.zeros(8)
            g_vn[2], g_vn[4], g_vn[5] = -omega * dy, 1.0, dx
            g_vt = np.zeros(8)
            g_vt[2], g_vt[3], g_vt[5] = -omega * dx, 1.0, -dy
            g_n = np.zeros(8)
            if phi <= 0.0 and lam_n > 0.0:
                g_n[1], g_n[2] = -self.k[i], -self.k[i] * dx
                g_n -= self.c[i] * g_vn
            dunit = 1.0 / b.epsilon if abs(vt) < b.epsilon else 0.0
            g_t = -b.mu * (unit * g_n + lam_n * dunit * g_vt)
            dforce[0] += g_t
            dforce[1] += g_n
            dforce[2] += dx * g_n - dy * g_t
            dforce[2, 2] += -lam_n * dy - lam_t * dx  # ∂d/∂θ = (−d_y, d_x)
            J[6 + i] = g_n
        J[3:6] = dforce / np.array([b.mass, b.mass, b.inertia])[:, None]
        return J

    def event(self, _, y):
        contacts = self._contacts(y)
        vn_active = [vn for (_, _, phi, vn, *_rest) in contacts if phi <= 0.0]
        velocity_value = min(vn_active + [1.0]) + self.delta
        impulse_value = min(y[6], y[7]) - self.min_impulse
        return min(velocity_value, impulse_value)


@dataclass(frozen=True)
class CompliantRun:
    """Outcome of one compliant impact simulation.

    Attributes
    ----------
    stiffness : ndarray, shape (2,)
        ``(k_A, k_B)``, N/m.
    theta0 : float
        Initial tilt, rad.
    q_pre, v_pre, q_post, v_post : ndarray, shape (3,)
        State before and at the end of the impact; ``v = (ẋ, ẏ, θ̇)``.
    normal_velocity, tangential_velocity : ndarray, shape (2,)
        ``Jn v_post`` and ``Jt v_post`` (rows A, B).
    impulse : ndarray, shape (2,)
        Accumulated normal impulses ``(Λn,A, Λn,B)``.
    gaps : ndarray, shape (2,)
        ``φ`` at the end (penetration < 0).
    duration : float
        Simulated impact time, s.
    energy_pre, energy_post : float
        Kinetic plus gravitational energy.
    kinetic_pre, kinetic_post : float
    success : bool
        The terminal event fired.
    message : str
    nfev, njev, nlu : int
        Solver statistics.
    wall_time : float
        Seconds.
    """

    stiffness: np.ndarray
    theta0: float
    q_pre: np.ndarray
    v_pre: np.ndarray
    q_post: np.ndarray
    v_post: np.ndarray
    normal_velocity: np.ndarray
    tangential_velocity: np.ndarray
    impulse: np.ndarray
    gaps: np.ndarray
    duration: float
    energy_pre: float
    energy_post: float
    kinetic_pre: float
    kinetic_post: float
    success: bool
    message: str
    nfev: int
    njev: int
    nlu: int
    wall_time: float


def simulate_impact(stiffness=(1e6, 1e6), theta0: float = 0.0, *, block: CompliantBlock | None = None,
                    method: str = "Radau", rtol: float = 1e-10, atol: float = 1e-12,
                    t_max: float = 0.1) -> CompliantRun:
    """Integrate one compliant impact of the rocking block to its end.

    Parameters
    ----------
    stiffness : array_like, shape (2,)
        ``(k_A, k_B)`` in N/m, positive.
    theta0 : float
        Initial tilt in rad (see :func:`initial_state`).
    block : CompliantBlock, optional
    method : {"Radau", "BDF"}
    rtol, atol : float
        Solver tolerances.
    t_max : float
        Give up (``success = False``) after this much simulated time.

    Returns
    -------
    CompliantRun
    """
    block = block or CompliantBlock()
    k = np.asarray(stiffness, dtype=float)
    if k.shape != (2,) or not np.all(np.isfinite(k)) or np.any(k <= 0):
        raise ValueError(f"`stiffness` must be two positive finite numbers; got {stiffness!r}.")
    if method not in ("Radau", "BDF"):
        raise ValueError(f"`method` must be 'Radau' or 'BDF'; got {method!r}.")
    dyn = _Dynamics(block, k)
    q0, v0 = initial_state(block, theta0)
    y0 = np.concatenate([q0, v0, [0.0, 0.0]])

    def event(t, y):
        return dyn.event(t, y)

    event.terminal = True
    event.direction = 1
    start = time.perf_counter()
    sol = solve_ivp(dyn.rhs, (0.0, t_max), y0, method=method, jac=dyn.jac, rtol=rtol,
                    atol=atol, events=event)
    wall = time.perf_counter() - start
    y = sol.y[:, -1]
    q, v = y[:3], y[3:6]
    Jn, Jt = block.jacobians(q[2])
    success = sol.status == 1
    return CompliantRun(
        stiffness=k, theta0=float(theta0), q_pre=q0, v_pre=v0, q_post=q, v_post=v,
        normal_velocity=Jn @ v, tangential_velocity=Jt @ v, impulse=y[6:8].copy(),
        gaps=block.gaps(q), duration=float(sol.t[-1]), energy_pre=block.energy(q0, v0),
        energy_post=block.energy(q, v), kinetic_pre=block.kinetic_energy(v0),
        kinetic_post=block.kinetic_energy(v), success=bool(success),
        message="terminal event reached" if success else sol.message,
        nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu), wall_time=wall)


@dataclass(frozen=True)
class CompliantSweep:
    """A sweep of compliant runs over one parameter.

    Attributes
    ----------
    kind : {"ratio", "tilt"}
    values : ndarray, shape (n,)
        ``k_A / k_B`` (ratio sweep) or ``θ₀`` in degrees (tilt sweep).
    runs : list of CompliantRun
    """

    kind: str
    values: np.ndarray
    runs: list = field(repr=False)

    @property
    def v_post(self) -> np.ndarray:
        """Post-impact generalized velocities, shape (n, 3)."""
        return np.array([r.v_post for r in self.runs])

    @property
    def normal_velocities(self) -> np.ndarray:
        """Post-impact ``(Jn,A v, Jn,B v)``, shape (n, 2)."""
        return np.array([r.normal_velocity for r in self.runs])

    @property
    def tangential_velocities(self) -> np.ndarray:
        """Post-impact ``(Jt,A v, Jt,B v)``, shape (n, 2)."""
        return np.array([r.tangential_velocity for r in self.runs])

    @property
    def wall_times(self) -> np.ndarray:
        return np.array([r.wall_time for r in self.runs])

    @property
    def success(self) -> bool:
        return all(r.success for r in self.runs)

    def summary(self) -> str:
        vn = self.normal_velocities
        return (f"{self.kind} sweep: {len(self.runs)} runs, all ended: {self.success}; "
                f"vn,A in [{vn[:, 0].min():.4g}, {vn[:, 0].max():.4g}], "
                f"vn,B in [{vn[:, 1].min():.4g}, {vn[:, 1].max():.4g}] m/s; "
                f"{self.wall_times.mean():.3g} s/run (max {self.wall_times.max():.3g})")


def _run_parallel(arguments, n_jobs, block, options):
    if n_jobs == 1:
        return [simulate_impact(k, th, block=block, **options) for k, th in arguments]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs)(delayed(simulate_impact)(k, th, block=block, **options)
                                   for k, th in arguments)


def sweep_stiffness_ratio(n: int = 51, *, log_ratio_range=(-5.0, 5.0), n_jobs: int = 1,
                          block: CompliantBlock | None = None, **options) -> CompliantSweep:
    """Sweep ``k_A / k_B`` log-uniformly with ``min(k_A, k_B)`` fixed (paper Fig. 12 top).

    Parameters
    ----------
    n : int
        Number of runs (paper: 51).
    log_ratio_range : (float, float)
        ``log10(k_A / k_B)`` range.
    n_jobs : int
        joblib workers; results do not depend on it.
    block : CompliantBlock, optional
    **options
        Passed to :func:`simulate_impact`.
    """
    block = block or CompliantBlock()
    exponents = np.linspace(log_ratio_range[0], log_ratio_range[1], n)
    args = [(block.min_stiffness * 10.0 ** np.array([max(e, 0.0), max(-e, 0.0)]), 0.0) for e in exponents]
    return CompliantSweep("ratio", 10.0**exponents, _run_parallel(args, n_jobs, block, options))


def sweep_initial_tilt(n: int = 51, *, max_tilt_deg: float = 0.01, n_jobs: int = 1,
                       block: CompliantBlock | None = None, **options) -> CompliantSweep:
    """Sweep the initial tilt at constant total energy (paper Fig. 12 bottom).

    Parameters
    ----------
    n : int
        Number of runs (paper: 51).
    max_tilt_deg : float
        ``θ₀`` runs over ``[−max_tilt_deg, max_tilt_deg]`` degrees.
    n_jobs : int
    block : CompliantBlock, optional
    **options
        Passed to :func:`simulate_impact`.
    """
    block = block or CompliantBlock()
    degrees = np.linspace(-max_tilt_deg, max_tilt_deg, n)
    k = np.full(2, block.min_stiffness)
    args = [(k, np.deg2rad(d)) for d in degrees]
    return CompliantSweep("tilt", degrees, _run_parallel(args, n_jobs, block, options))


def sequential_outcome(first: int = 0, block: CompliantBlock | None = None):
    """Rigid sequential resolution of the flat drop: corner ``first``, then the other.

    Each impact is a sticking rigid-body impulse on one corner (checked to
    lie in the friction cone), ``0 = J_i (v + M⁻¹ J_iᵀ Λ)``.

    Parameters
    ----------
    first : {0, 1}
        0: A first, then B (the block ends pivoting on B, A lifting off).
    block : CompliantBlock, optional

    Returns
    -------
    v_mid, v_post : ndarray, shape (3,)
        Velocity after the first and after the second impact.
    """
    block = block or CompliantBlock()
    q, v = initial_state(block, 0.0)
    Jn, Jt = block.jacobians(q[2])
    Minv = np.diag([1 / block.mass, 1 / block.mass, 1 / block.inertia])
    velocities = []
    for i in (first, 1 - first):
        J = np.vstack([Jt[i], Jn[i]])
        impulse = np.linalg.solve(J @ Minv @ J.T, -J @ v)
        if impulse[1] < 0 or abs(impulse[0]) > block.mu * impulse[1]:
            raise RuntimeError(f"sticking impulse {impulse} at contact {i} is outside the friction cone")
        v = v + Minv @ J.T @ impulse
        velocities.append(v)
    return velocities[0], velocities[1]
