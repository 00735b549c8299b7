"""Contact-aware flow between impacts, with the next impact located by event detection.

A planar system (:class:`reach.models.planar.dynamics.PlanarDynamics`) moves with
some contacts in *stance*: each sticks (normal and tangential velocity held at
zero) or slides (normal velocity held, Coulomb friction ``-mu s lambda_n``
along the sliding direction ``s``); the others are free.  With the stance
rows ``A`` (held velocities) and force rows ``B``

    ``M vdot = k(t, q, v) + B^T lambda``,   ``A vdot = -Adot v - 2 a A v - a^2 phi_A``

(Baumgarte terms with rate ``a`` keep the held contacts on the ground; ``Adot
v`` is exact for a planar model, :func:`reach.models.planar.motion.contact_rates`, and a central
difference along v for a system without ``contact_rates``).  :func:`flow` integrates this with
:func:`scipy.integrate.solve_ivp` and its event location:

* **impact** -- a free contact's signed distance reaches 0 from above (a
  ``guard(q, v, name)`` may veto it, e.g. a compass gait's swing foot scuffing
  mid-stance; the contact is then ignored until it is above ground again, as
  are free contacts touching when the flow starts);
* **lift-off** -- a stance contact's normal force falls to 0: it becomes free;
* **slip** -- a sticking contact's force leaves the friction cone: it slides,
  opposite to the friction force;
* **stick** -- a sliding contact's sliding velocity reaches 0: it sticks (or
  slides the other way if the cone cannot hold it);
* **rest** -- a flow starts at rest (kinetic energy below ``rest_energy``
  and no acceleration), or **timeout** at ``t_max``.

Mode switches continue the flow; an impact, rest or timeout ends it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["flow", "FlowOptions", "FlowResult", "stance_from_velocity", "STICK"]

#: Mode of a sticking stance contact (sliding ones are +1 or -1: the sign of their sliding velocity).
STICK = 0
#: A free contact that starts touching is an impact candidate again once it is this far above the ground,
#: or once it sinks this far below it (m): a root at the flow's very start is never taken for an impact.
#: A contact the guard vetoed waits until it is this far above the ground again.
REARM = 1e-9
_FD = 1e-7


class FlowResult(NamedTuple):
    """Where a flow ended.

    Attributes
    ----------
    kind : {"impact", "rest", "timeout"}
    t : float
    q, v : ndarray
        The state at the end (for an impact: just before it).
    stance : dict of int -> int
        Stance modes at the end.
    impacting : tuple of int
        The contacts that reached the ground (impact only).
    times : ndarray
        Times of the dense path (for plotting).
    path : ndarray, shape (len(times), nq + nv)
    switches : list of (t, str)
        Mode switches on the way (``"lift A"``, ``"slip B"``, ``"stick B"``).
    """

    kind: str
    t: float
    q: np.ndarray
    v: np.ndarray
    stance: dict
    impacting: tuple
    times: np.ndarray
    path: np.ndarray
    switches: list


def stance_from_velocity(system, q, v, *, tol):
    """Stance modes of the contacts touching at q (``phi <= 1e-9``) with normal velocity within tol of 0."""
    geometry = system.contacts(q)
    stance = {}
    for c in np.flatnonzero(geometry.phi <= 1e-9):
        vn, vt = geometry.Jn[c] @ v, geometry.Jt[c, 0] @ v
        if abs(vn) <= tol:
            stance[int(c)] = STICK if abs(vt) <= tol else int(np.sign(vt))
    return stance


class _Stance:
    """The constrained dynamics of one stance: accelerations and contact forces."""

    def __init__(self, system, stance, baumgarte):
        self.system, self.stance, self.a = system, dict(stance), float(baumgarte)
        self._key, self._value = None, None

    def solve(self, t, q, v):
        """``(vdot, forces)``, remembered for the last state (events ask at the solver's points again)."""
        key = (t, q.tobytes(), v.tobytes(), tuple(sorted(self.stance.items())))
        if key != self._key:
            self._key, self._value = key, self._solve(t, q, v)
        return self._value

    def _rows(self, geometry):
        A, B, phi = [], [], []
        for c, mode in sorted(self.stance.items()):
            Jn, Jt = geometry.Jn[c], geometry.Jt[c, 0]
            A.append(Jn)
            B.append(Jn if mode == STICK else Jn - geometry.mu[c] * mode * Jt)
            phi.append(geometry.phi[c])
            if mode == STICK:
                A.append(Jt)
                B.append(Jt)
                phi.append(0.0)
        nv = self.system.nv
        return np.array(A).reshape(-1, nv), np.array(B).reshape(-1, nv), np.array(phi)

    def _held_rates(self, q, v):
        """``Adot v``: the system's exact contact rates (``contact_rates``), else a central difference along v."""
        if hasattr(self.system, "contact_rates"):
            normal, tangent = self.system.contact_rates(q, v)
            return np.array([rate for c, mode in sorted(self.stance.items())
                             for rate in ((normal[c], tangent[c]) if mode == STICK else (normal[c],))])
        speed = max(float(np.max(np.abs(v))), 1e-12)
        eps = _FD / speed
        Ap, _, _ = self._rows(self.system.contacts(q + eps * v))
        Am, _, _ = self._rows(self.system.contacts(q - eps * v))
        return (Ap - Am) @ v / (2 * eps)

    def _solve(self, t, q, v):
        """``(vdot, forces)``; forces holds ``(lambda_n, lambda_t)`` per stance contact (lambda_t 0 when sliding)."""
        system = self.system
        M = system.mass_matrix(q)
        k = system.forces(t, q, v)
        if not self.stance:
            return np.linalg.solve(M, k), {}
        geometry = system.contacts(q)
        A, B, phi = self._rows(geometry)
        Adot_v = self._held_rates(q, v)
        Minv_k = np.linalg.solve(M, k)
        Minv_B = np.linalg.solve(M, B.T)
        rhs = -Adot_v - 2 * self.a * (A @ v) - self.a ** 2 * phi - A @ Minv_k
        lam = np.linalg.lstsq(A @ Minv_B, rhs, rcond=None)[0]
        forces, r = {}, 0
        for c, mode in sorted(self.stance.items()):
            forces[c] = (lam[r], lam[r + 1] if mode == STICK else 0.0)
            r += 2 if mode == STICK else 1
        return Minv_k + Minv_B @ lam, forces


def _events(system, dyn, stance, free, ignored, vetoed, nq):
    """solve_ivp event functions, each with a ``tag`` (kind, contact)."""
    events = []

    def make(fun, terminal, direction, tag):
        fun.terminal, fun.direction, fun.tag = terminal, direction, tag
        events.append(fun)

    for c in free:
        if c in ignored or c in vetoed:
            make(lambda t, y, c=c: system.contacts(y[:nq]).phi[c] - REARM, True, 1, ("rearm", c))
            if c not in vetoed:  # touching at the start: an impact once it sinks REARM below the ground
                make(lambda t, y, c=c: system.contacts(y[:nq]).phi[c] + REARM, True, -1, ("impact", c))
        else:
            make(lambda t, y, c=c: system.contacts(y[:nq]).phi[c], True, -1, ("impact", c))
    for c, mode in stance.items():
        make(lambda t, y, c=c: dyn.solve(t, y[:nq], y[nq:])[1][c][0], True, -1, ("lift", c))
        if mode == STICK:
            make(lambda t, y, c=c: _cone_margin(system, dyn, t, y, nq, c), True, -1, ("slip", c))
        else:
            make(lambda t, y, c=c, s=mode: s * (system.contacts(y[:nq]).Jt[c, 0] @ y[nq:]), True, -1, ("stick", c))
    return events


def _cone_margin(system, dyn, t, y, nq, c):
    lam_n, lam_t = dyn.solve(t, y[:nq], y[nq:])[1][c]
    return system.contacts(y[:nq]).mu[c] * lam_n - abs(lam_t)


def _consistent(system, dyn, t, q, v, stance, switches):
    """Release stance contacts that pull, and let sticking ones that leave the cone slide, before flowing."""
    for _ in range(2 * len(stance) + 1):
        _, forces = dyn.solve(t, q, v)
        mu = system.contacts(q).mu
        bad = [c for c, (n, tg) in forces.items() if n < 0]
        if bad:
            stance.pop(bad[0])
            switches.append((t, f"lift {system.contacts(q).names[bad[0]]}"))
        else:
            slip = [c for c, (n, tg) in forces.items() if stance[c] == STICK and abs(tg) > mu[c] * n * (1 + 1e-9)]
            if not slip:
                return stance
            c = slip[0]
            stance[c] = -int(np.sign(forces[c][1]))
            switches.append((t, f"slip {system.contacts(q).names[c]}"))
        dyn.stance = dict(stance)
    return stance


class FlowOptions(NamedTuple):
    """How :func:`flow` integrates: the stance constraints' Baumgarte gain (1/s), the integrator's
    tolerances, the kinetic energy (J) below which the motion has stopped, and the most mode switches."""

    baumgarte: float = 20.0
    rtol: float = 1e-9
    atol: float = 1e-11
    rest_energy: float = 1e-12
    max_switches: int = 100


def flow(system, t0, q0, v0, stance, *, t_max, guard=None, options=FlowOptions()):
    """Flow ``system`` from ``(t0, q0, v0)`` with ``stance`` until the next impact, rest or ``t_max``.

    Parameters
    ----------
    system : PlanarDynamics
    stance : dict of int -> int
        Stance modes by contact index (:data:`STICK`, +1 or -1).
    t_max : float
        Latest time.
    guard : callable, optional
        ``guard(q, v, name) -> bool``: whether a free contact reaching the
        ground at q is an impact (default always).  Free contacts touching at the
        start become impact candidates once they are :data:`REARM` above ground.
    options : FlowOptions
        Tolerances and limits of the integration.

    Returns
    -------
    FlowResult
    """
    baumgarte, rtol, atol, rest_energy, max_switches = options
    if system.contacts(np.asarray(q0, dtype=float)).tangent_dim != 1:
        raise ValueError("flow handles planar systems (one tangent per contact).")
    nq = system.nq
    t, q, v = float(t0), np.array(q0, dtype=float), np.array(v0, dtype=float)
    stance, switches = dict(stance), []
    ignored = {int(c) for c in np.flatnonzero(system.contacts(q).phi <= REARM) if int(c) not in stance}
    vetoed = set()
    times, path = [np.array([t])], [np.concatenate([q, v])[None]]
    for _ in range(max_switches):
        dyn = _Stance(system, stance, baumgarte)
        stance = _consistent(system, dyn, t, q, v, stance, switches)
        if 0.5 * v @ system.mass_matrix(q) @ v <= rest_energy and np.allclose(dyn.solve(t, q, v)[0], 0, atol=1e-9):
            return FlowResult("rest", t, q, v, stance, (), np.concatenate(times), np.vstack(path), switches)
        free = [c for c in range(system.contacts(q).p) if c not in stance]
        events = _events(system, dyn, stance, free, ignored, vetoed, nq)
        sol = solve_ivp(lambda s, y: np.concatenate([y[nq:], dyn.solve(s, y[:nq], y[nq:])[0]]), (t, t_max),
                        np.concatenate([q, v]), method="DOP853", events=events, rtol=rtol, atol=atol,
                        dense_output=False, max_step=0.05)
        times.append(sol.t[1:])
        path.append(sol.y[:, 1:].T)
        t, y = float(sol.t[-1]), sol.y[:, -1]
        q, v = y[:nq].copy(), y[nq:].copy()
        if sol.status < 0:
            raise RuntimeError(f"the flow's integration failed at t = {t:.6g}: {sol.message}")
        if sol.status == 0:
            return FlowResult("timeout", t, q, v, stance, (), np.concatenate(times), np.vstack(path), switches)
        fired = [events[i].tag for i, te in enumerate(sol.t_events) if len(te)]
        kind, c = fired[0]
        names = system.contacts(q).names
        if kind == "impact":
            if guard is not None and not guard(q, v, names[c]):
                vetoed.add(c)
                continue
            geometry = system.contacts(q)
            hit = tuple(int(i) for i in free if i not in vetoed and
                        (i == c or (geometry.phi[i] <= REARM and geometry.Jn[i] @ v < 0)))
            return FlowResult("impact", t, q, v, stance, hit or (c,), np.concatenate(times), np.vstack(path),
                              switches)
        if kind == "rearm":
            ignored.discard(c)
            vetoed.discard(c)
        elif kind == "lift":
            stance.pop(c)
        elif kind == "slip":
            stance[c] = -int(np.sign(dyn.solve(t, q, v)[1][c][1]))
        elif kind == "stick":
            stance[c] = STICK
        switches.append((t, f"{kind} {names[c]}"))
    raise RuntimeError(f"more than {max_switches} mode switches in one flow (chattering?); stopped at t = {t:.6g}.")
