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
           "log_uniform_fill", "portable_exp", "portable_log", "CAPS_STREAM", "COVERING_STREAM", "FALLBACK_STREAM", "PICK_STREAM", "WALK_STREAM",
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


#: ln 2 split in two: ``LN2_HI`` has 21 trailing zero bits, so ``k * LN2_HI`` is exact for ``|k| < 2^21``.
LN2_HI = 0.6931471803691238
LN2_LO = 1.9082149292705877e-10


@kernel(inline="always")
def portable_exp(x):
    """``exp(x)`` for ``|x| <= 700`` from additions, multiplications and one division: the same bits on
    every machine (relative error about 1e-15).

    The C library's ``exp`` differs between libraries and CPUs, and CUDA's
    (libdevice) from both, in the last bit; a covering vector drawn with it
    could tip a near-tie in Lemke's ratio test on one machine and not on
    another.  ``x = k ln 2 + r``, ``|r| <= ln 2 / 2``: a degree-13 Taylor
    polynomial of ``r``, then ``k`` exact doublings or halvings.
    """
    k = math.floor(x * 1.4426950408889634 + 0.5)
    r = (x - k * LN2_HI) - k * LN2_LO
    p = 1.0
    for j in range(13, 0, -1):
        p = 1.0 + p * r / j
    for _ in range(int(abs(k))):
        p = p * 2.0 if k > 0 else p * 0.5
    return p


@kernel(inline="always")
def portable_log(x):
    """``log(x)`` for ``x > 0`` (and below 2^1000) from exact halvings and the series of ``atanh``: the same
    bits on every machine (see :func:`portable_exp`)."""
    k = 0
    while x >= 1.5:
        x *= 0.5
        k += 1
    while x < 0.75:
        x *= 2.0
        k -= 1
    t = (x - 1.0) / (x + 1.0)  # |t| <= 1/5
    t2 = t * t
    acc = 0.0
    for j in range(27, 0, -2):
        acc = 1.0 / j + t2 * acc
    return (2.0 * t * acc + k * LN2_LO) + k * LN2_HI


@kernel(inline="always")
def log_uniform_fill(d, ratio, state, base):
    """Fill ``d`` with log-uniform numbers in ``[1/ratio, ratio]``: coordinates ``base + i`` of a :func:`stream_state`.

    By :func:`portable_log` and :func:`portable_exp`: a GPU draws the CPU's covering vectors bit for bit.
    """
    logr = portable_log(ratio)
    for i in range(d.shape[0]):
        d[i] = portable_exp(logr * (2.0 * uniform_at(state, base + i) - 1.0))
