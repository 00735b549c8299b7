"""The Zeno rocking block: an explicit solution of the continuous-time inclusion.

Core paper §4.3 (Fig. 7 and 8).  A block of width ``w = 1`` m, height
``h = 2`` m, mass ``m = 1`` kg, ``I = m (w² + h²) / 12`` about its centre,
``μ = 1``, ``g = 9.81`` starts flat (``θ = 0``) pivoting on its bottom-left
corner A with ``θ̇₀ = 1`` rad/s at ``t = 0``.  We build the solution
``x̄(s) = [q(s); v(s); t(s)]`` of the continuous-time differential inclusion
(53) by alternating two kinds of phase until the Zeno accumulation point:

**Pendulum phase** (sustained contact, eq. 56-65).  The block sticks on its
pivot corner P and follows ``(I + m‖r‖²) θ̈ = −m g r_x(θ)``, with ``r`` the
vector from P to the centre of mass (for P = A this is eq. 56:
``r_x = ‖r‖ cos(θ + α)``, ``α = atan(h / w)``).  The contact force comes
from the no-acceleration constraint at P (eq. 61-62)::

    J_P M⁻¹ (F_g + J_Pᵀ λ_P) + J̇_P v = 0.

Its normal component ``λn,P`` slows time down (eq. 52, 63)::

    ds/dt = 1 + λn,P,   ṫ = dt/ds = 1 / (1 + λn,P),
    dΛn,P/ds = λn,P / (1 + λn,P),

and the impulse integral has the closed form
``Λn,P(t) = m g t + m (ẏ(t) − ẏ(0))`` (vertical momentum balance), which we
use instead of a quadrature.  The pendulum ends when ``θ`` returns to 0,
with ``θ̇ = −θ̇₀`` by energy conservation; the apex (eq. 57) is

    θ* = asin((I + m‖r‖²) θ̇₀² / (2 m g ‖r‖) + sin α) − α ≈ 0.2208 rad.

(The paper prints ``− sin α`` inside the arcsine; with that sign the
argument would be −0.82 and θ* negative.  ``+ sin α`` is the energy balance
``m g ‖r‖ (sin(θ* + α) − sin α) = ½ (I + m‖r‖²) θ̇₀²`` and gives the paper's
0.22, so the minus is a typo.)

**Impact phase** (time frozen, eq. 66-67).  The other corner Q arrives with
zero tangential velocity; we apply the *sticking* planar rigid-body impulse
law (eq. 30 restricted to Q, both rows)::

    0 = J_Q (v⁻ + M⁻¹ J_Qᵀ Λ_Q),   J_Q = [J_t,Q; J_n,Q]  (2 × 3),

check ``Λn,Q ≥ 0`` and ``|Λt,Q| ≤ μ Λn,Q`` (``|Λt|``/Λn = 0.3/0.85 ≈ 0.35 < 1),
and traverse ``v(s) = v⁻ + (s − s₁)/Λn,Q · M⁻¹ J_Qᵀ Λ_Q`` for
``s ∈ [s₁, s₁ + Λn,Q]`` (so ``dΛn,Q/ds = 1``, ``ṫ = 0``).  The block then
pivots on Q, the mirror image of the start, with ``θ̇⁺ = 0.7 θ̇⁻`` (eq. 68:
``(I − m‖r‖² cos 2α) / (I + m‖r‖²) = (5/12 + 3/4) / (5/3) = 0.7`` exactly).

**Accumulation.**  Half-cycle ``k`` starts with ``|θ̇| = ω_k = 0.7ᵏ``.  We
integrate pendulum phases numerically (DOP853, tolerances scaled with
``ω_k``) while ``ω_k > tail_omega``; below it the pendulum is a uniformly
decelerated rotation to relative accuracy ``O(ω²)``, its duration is
``T(ω) = 2 ω (I + m‖r‖²) / (m g r_x(0))`` and the remaining half-cycles are
summed as a geometric series.  Per half-cycle
``Δs = (1 + m g) T(ω) − 2 m r_x(0) ω + Λn,Q(ω)`` with ``Λn,Q = 0.85 m ω``,
hence ``s* = (1 + m g) t* − 0.15 m Σ ω_k = (1 + m g) t* − 0.5``.

Results (``zeno_block()``): θ* = 0.2208 rad, ratio 0.7, t* = 2.6714 s,
s* = 28.378, matching the paper's ≈ 0.22, 0.7, ≈ 2.67, ≈ 28.4 with the
definitions above (s = t + Λn,A + Λn,B, as in the paper's eq. 63 and 69).
The paper's eq. 69-70 are upper bounds (``t* ≤ t₁ / (1 − 0.7) = 3.29`` s,
since a pendulum phase started at ``0.7 ω`` lasts *at most* 0.7 times as
long); its 2.67 and 28.4 are, like ours, computed values.  Eq. 63's
``ds = ṫ + λn,A`` is a typo for ``ds = (1 + λn,A) dt``, which is what its
integral form states and what we use.
Past ``s*`` the block rests on both corners with ``λn = m g / 2`` each and
``t(s) = t* + (s − s*) / (1 + m g)``.

Sign convention: θ is the block's angle with the horizontal,
counter-clockwise positive.  It is ≥ 0 while pivoting on A and ≤ 0 while
pivoting on B (the mirror phases), with ``|θ| ≤ θ*`` throughout.

Examples
--------
>>> from reach.analysis.zeno import zeno_block
>>> res = zeno_block(n_pendulum=50)
>>> round(res.apex_angle, 2), round(res.rate_ratio, 3), round(res.accumulation_time, 2)
(0.22, 0.7, 2.67)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from reach.models.block import RigidBlock

__all__ = [
    "ZenoBlock",
    "ZenoTrajectory",
    "zeno_block",
    "pivot_contact_force",
    "sticking_impact",
]

#: Phase codes stored in :attr:`ZenoTrajectory.phase`.
PENDULUM_A, IMPACT_B, PENDULUM_B, IMPACT_A, REST = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class ZenoBlock(RigidBlock):
    """Rigid block of the Zeno example (paper §4.3); corners A (left), B (right): :class:`~reach.models.block.RigidBlock`."""

    @property
    def arm(self) -> float:
        """``‖r‖``: distance from a bottom corner to the centre of mass."""
        return 0.5 * np.hypot(self.width, self.height)

    @property
    def pivot_inertia(self) -> float:
        """``I + m ‖r‖²``: inertia about a bottom corner."""
        return self.inertia + self.mass * self.arm**2

    @property
    def alpha(self) -> float:
        """``α = atan(h / w)``."""
        return float(np.arctan2(self.height, self.width))

    def corner_offset(self, theta: float, corner: int) -> np.ndarray:
        """World-frame offset from the centre to corner 0 (A) or 1 (B), shape (2,)."""
        c = np.array([(-0.5 if corner == 0 else 0.5) * self.width, -0.5 * self.height])
        ct, st = np.cos(theta), np.sin(theta)
        return np.array([ct * c[0] - st * c[1], st * c[0] + ct * c[1]])

    def jacobian(self, theta: float, corner: int) -> np.ndarray:
        """Contact Jacobian ``[J_t; J_n]`` of a corner, shape (2, 3).

        Tangent t = (1, 0), normal n = (0, 1) (floor y = 0).
        """
        d = self.corner_offset(theta, corner)
        return np.array([[1.0, 0.0, -d[1]], [0.0, 1.0, d[0]]])

    def energy(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Kinetic + gravitational energy; q, v of shape (..., 3); returns shape (...)."""
        q, v = np.asarray(q), np.asarray(v)
        kinetic = 0.5 * (self.mass * (v[..., 0] ** 2 + v[..., 1] ** 2) + self.inertia * v[..., 2] ** 2)
        return kinetic + self.mass * self.gravity * q[..., 1]


