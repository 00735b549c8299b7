"""One Routh step from Python, and the problem's arrays in the form the kernels take.

:func:`kernel_data` turns an :class:`~reach.problem.impact.ImpactProblem` into the
kernels' :class:`~reach.kernels.routh.RouthData` (impulses in velocity units:
see :mod:`reach.kernels.routh`); :func:`step_options` gathers a run's
tolerances and caps into one :class:`~reach.kernels.routh.StepOptions`;
:func:`routh_step` takes one step (eq. 75) and returns it in the problem's
own units; :func:`mode_velocities` gives every distinct ``v'`` of a planar
step by its contact modes.
"""

from __future__ import annotations

import numpy as np

from reach.kernels.jit import kernel_array
from reach.kernels.lcp import DEFAULT_OPTIONS, STRICT_TIE_TOL, TABLEAU, scale_lcp
from reach.kernels.modes import CERTIFY_MIN_CONTACTS, certificate_data
from reach.kernels.planar import MAX_TABLE_CONTACTS, mode_step, piece_table
from reach.kernels.routh import CHOICE_FIRST, CHOICE_WALK, routh_step_kernel
from reach.kernels.routh_data import RouthData, StepOptions, make_step_work
from reach.problem.lcp import LCPStatus

__all__ = ["kernel_data", "step_options", "routh_step", "mode_velocities", "max_pivots"]


def max_pivots(problem):
    """The pivot limit of a problem's step LCP: ``max(1000, 50 n)``."""
    return max(1000, 50 * problem.lcp_size)


def kernel_data(problem, *, certificate=False):
    """The problem's arrays as the kernels take them (:class:`~reach.kernels.routh.RouthData`).

    ``certificate=True`` adds the uniqueness certificate of exact choice
    (:func:`reach.kernels.modes.certificate_data`; planar problems, at most
    :data:`~reach.kernels.modes.MAX_CERTIFIED_CONTACTS` contacts);
    ``"auto"`` adds it where it is cheaper than enumerating every step (from
    :data:`~reach.kernels.modes.CERTIFY_MIN_CONTACTS` contacts on) and
    otherwise only the enumeration's data.
    """
    g, m = problem.mass_scale, problem.m
    lcp = scale_lcp(problem.W_unit)
    if certificate:
        if not problem.planar:
            raise ValueError("the uniqueness certificate needs a planar problem")
        orient = certificate_data(lcp.M, m, certify=certificate is True or m >= CERTIFY_MIN_CONTACTS)
        every = orient[-1]
        table = piece_table(lcp.M, m, every) if m <= MAX_TABLE_CONTACTS and len(every) else _no_table(m)
    else:
        orient = (False, np.zeros((0, m), dtype=np.int8), np.zeros((0, 2 * m, 2 * m)), np.zeros((0, 2, 2 * m)),
                  np.zeros((0, 2 * m, 2 * m)))
        table = _no_table(m)
    return RouthData(lcp, kernel_array(problem.Jbar), kernel_array(problem.Minv_JbarT / g), kernel_array(problem.Jn),
                     kernel_array(problem.v), *orient, *table)


def _no_table(m):
    return (np.zeros((0, 5 * m, 3 * m)), np.zeros(0, dtype=np.int64), np.zeros((0, 5 * m), dtype=np.int64),
            np.zeros(0, dtype=np.int64))


def step_options(problem, *, h=0.0, eps_lambda=0.0, choice=CHOICE_FIRST, seed=0):
    """A run's :class:`~reach.kernels.routh.StepOptions`; ``h`` and ``eps_lambda`` are impulses (kg m/s)."""
    g = problem.mass_scale
    lemke_opts = DEFAULT_OPTIONS._replace(max_pivots=max_pivots(problem))
    if choice == CHOICE_WALK:  # a hop starts from the first solve's final tableau (reach.kernels.hop)
        lemke_opts = lemke_opts._replace(method=TABLEAU)
    return StepOptions(lemke_opts, float(h) * g, float(eps_lambda) * g, float(problem.colliding_tol), int(choice),
                       int(seed), lemke_strict=lemke_opts._replace(tie_tol=STRICT_TIE_TOL))


def routh_step(problem, v, lambda_max, *, covering=None, data=None):
    """One Routh step from velocity ``v`` with normal-impulse caps ``lambda_max``.

    Parameters
    ----------
    problem : ImpactProblem
    v : array_like, shape (nv,)
    lambda_max : float or array_like, shape (m,), >= 0
    covering : array_like, shape (n,), optional
        Lemke covering vector (default ones), positive and finite.
    data : RouthData, optional
        :func:`kernel_data` of ``problem``, to reuse over many steps.

    Returns
    -------
    v_next : ndarray, shape (nv,)
    z : ndarray, shape (n,)
        The LCP solution ``[beta; lambda_n; lambda_D; gamma]`` of ``LCP(W,
        w)`` (``problem.W``, ``problem.routh_w(v, lambda_max)``).
    status : reach.problem.lcp.LCPStatus
    residual : float
        Relative complementarity residual against the data.

    Examples
    --------
    >>> import numpy as np
    >>> from reach import ImpactProblem
    >>> p = ImpactProblem(np.eye(2), [[0.0, 1.0]], [[1.0, 0.0]], 0.5, [0.0, -1.0])
    >>> v_next, z, status, residual = routh_step(p, p.v, 10.0)
    >>> status.name, np.round(v_next, 12).tolist()
    ('SOLVED', [0.0, 0.0])
    """
    data = data or kernel_data(problem)
    v = kernel_array(v)
    if v.shape != (problem.nv,) or not np.all(np.isfinite(v)):
        raise ValueError(f"`v` must be a finite vector of shape ({problem.nv},); got shape {v.shape}.")
    lam = np.ascontiguousarray(np.broadcast_to(np.asarray(lambda_max, dtype=float), (problem.m,)))
    if not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("`lambda_max` must be finite and >= 0.")
    n, g, m = problem.lcp_size, problem.mass_scale, problem.m
    d = np.ones(n) if covering is None else kernel_array(covering)
    if d.shape != (n,) or not np.all(np.isfinite(d)) or not np.all(d > 0):
        raise ValueError(f"`covering` must be a positive, finite vector of shape ({n},).")
    work = make_step_work(n, m, problem.nv)
    v_next = np.empty(problem.nv)
    opts = step_options(problem)
    status, _, res = routh_step_kernel(data, v, lam * g, d, opts, opts.lemke, work, v_next)
    z = work.z.copy()
    nb = problem.Jbar.shape[0]
    z[m:m + nb] /= g  # impulses back to the problem's units
    return v_next, z, LCPStatus(status), float(res)


def mode_velocities(problem, v, lambda_max, *, data=None, work=None, sample=0, step=0):
    """Every distinct ``v'`` of a planar step, by contact modes (:func:`reach.kernels.planar.mode_step`).

    Returns ``(distinct, drawn)``: the distinct ``v'`` (k, nv), and the one
    exact choice draws for (seed 0, ``sample``, ``step``) — None where it
    failed verification.  ``data``/``work`` may be reused over many steps.
    """
    data = data or kernel_data(problem)
    work = work or make_step_work(problem.lcp_size, problem.m, problem.nv)
    lam = np.ascontiguousarray(np.broadcast_to(np.asarray(lambda_max, dtype=float), (problem.m,))) * problem.mass_scale
    drawn = np.empty(problem.nv)
    count, ok, _ = mode_step(data, kernel_array(v), lam, step_options(problem), sample, step,
                             work, drawn)
    return work.distinct[:count].copy(), (drawn if ok else None)
