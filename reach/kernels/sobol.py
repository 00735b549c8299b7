"""Scrambled Sobol points by index, jitted: the caps sequence of the sampler.

The published code drew the caps from a scrambled Sobol sequence; so do we.
Point ``i`` of the sequence is computed directly from its index (Gray-code
order, ``x_i = XOR of the direction numbers at the set bits of i ^ (i >> 1)``),
so any index range can be generated independently — chunks, workers and
resumed runs reproduce one another exactly — and nothing is carried between
calls.

Direction numbers are Joe & Kuo's (new-joe-kuo-6.21201), read from the data
file SciPy ships with ``scipy.stats.qmc`` — without importing ``scipy.stats``,
whose import alone costs about a second at start-up.  Scrambling is a linear
matrix scramble (a random lower-triangular binary matrix per dimension) plus a
random digital shift (Matoušek 1998; Owen 2003), with the random bits drawn
from a counter-based hash of the seed.  Both preserve the (t, m, s)-net
structure: the first 2^k points of every coordinate hit each interval
``[j 2^-k, (j+1) 2^-k)`` exactly once.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache

import numpy as np

from reach.kernels.jit import kernel
from reach.kernels.rng import splitmix64

__all__ = ["BITS", "MAX_DIM", "direction_numbers", "scrambled_directions", "sobol_points", "sobol_points_at",
           "sobol_coordinate"]

BITS = 30            #: bits per coordinate (indices up to 2^30)
MAX_DIM = 21201      #: dimensions covered by the Joe-Kuo table


def _data_file():
    spec = importlib.util.find_spec("scipy")
    path = os.path.join(os.path.dirname(spec.origin), "stats", "_sobol_direction_numbers.npz")
    if not os.path.exists(path):
        raise RuntimeError(f"SciPy's Sobol direction numbers are missing ({path}).")
    return path


@lru_cache(maxsize=None)
def _table():
    with np.load(_data_file()) as data:
        return data["poly"].astype(np.int64), data["vinit"].astype(np.int64)


@lru_cache(maxsize=32)
def direction_numbers(dim):
    """Unscrambled direction numbers ``V`` (dim, BITS) as integers scaled to 2^BITS."""
    if not 1 <= dim <= MAX_DIM:
        raise ValueError(f"`dim` must be between 1 and {MAX_DIM}; got {dim}.")
    poly, vinit = _table()
    V = np.zeros((dim, BITS), dtype=np.uint64)
    for k in range(BITS):
        V[0, k] = 1 << (BITS - 1 - k)
    for d in range(1, dim):
        p = int(poly[d])
        s = p.bit_length() - 1                       # degree of the primitive polynomial
        m = [int(vinit[d, k]) for k in range(s)]
        for k in range(s, BITS):
            new = m[k - s] ^ (m[k - s] << s)
            for i in range(1, s):
                if (p >> (s - i)) & 1:                 # coefficient a_i
                    new ^= m[k - i] << i
            m.append(new)
        for k in range(BITS):
            V[d, k] = m[k] << (BITS - 1 - k)
    V.setflags(write=False)
    return V


@kernel
def _random_bits(seed, d, r):
    x = splitmix64(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D))
    x = splitmix64(x ^ np.uint64(d))
    x = splitmix64(x ^ (np.uint64(r) * np.uint64(0x9E3779B97F4A7C15)))
    return x >> np.uint64(64 - BITS)


@kernel
def _parity(x):
    x ^= x >> np.uint64(32)
    x ^= x >> np.uint64(16)
    x ^= x >> np.uint64(8)
    x ^= x >> np.uint64(4)
    x ^= x >> np.uint64(2)
    x ^= x >> np.uint64(1)
    return x & np.uint64(1)


@kernel
def _scramble(V, seed, out, shift):
    dim = V.shape[0]
    full = (np.uint64(1) << np.uint64(BITS)) - np.uint64(1)
    for d in range(dim):
        for k in range(BITS):
            v = V[d, k]
            y = np.uint64(0)
            for r in range(BITS):                      # output bit r, most significant first
                pos = np.uint64(BITS - 1 - r)
                above = full & ~((np.uint64(1) << (pos + np.uint64(1))) - np.uint64(1))
                row = (np.uint64(1) << pos) | (_random_bits(seed, d, r) & above)
                y |= _parity(row & v) << pos
            out[d, k] = y
        shift[d] = _random_bits(seed, d, np.int64(BITS))  # typed, as r above: one compile


@lru_cache(maxsize=32)
def scrambled_directions(dim, seed):
    """Scrambled direction numbers (dim, BITS) and digital shifts (dim,) for a seed."""
    V = direction_numbers(dim)
    out = np.empty_like(V)
    shift = np.empty(dim, dtype=np.uint64)
    _scramble(V, int(seed), out, shift)
    out.setflags(write=False)
    shift.setflags(write=False)
    return out, shift


@kernel(inline="always")
def _coordinate_bits(V, shift, g, d):
    """The integer coordinate ``d`` of the point whose Gray code is ``g``: the shift XOR the directions at its set bits."""
    x = np.uint64(shift[d])
    b = 0
    while g:
        if g & np.uint64(1):
            x ^= V[d, b]
        g >>= np.uint64(1)
        b += 1
    return x


@kernel
def _point_at(V, shift, index, state):
    """The (integer) point at ``index`` directly from its Gray code, into ``state``."""
    i = np.uint64(index)
    g = i ^ (i >> np.uint64(1))
    for d in range(V.shape[0]):
        state[d] = _coordinate_bits(V, shift, g, d)


@kernel(inline="always")
def sobol_coordinate(V, shift, index, d):
    """Coordinate ``d`` of the point at ``index``, in [0, 1): :func:`_point_at`'s, one coordinate alone."""
    i = np.uint64(index)
    return _coordinate_bits(V, shift, i ^ (i >> np.uint64(1)), d) * (1.0 / (1 << BITS))