def pivot_contact_force(block: ZenoBlock, q, v, corner: int) -> np.ndarray:
    """Contact force keeping a corner at rest (paper eq. 61-62).

    Parameters
    ----------
    block : ZenoBlock
    q, v : array_like, shape (3,)
        Configuration ``(x, y, θ)`` and velocity.
    corner : {0, 1}
        0 for A, 1 for B.

    Returns
    -------
    ndarray, shape (2,)
        ``(λt, λn)`` solving ``J M⁻¹ (F_g + Jᵀ λ) + J̇ v = 0``.
    """
    J = block.jacobian(q[2], corner)
    Minv = np.linalg.inv(block.mass_matrix)
    gravity_force = np.array([0.0, -block.mass * block.gravity, 0.0])
    jdot_v = -(v[2] ** 2) * block.corner_offset(q[2], corner)  # -ω² d, (x, y)
    return np.linalg.solve(J @ Minv @ J.T, -(J @ Minv @ gravity_force + jdot_v))


def sticking_impact(block: ZenoBlock, q, v, corner: int):
    """Impulse bringing a corner to rest (paper eq. 66), with its checks.

    Parameters
    ----------
    block : ZenoBlock
    q, v : array_like, shape (3,)
        Configuration and pre-impact velocity.
    corner : {0, 1}

    Returns
    -------
    impulse : ndarray, shape (2,)
        ``(Λt, Λn)`` with ``J (v + M⁻¹ Jᵀ Λ) = 0``.
    v_post : ndarray, shape (3,)
    in_cone : bool
        ``Λn ≥ 0`` and ``|Λt| ≤ μ Λn``.
    """
    J = block.jacobian(q[2], corner)
    Minv = np.linalg.inv(block.mass_matrix)
    impulse = np.linalg.solve(J @ Minv @ J.T, -J @ v)
    v_post = v + Minv @ J.T @ impulse
    in_cone = bool(impulse[1] >= 0.0 and abs(impulse[0]) <= block.mu * impulse[1] * (1 + 1e-12))
    return impulse, v_post, in_cone


