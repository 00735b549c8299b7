"""Measurements on time-stepping runs: events, convergence in h, and the impulses of a collision.

* :func:`convergence_table` -- Stewart & Trinkle's Table 1: for each step h,
  the velocity error ``int ||v^h(t) - v(t)||_inf dt`` and the position error
  ``sup_t ||x^h(t) - x(t)||_inf`` against a reference run (the finest step),
  and the velocity variation ``sum_l ||v^{l+1} - v^l||_inf``;
* :func:`collision_impulses` -- the world-frame impulse each contact applied
  over a window of steps (for the four balls' collision, paper Fig. 6).
"""

from __future__ import annotations

import numpy as np

__all__ = ["convergence_table", "velocity_variation", "collision_impulses", "sample_at", "rest_time"]


def sample_at(trajectory, times):
    """Index of the step whose interval ``(t_{l-1}, t_l]`` holds each time (the implicit step's velocity there)."""
    times = np.asarray(times, dtype=float)
    index = np.searchsorted(trajectory.t, times - 1e-12 * trajectory.h, side="left")
    return np.clip(index, 0, len(trajectory.t) - 1)


def velocity_variation(trajectory):
    """``sum_l ||v^{l+1} - v^l||_inf``."""
    return float(np.sum(np.max(np.abs(np.diff(trajectory.v, axis=0)), axis=1)))


def convergence_table(trajectories, *, positions=None, quaternions=None, t_end=None):
    """Errors and variations of runs with several h against the finest (paper Table 1).

    Parameters
    ----------
    trajectories : dict of float -> Trajectory
        Runs of the same system from the same state; the smallest h is the reference.
    positions : slice, optional
        The entries of q compared for the position error (default all).
    quaternions : slice, optional
        Entries of q holding unit quaternions (4 each, scalar first): the
        largest rotation angle between the runs' orientations (rad,
        ``2 arccos |<q1, q2>|``) joins the position error, as in the paper's
        error over all coordinates.
    t_end : float, optional
        Integrate the velocity error up to here (default the shortest run's end).

    Returns
    -------
    list of dict
        Per h (largest first): ``h``, ``velocity_error``, ``position_error``,
        ``variation`` (the reference's errors are None).
    """
    hs = sorted(trajectories, reverse=True)
    ref = trajectories[hs[-1]]
    t_end = min(tr.t[-1] for tr in trajectories.values()) if t_end is None else float(t_end)
    fine = ref.t[(ref.t > ref.t[0]) & (ref.t <= t_end + 1e-12)]
    positions = slice(None) if positions is None else positions
    rows = []
    for h in hs:
        tr = trajectories[h]
        row = {"h": h, "variation": velocity_variation(tr), "velocity_error": None, "position_error": None}
        if tr is not ref:
            dv = tr.v[sample_at(tr, fine)] - ref.v[sample_at(ref, fine)]
            row["velocity_error"] = float(np.sum(np.max(np.abs(dv), axis=1)) * ref.h)
            grid = tr.t[tr.t <= t_end + 1e-12]
            qa, qb = tr.q[sample_at(tr, grid)], ref.q[sample_at(ref, grid)]
            row["position_error"] = float(np.max(np.abs(qa[:, positions] - qb[:, positions])))
            if quaternions is not None:
                ua = qa[:, quaternions].reshape(len(grid), -1, 4)
                ub = qb[:, quaternions].reshape(len(grid), -1, 4)
                cos = np.clip(np.abs(np.sum(ua * ub, axis=2)), 0.0, 1.0)
                row["position_error"] = max(row["position_error"], float(np.max(2.0 * np.arccos(cos))))
        rows.append(row)
    return rows


def collision_impulses(system, trajectory, steps):
    """World impulses (p, 3) of every contact summed over ``steps``, acting on the first-named body.

    ``system`` must offer ``frames(q)`` (points, normals, tangents), as
    :class:`reach.models.spheres.SphereSystem` does.
    """
    total = np.zeros((len(trajectory.contact_names), 3))
    for l in steps:
        _, normals, tangents = system.frames(trajectory.q[l + 1])
        total += trajectory.normal[l][:, None] * normals + np.einsum("pd,pdx->px", trajectory.friction[l], tangents)
    return total


def rest_time(trajectory, *, tol=1e-9):
    """First time from which every velocity stays below ``tol`` (inf if the run never comes to rest)."""
    moving = np.flatnonzero(np.max(np.abs(trajectory.v), axis=1) >= tol)
    if moving.size == 0:
        return float(trajectory.t[0])
    last = moving[-1]
    return float(trajectory.t[last + 1]) if last + 1 < len(trajectory.t) else float("inf")
