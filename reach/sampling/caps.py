"""The normalized caps ``p`` of Algorithm 1, drawn by sample index: Sobol or counter-based, four distributions.

Sample i's caps depend only on (seed, i), whatever the chunking or the
workers.  :func:`draw_caps` draws a contiguous range of indices,
:func:`draw_caps_at` arbitrary ones (the parents of directed sampling).
"""

from __future__ import annotations

import numpy as np

from reach.kernels.drawn import EXTREMES_POWER, extreme_caps
from reach.kernels.rng import CAPS_STREAM, uniform_block, uniform_rows

__all__ = ["draw_caps", "draw_caps_at", "EXTREMES_POWER"]


def draw_caps(m, N, start, count, *, seed=0, sequence="sobol", caps="uniform"):
    """The normalized caps ``p`` for samples ``start .. start + count - 1``: shape (count, N, m).

    ``"sobol"``: scrambled Sobol points over ``[0, 1]^(m N)`` (:mod:`reach.kernels.sobol`);
    ``"uniform"``: counter-based uniforms.  Either way sample i's caps depend
    only on (seed, i).  ``caps="extremes"`` maps each coordinate ``u`` through
    ``(2u)^5 / 2`` (``u < 1/2``) or ``1 - (2(1-u))^5 / 2``, a monotone map that
    keeps the points' stratification and has a positive density everywhere
    (values within 1e-6 of 0 or 1 are set to 0 or 1); ``"mixed"`` takes the
    extreme caps for odd indices, ``"broad"`` uniform, extreme and binary caps
    for indices 0, 1, 2 mod 3.
    """
    dim = m * N
    if sequence == "sobol":
        from reach.kernels.sobol import sobol_points

        P = sobol_points(dim, int(start), int(count), seed=seed)
    else:
        P = np.empty((int(count), dim))
        uniform_block(seed, CAPS_STREAM, int(start), P)
    return _shape_caps(P, np.arange(int(start), int(start) + int(count)), m, N, caps)


def draw_caps_at(m, N, indices, *, seed=0, sequence="sobol", caps="uniform"):
    """The caps of samples at arbitrary ``indices`` (k, N, m): row s equals ``draw_caps(m, N, indices[s], 1)[0]``."""
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    if sequence == "sobol":
        from reach.kernels.sobol import sobol_points_at

        P = sobol_points_at(m * N, indices, seed=seed)
    else:
        P = np.empty((len(indices), m * N))
        uniform_rows(seed, CAPS_STREAM, indices, P)
    return _shape_caps(P, indices, m, N, caps)


def _extreme(P):
    # caps within 1e-6 of 0 or 1 are taken exactly: a contact held back (or let go) for a
    # step, and no near-degenerate LCP whose data span nine orders of magnitude
    E = np.ascontiguousarray(P, dtype=np.float64).copy()
    extreme_caps(E)
    return E


def _shape_caps(P, indices, m, N, caps):
    """Apply the cap distribution to uniform points ``P`` (k, m N) of samples ``indices``; shape (k, N, m)."""
    if caps == "extremes":
        P = _extreme(P)
    elif caps == "mixed":  # odd sample indices take the extreme caps, even ones the uniform caps
        odd = indices % 2 == 1
        P[odd] = _extreme(P[odd])
    elif caps == "broad":  # uniform, extreme and binary caps for indices 0, 1, 2 mod 3
        kind = indices % 3
        P[kind == 1] = _extreme(P[kind == 1])
        P[kind == 2] = np.where(P[kind == 2] < 0.5, 0.0, 1.0)
    return np.ascontiguousarray(P.reshape(len(indices), N, m))