@dataclass(frozen=True)
class ZenoTrajectory:
    """Solution ``x̄(s)`` of the Zeno rocking block on a grid in ``s``.

    All grid arrays have shape (n,) (``q``, ``v``: (n, 3)) and are ordered by
    ``s``; phase boundaries appear twice (once per side) so that the
    discontinuous rates plot as vertical jumps.

    Attributes
    ----------
    s, t : ndarray
        Integration variable and time ``t(s)``.
    theta, theta_dot : ndarray
        Block angle and angular rate.
    t_rate, lambda_a, lambda_b : ndarray
        Rates ``ṫ = dt/ds``, ``dΛn,A/ds`` and ``dΛn,B/ds`` (they sum to 1).
    impulse_a, impulse_b : ndarray
        Accumulated normal impulses ``Λn,A(s)``, ``Λn,B(s)``.
    q, v : ndarray, shape (n, 3)
    energy : ndarray
        Kinetic + gravitational energy.
    phase : ndarray of int
        ``PENDULUM_A``, ``IMPACT_B``, ``PENDULUM_B``, ``IMPACT_A`` or ``REST``.
    apex_angle : float
        θ* of the first pendulum phase, rad.
    rate_ratio : float
        ``θ̇⁺ / θ̇⁻`` at an impact (the same for every impact to ~1e-12).
    accumulation_time, accumulation_s : float
        ``t*`` and ``s*`` of the Zeno point (numerical half-cycles plus the
        geometric tail).
    half_cycle_omega, half_cycle_time, half_cycle_s : ndarray, shape (k,)
        Per numerically integrated half-cycle: starting ``|θ̇|``, duration in
        t and in s.
    impact_ratios : ndarray, shape (k,)
        ``θ̇⁺ / θ̇⁻`` of each impact.
    impact_friction_ratios, pendulum_friction_ratios : ndarray, shape (k,)
        ``|Λt|/Λn`` of each impact and ``max |λt|/λn`` over each pendulum.
    energy_before, energy_after : ndarray, shape (k,)
        Mechanical energy just before and after each impact.
    tail_time, tail_s : float
        Contribution of the analytically summed half-cycles.
    """

    s: np.ndarray
    t: np.ndarray
    theta: np.ndarray
    theta_dot: np.ndarray
    t_rate: np.ndarray
    lambda_a: np.ndarray
    lambda_b: np.ndarray
    impulse_a: np.ndarray
    impulse_b: np.ndarray
    q: np.ndarray
    v: np.ndarray
    energy: np.ndarray
    phase: np.ndarray
    apex_angle: float
    rate_ratio: float
    accumulation_time: float
    accumulation_s: float
    half_cycle_omega: np.ndarray
    half_cycle_time: np.ndarray
    half_cycle_s: np.ndarray
    impact_ratios: np.ndarray
    impact_friction_ratios: np.ndarray
    pendulum_friction_ratios: np.ndarray
    energy_before: np.ndarray
    energy_after: np.ndarray
    tail_time: float
    tail_s: float
    block: ZenoBlock = field(default_factory=ZenoBlock)


