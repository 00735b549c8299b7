"""Counter-based random numbers: values fixed by (seed, stream, index, coordinate).

Nothing here has state.  A number depends only on its key, never on a thread,
a worker or a chunk, which is what makes parallel, chunked and resumed sampling
reproduce a serial run bit for bit.  The mixing function is splitmix64
(Steele, Lea & Flood 2014).

Streams in use (one per purpose, so no two purposes share numbers):

* 0: uniform caps; 1: the covering vector of a step's first try;
* 2: the enumeration fallback's starting index set; 3: the uniform pick among
  a step's distinct solutions;
* 4: the covering vector of a step's hop (``solution_choice="walk"``,
  :mod:`reach.kernels.hop`);
* ``RETRY_STREAM + t``: the covering vector of a step's retry ``t``.
"""

from __future__ import annotations

import math

import numpy as np

from reach.kernels.jit import kernel

__all__ = ["splitmix64", "stream_state", "uniform_at", "hashed_uniform", "uniform_block", "uniform_rows",
           "log_uniform_fill", "CAPS_STREAM", "COVERING_STREAM", "FALLBACK_STREAM", "PICK_STREAM", "WALK_STREAM",
           "RETRY_STREAM"]

#: Stream of the caps drawn by counter-based random numbers.
CAPS_STREAM = 0
#: Stream of the random covering vectors of ``solution_choice="random"``.
COVERING_STREAM = 1
#: Stream of the random starts of the enumeration fallback.
FALLBACK_STREAM = 2
#: Stream of the uniform pick among a step's distinct v'.
PICK_STREAM = 3
#: Stream of the covering vector of a step's hop (``solution_choice="walk"``).
WALK_STREAM = 4
#: First stream of the retries with other covering vectors (one per retry).
RETRY_STREAM = 16


@kernel
def splitmix64(x):
    """The splitmix64 finalizer: a well-mixed 64-bit hash of ``x``."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@kernel
def stream_state(seed, stream, index):
    """The hash state of (seed, stream, index); :func:`uniform_at` draws coordinates from it."""
    x = splitmix64(np.uint64(seed) ^ (np.uint64(stream) * np.uint64(0xD1B54A32D192ED03)))
    return splitmix64(x ^ np.uint64(index))


@kernel
def uniform_at(state, coordinate):
    """A uniform number in [0, 1) for ``coordinate`` of a :func:`stream_state`."""
    x = splitmix64(np.uint64(state) ^ (np.uint64(coordinate) * np.uint64(0x9E3779B97F4A7C15)))
    return (x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def hashed_uniform(seed, stream, index, coordinate):
    """A uniform number in [0, 1) fixed by (seed, stream, index, coordinate)."""
    return uniform_at(stream_state(seed, stream, index), coordinate)


@kernel
def uniform_rows(seed, stream, indices, out):
    """Fill ``out`` (k, d) with hashed uniforms for the sample ``indices`` (row s: index ``indices[s]``)."""
    for s in range(out.shape[0]):
        state = stream_state(seed, stream, indices[s])
        for j in range(out.shape[1]):
            out[s, j] = uniform_at(state, j)


@kernel
def uniform_block(seed, stream, start, out):
    """Fill ``out`` (count, d) with hashed uniforms for sample indices start..start+count-1."""
    for s in range(out.shape[0]):
        state = stream_state(seed, stream, start + s)
        for j in range(out.shape[1]):
            out[s, j] = uniform_at(state, j)


@kernel(inline="always")
def log_uniform_fill(d, ratio, state, base):
    """Fill ``d`` with log-uniform numbers in ``[1/ratio, ratio]``: coordinates ``base + i`` of a :func:`stream_state`."""
    logr = math.log(ratio)
    for i in range(d.shape[0]):
        d[i] = math.exp(logr * (2.0 * uniform_at(state, base + i) - 1.0))