@kernel
def _points(V, shift, start, out, state):
    """Point ``start`` directly from its Gray code, then one XOR per coordinate per step."""
    scale = 1.0 / (1 << BITS)
    dim = V.shape[0]
    _point_at(V, shift, start, state)
    for s in range(out.shape[0]):
        for d in range(dim):
            out[s, d] = state[d] * scale
        # Gray-code successor: flip the direction number of the lowest zero bit of the index
        c = 0
        j = np.uint64(start + s)
        while j & np.uint64(1):
            j >>= np.uint64(1)
            c += 1
        if c < BITS:
            for d in range(dim):
                state[d] ^= V[d, c]


@kernel
def _points_at(V, shift, indices, out, state):
    """Points at arbitrary ``indices``, each directly from its Gray code."""
    scale = 1.0 / (1 << BITS)
    for s in range(indices.shape[0]):
        _point_at(V, shift, indices[s], state)
        for d in range(V.shape[0]):
            out[s, d] = state[d] * scale


def sobol_points_at(dim, indices, *, seed=0):
    """Scrambled Sobol points at the given indices: (k, dim), equal to :func:`sobol_points` row by row."""
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= (1 << BITS)):
        raise ValueError(f"Sobol indices must lie in [0, 2^{BITS}).")
    V, shift = scrambled_directions(dim, seed)
    out = np.empty((len(indices), dim))
    _points_at(V, shift, indices, out, np.empty(dim, dtype=np.uint64))
    return out


def sobol_points(dim, start, count, *, seed=0, scramble=True):
    """Points ``start .. start + count - 1`` of the (scrambled) Sobol sequence: (count, dim) in [0, 1)."""
    if start < 0 or count < 0 or start + count > (1 << BITS):
        raise ValueError(f"Sobol indices must lie in [0, 2^{BITS}); got {start} .. {start + count - 1}.")
    if scramble:
        V, shift = scrambled_directions(dim, seed)
    else:
        V, shift = direction_numbers(dim), np.zeros(dim, dtype=np.uint64)
    out = np.empty((int(count), dim))
    _points(V, shift, int(start), out, np.empty(dim, dtype=np.uint64))
    return out