def _pendulum(block: ZenoBlock, omega0: float, pivot: int, n_points: int):
    """Integrate one pendulum phase about ``pivot`` from θ = 0, θ̇ = ±omega0."""
    sign = 1.0 if pivot == 0 else -1.0
    corner_body = np.array([(-0.5 if pivot == 0 else 0.5) * block.width, -0.5 * block.height])

    def rhs(_, y):
        ct, st = np.cos(y[0]), np.sin(y[0])
        r_x = -(ct * corner_body[0] - st * corner_body[1])
        return [y[1], -block.mass * block.gravity * r_x / block.pivot_inertia]

    def back_flat(_, y):
        return y[0]

    def apex(_, y):
        return y[1]

    back_flat.terminal = True
    back_flat.direction = -sign
    # Tolerances scaled with the amplitude: θ ~ ω², θ̇ ~ ω.
    atol = [1e-15 * omega0**2, 1e-15 * omega0]
    t_guess = 10.0 * omega0 * block.pivot_inertia / (block.mass * block.gravity * 0.5 * block.width)
    sol = solve_ivp(rhs, (0.0, t_guess), [0.0, sign * omega0], method="DOP853", rtol=1e-12,
                    atol=atol, events=(back_flat, apex), dense_output=True)
    if sol.status != 1:
        raise RuntimeError(f"pendulum phase did not return to θ = 0: {sol.message}")
    duration = float(sol.t_events[0][0])
    tau = np.linspace(0.0, duration, n_points)
    theta, theta_dot = sol.sol(tau)
    theta[0], theta_dot[0] = 0.0, sign * omega0
    theta[-1] = 0.0
    apex_angle = float(abs(sol.y_events[1][0][0]))
    return duration, tau, theta, theta_dot, apex_angle


def _pivot_state(block: ZenoBlock, pivot_x: float, theta, theta_dot, pivot: int):
    """q, v (shape (n, 3)) of the block rotating about a fixed corner."""
    q = np.empty((len(theta), 3))
    v = np.empty_like(q)
    for i, (a, b) in enumerate(zip(theta, theta_dot)):
        r = -block.corner_offset(a, pivot)
        q[i] = (pivot_x + r[0], r[1], a)
        v[i] = (-b * r[1], b * r[0], b)
    return q, v


def _impact_piece(block, q, v, impulse_q, other, s_start, t_at, big_a, big_b, n_impact):
    """The grid of one time-frozen impact at corner ``other``: s, t, q, v, rates, impulses, phase."""
    frac = np.linspace(0.0, 1.0, n_impact)
    dv = np.linalg.inv(block.mass_matrix) @ block.jacobian(q[2], other).T @ impulse_q
    n = len(frac)
    one, zero = np.ones(n), np.zeros(n)
    return (s_start + frac * impulse_q[1], np.full(n, t_at), np.repeat(q[None], n, 0), v + frac[:, None] * dv,
            zero, one if other == 0 else zero, one if other == 1 else zero,
            big_a + (frac * impulse_q[1] if other == 0 else zero),
            big_b + (frac * impulse_q[1] if other == 1 else zero),
            np.full(n, 3 if other == 0 else 1))


