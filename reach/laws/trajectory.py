"""Run the Stewart--Trinkle time-stepper over an interval: :func:`simulate` and its :class:`Trajectory`.

A trajectory holds, for steps ``l = 0 .. L``: times ``t``, configurations
``q``, velocities ``v`` and energies, and for each step ``l = 1 .. L`` the
impulses of every contact candidate, the LCP residual, the fixed-point
iterations and the work of applied forces.  It saves to and loads from an
``.npz`` archive (plain arrays; the contact names and settings as strings).
"""

from __future__ import annotations

import json

import numpy as np

from reach.files import atomic_write, read_npz
from reach.laws.stewart_trinkle import SteppingSettings, stewart_trinkle_step

__all__ = ["Trajectory", "simulate", "FORMAT"]

#: Format tag of saved trajectories.
FORMAT = "reach-trajectory-1"


class Trajectory:
    """The states and contact impulses of a time-stepping run.

    Attributes
    ----------
    t : ndarray (L + 1,)
    q : ndarray (L + 1, nq)
    v : ndarray (L + 1, nv)
    energy : ndarray (L + 1,)
        Kinetic plus potential energy of each state.
    normal : ndarray (L, p)
        Normal impulse of each contact candidate at each step.
    friction : ndarray (L, p, dt)
        Friction impulse in each candidate's tangent coordinates.
    phi : ndarray (L + 1, p)
        Signed distance of each candidate at each state.
    residual : ndarray (L,)
        Relative LCP residual of each step (0 without contact).
    iterations : ndarray (L,)
        Fixed-point iterations of each step.
    work : ndarray (L,)
        Work of the applied forces outside the potential energy.
    contact_names : tuple of str
    settings : SteppingSettings
    """

    def __init__(self, t, q, v, energy, normal, friction, phi, residual, iterations, work, contact_names, settings):
        self.t, self.q, self.v, self.energy = t, q, v, energy
        self.normal, self.friction, self.phi = normal, friction, phi
        self.residual, self.iterations, self.work = residual, iterations, work
        self.contact_names = tuple(contact_names)
        self.settings = settings

    @property
    def h(self):
        return self.settings.h

    def __len__(self):
        return int(self.t.shape[0] - 1)

    def contact_index(self, name):
        try:
            return self.contact_names.index(name)
        except ValueError:
            raise KeyError(f"no contact {name!r}; the trajectory's are {list(self.contact_names)}.") from None

    def onsets(self, name, *, threshold=0.0):
        """Times at the end of each step where contact ``name`` starts pushing (impulse > threshold after none)."""
        pushing = self.normal[:, self.contact_index(name)] > threshold
        starts = np.flatnonzero(pushing & ~np.r_[False, pushing[:-1]])
        return self.t[starts + 1]

    def energy_excess(self):
        """Per step, ``E^{l+1} - E^l - work``: never above round-off for a dissipative step."""
        return np.diff(self.energy) - self.work

    def save(self, path):
        """Write the trajectory to ``path`` (.npz), atomically."""
        arrays = {name: getattr(self, name) for name in
                  ("t", "q", "v", "energy", "normal", "friction", "phi", "residual", "iterations", "work")}
        arrays["format"] = np.array(FORMAT)
        arrays["contact_names"] = np.array(json.dumps(list(self.contact_names)))
        arrays["settings"] = np.array(json.dumps(self.settings.__dict__))
        atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))
        return path

    @classmethod
    def load(cls, path):
        data = read_npz(path)
        if str(data.get("format", "")) != FORMAT:
            raise ValueError(f"{str(path)!r} is not a reach trajectory (format {FORMAT!r}).")
        settings = SteppingSettings(**json.loads(str(data["settings"])))
        names = json.loads(str(data["contact_names"]))
        return cls(data["t"], data["q"], data["v"], data["energy"], data["normal"], data["friction"], data["phi"],
                   data["residual"], data["iterations"], data["work"], names, settings)

    def __repr__(self):
        return (f"Trajectory({len(self)} steps of h={self.h:g} s to t={self.t[-1]:.4g} s, "
                f"{len(self.contact_names)} contact candidates)")


