"""Routh's classical planar single-contact impact (paper §2.2.2, Fig. 3), integrated exactly.

With one contact the set of Halm & Posa's model collapses onto this point, which
makes it the exactness test of the sampler.
"""

from __future__ import annotations

import numpy as np

__all__ = ["routh_single_contact", "striking_sticks"]


def routh_single_contact(problem, contact=0):
    """Routh's classical planar impact at one contact, integrated exactly.

    The normal impulse grows at unit rate; the tangential impulse follows
    Coulomb's law at the current velocity (sliding: ``-mu sign(u_t)``;
    sticking when ``u_t = 0`` and the required ratio is inside the cone,
    otherwise sliding resumes in the direction the dynamics force); the
    impact ends when the normal velocity reaches zero.  The path is
    piecewise linear in the impulse, so each phase is solved in closed form.

    Returns
    -------
    v_plus : ndarray, shape (nv,)
    path : ndarray, shape (k, nv)
        Velocities at the phase changes, from v to v_plus.
    """
    if not problem.planar:
        raise ValueError("`problem` must be planar: Routh's path is piecewise linear only in the plane.")
    i = int(contact)
    Jn, Jt, mu = problem.Jn[i], problem.Jt[i], float(problem.mu[i])
    Minv_Jn = np.linalg.solve(problem.M, Jn)
    Minv_Jt = np.linalg.solve(problem.M, Jt)
    a, b, c = Jn @ Minv_Jn, Jn @ Minv_Jt, Jt @ Minv_Jt
    v = problem.v.copy()
    path = [v.copy()]
    tol = 1e-12 * max(1.0, float(np.max(np.abs(problem.contact_velocities(v)))))
    for _ in range(8):
        un, ut = Jn @ v, Jt @ v
        if un >= -tol:
            break
        if abs(ut) <= tol:
            if c > 0 and abs(b / c) <= mu:     # sticking: u_t stays 0
                rate_t = -b / c
            else:                               # forced sliding in the direction of b
                s = np.sign(b)
                rate_t = -mu * s
            dun = a + b * rate_t
            if dun <= 0:
                raise RuntimeError("Routh's impact does not terminate at this contact (normal velocity never rises).")
            step = -un / dun
            v = v + (Minv_Jn + Minv_Jt * rate_t) * step
            path.append(v.copy())
            break
        s = np.sign(ut)
        rate_t = -mu * s
        dun, dut = a + b * rate_t, b + c * rate_t
        steps = [-un / dun if dun > 0 else np.inf, -ut / dut if dut * s < 0 else np.inf]
        step = min(steps)
        if not np.isfinite(step):
            raise RuntimeError("Routh's impact does not terminate at this contact.")
        v = v + (Minv_Jn + Minv_Jt * rate_t) * step
        path.append(v.copy())
        if steps[0] <= steps[1]:
            break
    return v, np.array(path)


def striking_sticks(problem):
    """The classical single-outcome law: the contact striking fastest sticks (Routh's single-contact
    impact on it alone; the others lift).  Returns (1, nv), or (0, nv) when another contact would
    still be closing (the law does not apply, e.g. a block landing flat)."""
    striking = int(np.argmin(problem.normal_velocities(problem.v)))
    v, _ = routh_single_contact(problem, striking)
    scale = float(np.max(np.abs(problem.normal_velocities(problem.v))))
    if np.any(problem.normal_velocities(v) < -1e-9 * scale):
        return np.zeros((0, problem.nv))  # another contact would still close: the law has no outcome here
    return v[None]