def _geometric_tail(block, omega, pivot, big_a, big_b, ratios, durations_s, durations_t, omegas):
    """Sum the half-cycles below the cut-off analytically: (tail time, tail s, rate ratio, Lambda_A, Lambda_B).

    Uniformly decelerated pendulum ``T(omega) = 2 omega I_P / (m g r_x(0))``; each
    impact scales omega by the measured ratio; the tail's impulse is split
    between the corners (even half-cycles pivot on ``pivot``, odd on the other).
    """
    m, g = block.mass, block.gravity
    ratio = float(np.mean(ratios))
    r_x0 = 0.5 * block.width
    tail_omega_sum = omega / (1.0 - ratio)
    tail_time = 2.0 * block.pivot_inertia / (m * g * r_x0) * tail_omega_sum
    # Λn,Q / ω of the impacts (homogeneous in ω; 0.85 m for the paper's block).
    impact_per_omega = float(np.mean([(ds - (1 + m * g) * dt + 2 * m * r_x0 * w) / w
                                      for ds, dt, w in zip(durations_s, durations_t, omegas)]))
    tail_s = (1 + m * g) * tail_time + (impact_per_omega - 2 * m * r_x0) * tail_omega_sum
    pend = (m * g * 2.0 * block.pivot_inertia / (m * g * r_x0) - 2 * m * r_x0) * omega
    even, odd = 1.0 / (1.0 - ratio**2), ratio / (1.0 - ratio**2)
    tail_pivot = pend * even + impact_per_omega * omega * odd
    tail_other = pend * odd + impact_per_omega * omega * even
    big_a += tail_pivot if pivot == 0 else tail_other
    big_b += tail_pivot if pivot == 1 else tail_other
    return tail_time, tail_s, ratio, big_a, big_b


def _rest_piece(block, pivot, pivot_x, t_star, s_star, big_a, big_b, rest_time):
    """The resting continuation past the accumulation point: λn = m g / 2 at each corner."""
    m, g = block.mass, block.gravity
    tau = np.linspace(0.0, rest_time, 20)
    q_rest = np.array([pivot_x + (0.5 if pivot == 0 else -0.5) * block.width, 0.5 * block.height, 0.0])
    n = len(tau)
    half = 0.5 * m * g
    return (s_star + (1 + m * g) * tau, t_star + tau, np.repeat(q_rest[None], n, 0),
            np.zeros((n, 3)), np.full(n, 1 / (1 + m * g)), np.full(n, half / (1 + m * g)),
            np.full(n, half / (1 + m * g)), big_a + half * tau, big_b + half * tau, np.full(n, REST))


