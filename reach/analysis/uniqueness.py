"""Diagnostics for non-unique Routh steps (Assumption 6 of the paper).

Assumption 6 asks that every solution of a step's LCP give the same v'.  It
fails for the compass gait and RAMone: one cap ``lambda_max`` admits several
distinct v', and a solver that always returns the same one biases the set.
:func:`step_uniqueness` measures, along sampled trajectories, the fraction of
steps whose LCP has several distinct v' (by enumerating complementary bases,
or, on planar problems of up to six contacts, by contact modes), and how many of those
distinct v' the sampler's randomised covering vectors reach.

Random covering vectors cannot reach them all.  Lemke's path from its
primary ray ends at a solution of index +1; the step's solutions are the
zeros of a piecewise-linear map of degree 1 (:mod:`reach.kernels.modes`), so
a non-degenerate step with ``k`` solutions has ``(k - 1) / 2`` of index -1,
out of reach of every covering vector.  ``unreached_fraction`` measures it.
"""

from __future__ import annotations

import time

import numpy as np

from reach.kernels.modes import MAX_CERTIFIED_CONTACTS
from reach.kernels.routh_data import StepOptions, make_step_work
from reach.problem.lcp import all_solutions
from reach.sampling.caps import draw_caps
from reach.problem.step import kernel_data, mode_velocities, routh_step

#: Spread of the random covering vectors, as the sampler draws them.
COVERING_RATIO = StepOptions._field_defaults["covering_ratio"]

__all__ = ["distinct_step_velocities", "step_uniqueness", "choice_check", "CHECK_SAMPLES"]

#: Trajectories :func:`choice_check` follows (about 0.9 s on the disk stack and the quadruped touchdown).
CHECK_SAMPLES = 16


def distinct_step_velocities(problem, v, lambda_max, *, rtol=1e-7):
    """Every distinct v' of one Routh step, by basis enumeration: shape (k, nv)."""
    w = problem.routh_w(v, lambda_max)
    sols = all_solutions(problem.W, w)
    m, nb = problem.m, problem.Jbar.shape[0]
    V = v + sols[:, m:m + nb] @ problem.Minv_JbarT.T
    scale = max(1e-300, float(np.max(np.abs(problem.contact_velocities(problem.v)))))
    unique = []
    for row in V:
        dist = np.max(np.abs(problem.contact_velocities(row) - problem.contact_velocities(np.array(unique))),
                      axis=(1, 2)) if unique else np.array([np.inf])
        if np.min(dist) > rtol * scale:
            unique.append(row)
    return np.array(unique).reshape(-1, problem.nv)


def _by_modes(problem):
    return problem.planar and problem.m <= MAX_CERTIFIED_CONTACTS


def _method(problem):
    """How a step's distinct v' are found: ``"modes"``, ``"bases"`` (n <= 22), else ``"walk"`` (a lower bound)."""
    return "modes" if _by_modes(problem) else ("bases" if problem.lcp_size <= 22 else "walk")


def _distinct(problem, data, work, v, lam, seed):
    """The step's distinct v': by contact modes or basis enumeration where possible, else by the walk."""
    method = _method(problem)
    if method == "bases":
        return distinct_step_velocities(problem, v, lam)
    if method == "walk":
        from reach.analysis.walk import walk_solutions

        return walk_solutions(problem, v, lam, seed=seed)
    return mode_velocities(problem, v, lam, data=data, work=work)[0]


