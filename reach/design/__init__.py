"""Impact design: sweep configuration or design parameters for predictable impacts, and search for the best.

``build(params) -> ImpactProblem`` turns parameters (a dict of floats) into an
impact problem; :func:`sweep` evaluates indeterminacy measures
(:mod:`reach.analysis.measures`) of its post-impact set over a grid, and
:func:`minimize` searches for the parameters that minimise one, with SciPy's
derivative-free optimisers.  Each point samples a small set (``budget``
samples) with the same seed, so a measure is a deterministic function of the
parameters (common random numbers: the optimiser sees no sampling noise
between points), and the sweep gives the same numbers for any number of
workers.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from reach import sample_post_impact_set
from reach.analysis.measures import MEASURES, measure
from reach.analysis.propagate import auto_h

__all__ = ["sweep", "minimize", "Sweep", "Optimum", "evaluate"]


class Sweep(NamedTuple):
    """Measures over a grid: ``params`` (list of dict) and ``values`` (dict of measure -> ndarray)."""

    names: tuple
    params: list
    values: dict

    def table(self):
        """Rows ``(param values..., measure values...)`` as a 2-D array."""
        cols = [[p[n] for p in self.params] for n in self.names] + [list(self.values[m]) for m in self.values]
        return np.array(cols, dtype=float).T


def evaluate(build, params, measures=("diameter",), *, budget=2 ** 10, h=None, max_steps=20, seed=0):
    """The measures of the set of ``build(params)``: a dict, plus the set itself under ``"result"``."""
    problem = build(dict(params))
    result = sample_post_impact_set(problem, budget, auto_h(problem) if h is None else h, max_steps, seed=seed,
                                    completeness=False)
    out = {name: measure(result, name) for name in measures}
    out["result"] = result
    return out


def _check(measures):
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        raise ValueError(f"unknown measures {unknown}; choose from {', '.join(MEASURES)}.")


def sweep(build, grid, measures=("diameter",), *, budget=2 ** 10, h=None, max_steps=20, seed=0, n_jobs=1,
          progress=False):
    """Evaluate ``measures`` of ``build(params)`` over the product of ``grid`` (dict of name -> values).

    A point where ``build`` raises a ValueError (an infeasible configuration)
    or whose set is empty gets NaN.

    Returns
    -------
    Sweep
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    measures = tuple(measures)
    _check(measures)
    names = tuple(grid)
    points = [dict(zip(names, map(float, combo))) for combo in itertools.product(*(grid[n] for n in names))]
    if not points:
        raise ValueError("the grid is empty.")
    run = delayed(_point)
    jobs = (run(build, p, measures, budget, h, max_steps, seed) for p in tqdm(points, disable=not progress,
                                                                              desc="sweep", unit="point", leave=False))
    rows = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(jobs)
    values = {m: np.array([row[m] for row in rows]) for m in measures}
    return Sweep(names, points, values)


def _point(build, params, measures, budget, h, max_steps, seed):
    """One grid point's measures; NaN where ``build`` rejects the parameters or the set is empty."""
    try:
        out = evaluate(build, params, measures, budget=budget, h=h, max_steps=max_steps, seed=seed)
    except ValueError:
        return {m: float("nan") for m in measures}
    result = out.pop("result")
    if len(result) == 0:
        return {m: float("nan") for m in measures}
    return out


class Optimum(NamedTuple):
    """The result of :func:`minimize`: the best parameters, and the sets at the start and at the optimum."""

    params: dict
    value: float
    start_params: dict
    start_value: float
    evaluations: int
    start_result: object
    result: object
    message: str


def minimize(build, start, bounds, measure_name="diameter", *, budget=2 ** 10, h=None, max_steps=20, seed=0,
             tol=1e-4, max_evaluations=200):
    """Search the parameters in ``bounds`` (dict of name -> (lo, hi)) that minimise a measure.

    One parameter: :func:`scipy.optimize.minimize_scalar` (bounded Brent);
    several: :func:`scipy.optimize.minimize` with Powell's method and bounds.
    ``start`` (dict) gives the starting point (and the fixed values of
    parameters not in ``bounds``).
    """
    from scipy import optimize

    _check((measure_name,))
    names = tuple(bounds)
    fixed = dict(start)
    count = [0]

    def objective(x):
        count[0] += 1
        params = {**fixed, **dict(zip(names, np.atleast_1d(x).tolist()))}
        return evaluate(build, params, (measure_name,), budget=budget, h=h, max_steps=max_steps,
                        seed=seed)[measure_name]

    if len(names) == 1:
        lo, hi = bounds[names[0]]
        res = optimize.minimize_scalar(objective, bounds=(lo, hi), method="bounded",
                                       options={"xatol": tol, "maxiter": max_evaluations})
        best = {names[0]: float(res.x)}
    else:
        x0 = [fixed[n] for n in names]
        res = optimize.minimize(objective, x0, method="Powell", bounds=[bounds[n] for n in names],
                                options={"xtol": tol, "maxfev": max_evaluations})
        best = dict(zip(names, map(float, np.atleast_1d(res.x))))
    params = {**fixed, **best}
    start_eval = evaluate(build, fixed, (measure_name,), budget=budget, h=h, max_steps=max_steps, seed=seed)
    end_eval = evaluate(build, params, (measure_name,), budget=budget, h=h, max_steps=max_steps, seed=seed)
    return Optimum(params, end_eval[measure_name], fixed, start_eval[measure_name], count[0],
                   start_eval["result"], end_eval["result"], str(getattr(res, "message", "")))