def zeno_block(omega0: float = 1.0, *, block: ZenoBlock | None = None, n_pendulum: int = 200,
               n_impact: int = 20, tail_omega: float = 1e-6, rest_time: float = 0.5,
               max_plot_half_cycles: int = 40) -> ZenoTrajectory:
    """Construct the Zeno solution of the rocking block (paper §4.3, Fig. 8).

    Parameters
    ----------
    omega0 : float
        Initial angular rate about A, rad/s (paper: 1).
    block : ZenoBlock, optional
        Block data; defaults to the paper's.
    n_pendulum, n_impact : int
        Grid points per pendulum phase and per impact phase.
    tail_omega : float
        Half-cycles starting below ``tail_omega · omega0`` are summed
        analytically (small-amplitude limit, relative error O(ω²)).
    rest_time : float
        Duration (in t) of the resting continuation appended after ``s*``.
    max_plot_half_cycles : int
        Half-cycles stored on the grid (later ones are too small to see);
        the summary numbers always use every half-cycle.

    Returns
    -------
    ZenoTrajectory
    """
    block = block or ZenoBlock()
    if not np.isfinite(omega0) or omega0 <= 0:
        raise ValueError(f"`omega0` must be a positive finite rate; got {omega0!r}.")
    m, g = block.mass, block.gravity
    pieces, omegas, durations_t, durations_s = [], [], [], []
    ratios, impact_mu, pendulum_mu, e_before, e_after = [], [], [], [], []
    t0 = s0 = big_a = big_b = 0.0
    pivot, pivot_x, omega, apex, k = 0, -0.5 * block.width, omega0, None, 0
    while omega > tail_omega * omega0:
        duration, tau, theta, theta_dot, apex_k = _pendulum(block, omega, pivot, n_pendulum)
        q, v = _pivot_state(block, pivot_x, theta, theta_dot, pivot)
        forces = np.array([pivot_contact_force(block, qi, vi, pivot) for qi, vi in zip(q, v)])
        lam_n = forces[:, 1]
        pendulum_mu.append(np.max(np.abs(forces[:, 0]) / lam_n))
        if np.any(lam_n <= 0):
            raise RuntimeError("pivot corner would lift off during the pendulum phase")
        # Λn,P(τ) = m g τ + m (ẏ(τ) − ẏ(0)), exact vertical momentum balance.
        impulse = m * g * tau + m * (v[:, 1] - v[0, 1])
        if apex is None:
            apex = apex_k
        s_grid = s0 + tau + impulse
        zero = np.zeros_like(tau)
        ia = big_a + (impulse if pivot == 0 else zero)
        ib = big_b + (impulse if pivot == 1 else zero)
        rate = lam_n / (1.0 + lam_n)
        if k < max_plot_half_cycles:
            pieces.append((s_grid, t0 + tau, q, v, 1.0 / (1.0 + lam_n),
                           rate if pivot == 0 else zero, rate if pivot == 1 else zero,
                           ia + zero, ib + zero, np.full(len(tau), 2 * pivot)))
        # Time-frozen sticking impact at the other corner.
        other = 1 - pivot
        impulse_q, v_post, in_cone = sticking_impact(block, q[-1], v[-1], other)
        if not in_cone:
            raise RuntimeError(f"impact impulse {impulse_q} is outside the friction cone")
        if block.jacobian(q[-1, 2], pivot)[1] @ v_post <= 0:
            raise RuntimeError("the old pivot does not lift off after the impact")
        impact_mu.append(abs(impulse_q[0]) / impulse_q[1])
        ratios.append(v_post[2] / v[-1, 2])
        e_before.append(block.energy(q[-1], v[-1]))
        e_after.append(block.energy(q[-1], v_post))
        big_a, big_b = ia[-1], ib[-1]
        piece = _impact_piece(block, q[-1], v[-1], impulse_q, other, s_grid[-1], t0 + duration, big_a, big_b,
                              n_impact)
        s_imp = piece[0]
        if k < max_plot_half_cycles:
            pieces.append(piece)
        if other == 0:
            big_a += impulse_q[1]
        else:
            big_b += impulse_q[1]
        omegas.append(omega)
        durations_t.append(duration)
        durations_s.append(s_imp[-1] - s0)
        t0 += duration
        s0 = s_imp[-1]
        pivot_x = q[-1, 0] + block.corner_offset(0.0, other)[0]
        pivot, omega = other, abs(v_post[2])
        k += 1

    tail_time, tail_s, ratio, big_a, big_b = _geometric_tail(block, omega, pivot, big_a, big_b, ratios,
                                                             durations_s, durations_t, omegas)
    t_star, s_star = t0 + tail_time, s0 + tail_s
    pieces.append(_rest_piece(block, pivot, pivot_x, t_star, s_star, big_a, big_b, rest_time))
    cols = [np.concatenate(c) for c in zip(*pieces)]
    s, t, q, v, t_rate, lam_a, lam_b, imp_a, imp_b, phase = cols
    return ZenoTrajectory(
        s=s, t=t, theta=q[:, 2], theta_dot=v[:, 2], t_rate=t_rate, lambda_a=lam_a, lambda_b=lam_b,
        impulse_a=imp_a, impulse_b=imp_b, q=q, v=v, energy=block.energy(q, v),
        phase=phase.astype(int), apex_angle=apex, rate_ratio=ratio,
        accumulation_time=float(t_star), accumulation_s=float(s_star),
        half_cycle_omega=np.array(omegas), half_cycle_time=np.array(durations_t),
        half_cycle_s=np.array(durations_s), impact_ratios=np.array(ratios),
        impact_friction_ratios=np.array(impact_mu), pendulum_friction_ratios=np.array(pendulum_mu),
        energy_before=np.array(e_before), energy_after=np.array(e_after),
        tail_time=float(tail_time), tail_s=float(tail_s), block=block)