def step_uniqueness(problem, h, max_steps, *, n_samples=100, coverings=16, seed=0):
    """Fraction of Routh steps with several distinct v', along sampled trajectories.

    Trajectories follow Algorithm 1 with Sobol caps and the covering vector of
    ones.  At every step the LCP's distinct v' are found (``method``): by
    contact modes (planar, up to six contacts), by complementary bases (n <=
    22), or else by :func:`reach.analysis.walk.walk_solutions` — a search, so
    the fractions are then lower bounds.  For non-unique steps,
    ``coverings`` Lemke solves with random covering vectors (as the sampler
    draws them) count how many of the distinct v' they reach.

    Returns
    -------
    dict
        ``steps``, ``nonunique_fraction``, ``mean_distinct`` (over non-unique
        steps), ``random_coverage`` (mean fraction of a non-unique step's
        distinct v' reached by the random coverings), ``unreached_fraction``
        (of all distinct v' of the non-unique steps, those no covering
        reached), and timing per step of enumeration versus one Lemke solve
        (``enumeration_seconds``, ``lemke_seconds``).
    """
    data = kernel_data(problem)
    work = make_step_work(problem.lcp_size, problem.m, problem.nv)
    rng = np.random.default_rng(seed)
    P = draw_caps(problem.m, max_steps, 0, n_samples, seed=seed)
    scale = float(np.max(np.abs(problem.contact_velocities(problem.v))))
    steps = nonunique = 0
    distinct_counts, coverage, unreached = [], [], 0
    t_enum = t_lemke = 0.0
    for s in range(n_samples):
        v = problem.v.copy()
        for k in range(max_steps):
            if not problem.is_colliding(v):
                break
            lam = h * P[s, k]
            t0 = time.perf_counter()
            V = _distinct(problem, data, work, v, lam, seed + steps)
            t1 = time.perf_counter()
            v_next, *_ = routh_step(problem, v, lam, data=data)
            t2 = time.perf_counter()
            t_enum += t1 - t0
            t_lemke += t2 - t1
            steps += 1
            if len(V) > 1:
                nonunique += 1
                distinct_counts.append(len(V))
                reached = np.zeros(len(V), dtype=bool)
                for _ in range(coverings):
                    d = np.exp(rng.uniform(-1, 1, problem.lcp_size) * np.log(COVERING_RATIO))
                    vr, _, status, _ = routh_step(problem, v, lam, covering=d, data=data)
                    if status == 0:
                        gaps = np.max(np.abs(problem.contact_velocities(V) - problem.contact_velocities(vr)), axis=(1, 2))
                        reached[np.argmin(gaps)] |= gaps.min() <= 1e-6 * scale
                coverage.append(reached.mean())
                unreached += int(np.count_nonzero(~reached))
            v = v_next
    return {
        "steps": steps,
        "nonunique_fraction": nonunique / max(steps, 1),
        "mean_distinct": float(np.mean(distinct_counts)) if distinct_counts else 1.0,
        "method": _method(problem),
        "random_coverage": float(np.mean(coverage)) if coverage else 1.0,
        "unreached_fraction": unreached / max(sum(distinct_counts), 1),
        "enumeration_seconds": t_enum / max(steps, 1),
        "lemke_seconds": t_lemke / max(steps, 1),
    }


def choice_check(result, *, n_samples=CHECK_SAMPLES, seed=0):
    """Whether a set drawn with ``"random"`` or ``"first"`` choice may miss outcomes at non-unique steps.

    Exact choice finds every distinct v' of a step; random covering vectors
    reach only some (never those of index -1), and the covering vector of
    ones one.  Where a set was drawn so (``result.settings.solution_choice``),
    :func:`step_uniqueness` samples ``n_samples`` trajectories of the same
    problem, ``h`` and ``N`` and counts the steps with several distinct v'
    and the share of those v' that 8 random covering vectors reached.  On
    spatial problems above n = 22 it walks (a search, so a lower bound).
    Returns None for sets drawn with exact choice, basis enumeration or walk
    choice (whose hops reach the solutions of index -1).

    Returns
    -------
    dict or None
        ``choice``, ``method``, ``steps``, ``nonunique_steps``,
        ``nonunique_fraction``, ``unreached_fraction`` (of the distinct v'
        of the non-unique steps, those no random covering vector reached) and
        ``exact_available`` (whether ``solution_choice="exact"`` applies).
    """
    settings, problem = result.settings, result.problem
    if settings.solution_choice not in ("random", "first"):
        return None
    found = step_uniqueness(problem, settings.h, settings.max_steps, n_samples=n_samples, coverings=8,
                            seed=seed)
    return {"choice": settings.solution_choice, "method": found["method"], "steps": found["steps"],
            "nonunique_steps": round(found["nonunique_fraction"] * found["steps"]),
            "nonunique_fraction": found["nonunique_fraction"], "unreached_fraction": found["unreached_fraction"],
            "exact_available": bool(_by_modes(problem))}
