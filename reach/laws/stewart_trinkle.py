"""Stewart & Trinkle's implicit time-stepper for rigid bodies with inelastic contact and Coulomb friction.

One step from ``(q^l, v^l)`` of size h solves for ``v^{l+1}``, normal impulses
``c_n``, friction weights ``beta`` and multipliers ``lambda`` (paper eq. 25-29):

    ``M (v^{l+1} - v^l) = Jn^T c_n + D^T beta + h k(q^l + h v^l / 2, v^l)``
    ``q^{l+1} = q^l (+) h v^{l+1}``
    ``0 <= c_n     _|_  phi(q^{l+1}) (linearised)  >= 0``
    ``0 <= beta    _|_  E lambda + D v^{l+1}       >= 0``
    ``0 <= lambda  _|_  mu c_n - E^T beta          >= 0``

``D`` stacks k friction directions per contact (``+-Jt`` in the plane; k
directions evenly spaced in the tangent plane in space), so the friction
impulse lies in the polyhedral cone and maximises dissipation.  Eliminating
``v^{l+1}`` gives the LCP (29) in ``z = [c_n, beta, lambda]``

    ``N = [[Jn A Jn^T, Jn A D^T, 0], [D A Jn^T, D A D^T, E], [mu, -E^T, 0]]``, ``A = M^-1``,
    ``b = [(phi_hat - Jn d_hat)/h + Jn v_free, D v_free, 0]``, ``v_free = v^l + h A k``,

with the non-penetration constraint linearised about the current estimate
``q_hat`` of ``q^{l+1}`` (``d_hat`` is the velocity-space step from ``q^l`` to
``q_hat``).  It is solved by :func:`reach.problem.lcp.lemke` (jitted, verified against
the original data: the relative complementarity residual is at most 1e-9).

Nonlinear geometry (paper section 3.6): ``q_hat`` starts at the explicit
prediction ``q^l + h v^l``; ``M``, ``Jn``, ``D`` and ``phi`` are evaluated at it;
the solve gives ``q^{l+1}``, which becomes the next ``q_hat``, until the step
stops moving.

Active set (paper section 4): the contacts that pushed at the last step plus
those violated at ``q_hat``; after a solve, any other contact violated at
``q^{l+1}`` is added and the step solved again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from reach.problem.dynamics import select_contacts
from reach.problem.lcp import lemke
from reach.problem.impact import friction_directions_matrix

__all__ = ["SteppingSettings", "StepResult", "TimeSteppingError", "stewart_trinkle_step",
           "friction_basis", "assemble_lcp"]


class TimeSteppingError(RuntimeError):
    """A step whose LCP could not be solved and verified."""


@dataclass(frozen=True)
class SteppingSettings:
    """Settings of the Stewart--Trinkle step.

    Attributes
    ----------
    h : float
        Step size (s).
    friction_directions : int
        Directions k per spatial contact (planar contacts always use 2).
    max_iterations : int
        Fixed-point iterations on the contact geometry per step.
    iteration_tol : float
        The iteration stops when ``q^{l+1}`` moves by at most this fraction of
        the step ``h |v^{l+1}|`` (or by 1e-15 in absolute terms).
    penetration_tol : float
        A contact outside the active set is added when ``phi(q^{l+1})`` falls
        below ``-penetration_tol`` (m).
    """

    h: float
    friction_directions: int = 8
    max_iterations: int = 20
    iteration_tol: float = 1e-10
    penetration_tol: float = 1e-12

    def __post_init__(self):
        if not (np.isfinite(self.h) and self.h > 0):
            raise ValueError(f"the step `h` must be finite and > 0; got {self.h!r}.")
        if int(self.friction_directions) != self.friction_directions or not 4 <= self.friction_directions <= 64:
            raise ValueError(f"`friction_directions` must be an integer in [4, 64]; got {self.friction_directions!r}.")
        if int(self.max_iterations) != self.max_iterations or self.max_iterations < 1:
            raise ValueError(f"`max_iterations` must be a positive integer; got {self.max_iterations!r}.")
        for name in ("iteration_tol", "penetration_tol"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"`{name}` must be finite and >= 0; got {value!r}.")


class StepResult(NamedTuple):
    """One step: the new state, the impulses of every contact candidate, and how it was solved.

    Attributes
    ----------
    q, v : ndarray
        ``q^{l+1}``, ``v^{l+1}``.
    normal : ndarray, shape (p,)
        Normal impulse ``c_n`` of every candidate (0 outside the active set).
    friction : ndarray, shape (p, dt)
        Friction impulse of every candidate in its tangent coordinates.
    multiplier : ndarray, shape (p,)
        ``lambda`` (about the sliding speed) of every candidate.
    active : ndarray of int
        Candidates in the final LCP.
    residual : float
        Relative complementarity residual of the LCP answer (0 if no contact).
    iterations : int
        Fixed-point iterations used.
    converged : bool
        Whether the fixed-point iteration met ``iteration_tol``.
    work : float
        Work of the applied forces outside the potential energy over the step.
    """

    q: np.ndarray
    v: np.ndarray
    normal: np.ndarray
    friction: np.ndarray
    multiplier: np.ndarray
    active: np.ndarray
    residual: float
    iterations: int
    converged: bool
    work: float


def friction_basis(tangent_dim, k):
    """Friction directions (dt, k): ``[+1, -1]`` in the plane, k evenly spaced unit vectors in space."""
    if tangent_dim == 1:
        return np.array([[1.0, -1.0]])
    return friction_directions_matrix(k)


def assemble_lcp(M, contacts, v, k_force, d_hat, h, directions):
    """The LCP (N, b) of one step and the maps back to velocities (paper eq. 29).

    Parameters
    ----------
    M : ndarray (nv, nv)
    contacts : ContactJacobians
        The active contacts evaluated at ``q_hat``.
    v, k_force : ndarray (nv,)
        ``v^l`` and the smooth force.
    d_hat : ndarray (nv,)
        Velocity-space step from ``q^l`` to ``q_hat``.
    h : float
    directions : ndarray (dt, k)

    Returns
    -------
    N : ndarray (s (2 + k), s (2 + k))
    b : ndarray (s (2 + k),)
    impulse_map : ndarray (nv, s (1 + k))
        ``M^-1 [Jn; JD]^T``: the velocity change of ``z[: s (1 + k)]``.
    v_free : ndarray (nv,)
    """
    s, kd = contacts.p, directions.shape[1]
    JD = np.einsum("pdn,dk->pkn", contacts.Jt, directions).reshape(s * kd, -1)
    Jbar = np.vstack([contacts.Jn, JD])
    impulse_map = np.linalg.solve(M, Jbar.T)
    v_free = v + h * np.linalg.solve(M, k_force)
    n = s * (2 + kd)
    N = np.zeros((n, n))
    N[:s + s * kd, :s + s * kd] = Jbar @ impulse_map
    E = np.kron(np.eye(s), np.ones((kd, 1)))
    N[s:s + s * kd, s + s * kd:] = E
    N[s + s * kd:, :s] = np.diag(contacts.mu)
    N[s + s * kd:, s:s + s * kd] = -E.T
    b = np.zeros(n)
    b[:s] = (contacts.phi - contacts.Jn @ d_hat) / h + contacts.Jn @ v_free
    b[s:s + s * kd] = JD @ v_free
    return N, b, impulse_map, v_free


def _solve(N, b, seed):
    """Lemke on LCP(N, b), retrying with random covering vectors; TimeSteppingError if none verifies."""
    result = lemke(N, b)
    rng = np.random.default_rng(seed)
    for _ in range(8):
        if result.success:
            return result
        result = lemke(N, b, covering=rng.uniform(0.5, 2.0, b.shape[0]))
    if result.success:
        return result
    raise TimeSteppingError(f"the step LCP (n = {b.shape[0]}) could not be solved: {result.message}.")


def _solve_active(system, q, v, k_force, q_hat, active, h, settings):
    """Solve the step with the geometry at ``q_hat``, growing the active set until nothing else penetrates."""
    geometry = system.contacts(q_hat)
    M = system.mass_matrix(q_hat)
    d_hat = system.displacement(q, q_hat)
    active = np.union1d(active, np.flatnonzero(geometry.phi <= 0.0)).astype(int)
    while True:
        s = active.size
        if s == 0:
            v_new, z, residual, directions = v + h * np.linalg.solve(M, k_force), np.zeros(0), 0.0, None
        else:
            chosen = select_contacts(geometry, active)
            directions = friction_basis(geometry.tangent_dim, settings.friction_directions)
            N, b, impulse_map, v_free = assemble_lcp(M, chosen, v, k_force, d_hat, h, directions)
            solved = _solve(N, b, seed=s)
            z = solved.z
            v_new = v_free + impulse_map @ z[:impulse_map.shape[1]]
            residual = solved.residual
        q_new = system.integrate(q, v_new, h)
        phi_new = system.contacts(q_new).phi
        violated = np.setdiff1d(np.flatnonzero(phi_new < -settings.penetration_tol), active)
        if violated.size == 0:
            return q_new, v_new, active, z, directions, residual, geometry
        active = np.union1d(active, violated).astype(int)


def _impulses(geometry, active, z, directions):
    """Scatter the LCP answer into per-candidate normal, friction (tangent coordinates) and lambda."""
    p, dt = geometry.p, geometry.tangent_dim
    normal, friction, multiplier = np.zeros(p), np.zeros((p, dt)), np.zeros(p)
    s = active.size
    if s:
        kd = directions.shape[1]
        normal[active] = z[:s]
        beta = z[s:s + s * kd].reshape(s, kd)
        friction[active] = beta @ directions.T
        multiplier[active] = z[s + s * kd:]
    return normal, friction, multiplier


def stewart_trinkle_step(system, t, q, v, settings, active=()):
    """One Stewart--Trinkle step of ``system`` (a :class:`reach.problem.dynamics.Dynamics`) from ``(q, v)`` at time t.

    Parameters
    ----------
    system : Dynamics
    t : float
    q, v : ndarray
    settings : SteppingSettings
    active : sequence of int
        Contacts that pushed at the previous step.

    Returns
    -------
    StepResult
    """
    h = settings.h
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    q_mid = system.integrate(q, v, 0.5 * h)
    k_force = system.forces(t, q_mid, v)
    applied = system.applied(t, q_mid, v)
    q_hat = system.integrate(q, v, h)
    active = np.asarray(active, dtype=int)
    converged = False
    for iteration in range(1, settings.max_iterations + 1):
        q_new, v_new, chosen, z, directions, residual, geometry = _solve_active(
            system, q, v, k_force, q_hat, active, h, settings)
        moved = float(np.max(np.abs(system.displacement(q_hat, q_new)), initial=0.0))
        step = float(np.max(np.abs(system.displacement(q, q_new)), initial=0.0))
        q_hat, active = q_new, chosen
        if moved <= settings.iteration_tol * step or moved <= 1e-15:
            converged = True
            break
    normal, friction, multiplier = _impulses(geometry, chosen, z, directions)
    return StepResult(q_new, v_new, normal, friction, multiplier, chosen, float(residual), iteration,
                      converged, float(h * applied @ v_new))
