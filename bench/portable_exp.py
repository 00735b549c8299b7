"""Nanoseconds a call of :func:`reach.kernels.rng.portable_exp` against the C library's ``exp``, one core.

    PYTHONPATH=. python bench/portable_exp.py     # log: bench/portable-exp.log

10^7 arguments uniform in [-ln 1000, ln 1000] (the covering vectors' range), each function in a
jitted loop, medians of five alternating runs after one of each that compiles; also the largest
relative error and whether the results rise with the argument.
"""

import math
import time

import numba
import numpy as np

from reach.kernels.rng import portable_exp


@numba.njit
def _portable(xs, out):
    for i in range(xs.shape[0]):
        out[i] = portable_exp(xs[i])


@numba.njit
def _library(xs, out):
    for i in range(xs.shape[0]):
        out[i] = math.exp(xs[i])


def main(count=10**7, repeats=5):
    xs = np.random.default_rng(0).uniform(-math.log(1e3), math.log(1e3), count)
    a, b = np.empty_like(xs), np.empty_like(xs)
    _portable(xs, a)  # compiles, and touches every page of the outputs
    _library(xs, b)
    times = {"portable_exp": [], "math.exp": []}
    for _ in range(repeats):
        for name, f, out in (("portable_exp", _portable, a), ("math.exp", _library, b)):
            t = time.perf_counter()
            f(xs, out)
            times[name].append((time.perf_counter() - t) / count * 1e9)
    order = np.argsort(xs)
    for name, ts in times.items():
        print(f"{name}: {np.median(ts):.2f} ns a call (runs: {', '.join(f'{t:.2f}' for t in ts)})")
    print(f"largest relative difference from math.exp: {np.max(np.abs(a / b - 1.0)):.1e}; "
          f"non-decreasing: {bool(np.all(np.diff(a[order]) >= 0.0))}")


if __name__ == "__main__":
    main()