def simulate(system, q0, v0, h, t_end, *, t0=0.0, settings=None, progress=False, stop=None):
    """Step ``system`` from ``(q0, v0)`` at ``t0`` to ``t_end`` with the Stewart--Trinkle method.

    Parameters
    ----------
    system : reach.problem.dynamics.Dynamics
    q0, v0 : array_like
    h : float
        Step size (s).
    t_end : float
    settings : SteppingSettings, optional
        Other step settings (``h`` is taken from the argument).
    progress : bool
        Show a progress bar.
    stop : callable, optional
        ``stop(step_result) -> bool``: end the run after a step where it is true.

    Returns
    -------
    Trajectory
    """
    settings = SteppingSettings(h=h) if settings is None else SteppingSettings(**{**settings.__dict__, "h": h})
    if not (np.isfinite(t_end) and t_end > t0):
        raise ValueError(f"`t_end` must be finite and after t0 = {t0}; got {t_end!r}.")
    q = np.array(q0, dtype=float)
    v = np.array(v0, dtype=float)
    if q.shape != (system.nq,) or v.shape != (system.nv,):
        raise ValueError(f"q0 and v0 must have shapes ({system.nq},) and ({system.nv},); "
                         f"got {q.shape} and {v.shape}.")
    steps = int(np.ceil((t_end - t0) / h - 1e-9))
    if steps > 10_000_000:
        raise ValueError(f"{steps:,} steps of h = {h:g} s is too many; raise h or shorten the run.")
    record = _Recorder(system, q, v, t0, steps)
    active = np.zeros(0, dtype=int)
    bar = _progress(steps, progress)
    for l in range(steps):
        result = stewart_trinkle_step(system, t0 + l * h, q, v, settings, active)
        q, v = result.q, result.v
        active = result.active[result.normal[result.active] > 0]
        record.add(t0 + (l + 1) * h, result)
        bar.update(1)
        if stop is not None and stop(result):
            break
    bar.close()
    return record.trajectory(settings)


def _progress(total, enabled):
    from tqdm.auto import tqdm
    return tqdm(total=total, disable=not enabled, unit="step", desc="time-stepping", leave=False)


class _Recorder:
    """Preallocated arrays of a run, filled step by step."""

    def __init__(self, system, q, v, t0, steps):
        geometry = system.contacts(q)
        p, dt = geometry.p, geometry.tangent_dim
        self.system, self.names, self.n = system, geometry.names, 0
        self.t = np.empty(steps + 1)
        self.q = np.empty((steps + 1, q.shape[0]))
        self.v = np.empty((steps + 1, v.shape[0]))
        self.energy = np.empty(steps + 1)
        self.phi = np.empty((steps + 1, p))
        self.normal, self.friction = np.zeros((steps, p)), np.zeros((steps, p, dt))
        self.residual, self.iterations, self.work = np.zeros(steps), np.zeros(steps, dtype=int), np.zeros(steps)
        self.t[0], self.q[0], self.v[0], self.phi[0] = t0, q, v, geometry.phi
        self.energy[0] = system.energy(q, v)

    def add(self, t, result):
        l = self.n
        self.t[l + 1], self.q[l + 1], self.v[l + 1] = t, result.q, result.v
        self.energy[l + 1] = self.system.energy(result.q, result.v)
        self.phi[l + 1] = self.system.contacts(result.q).phi
        self.normal[l], self.friction[l] = result.normal, result.friction
        self.residual[l], self.iterations[l], self.work[l] = result.residual, result.iterations, result.work
        self.n += 1

    def trajectory(self, settings):
        n = self.n
        return Trajectory(self.t[:n + 1], self.q[:n + 1], self.v[:n + 1], self.energy[:n + 1], self.normal[:n],
                          self.friction[:n], self.phi[:n + 1], self.residual[:n], self.iterations[:n],
                          self.work[:n], self.names, settings)
