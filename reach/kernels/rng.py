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
from decimal import Decimal, localcontext

import numpy as np

from reach.kernels.jit import kernel

__all__ = ["splitmix64", "stream_state", "uniform_at", "hashed_uniform", "uniform_block", "uniform_rows",
           "log_uniform_fill", "portable_exp", "portable_log", "CAPS_STREAM", "COVERING_STREAM", "FALLBACK_STREAM", "PICK_STREAM", "WALK_STREAM",
           "RETRY_STREAM"]

# The streams are np.int64, not int: a kernel types a global int as a literal, and a callee given a literal
# compiles once more for it (each stream a compile of its own).

#: Stream of the caps drawn by counter-based random numbers.
CAPS_STREAM = np.int64(0)
#: Stream of the random covering vectors of ``solution_choice="random"``.
COVERING_STREAM = np.int64(1)
#: Stream of the random starts of the enumeration fallback.
FALLBACK_STREAM = np.int64(2)
#: Stream of the uniform pick among a step's distinct v'.
PICK_STREAM = np.int64(3)
#: Stream of the covering vector of a step's hop (``solution_choice="walk"``).
WALK_STREAM = np.int64(4)
#: First stream of the retries with other covering vectors (one per retry).
RETRY_STREAM = np.int64(16)


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


def _exp_table():
    with localcontext() as context:
        context.prec = 40  # decimal arithmetic is the same everywhere, unlike the C library's pow
        return np.array([float(Decimal(2) ** (Decimal(j) / 32)) for j in range(32)])


#: ``2^(j/32)``, j = 0..31, each rounded from 40 decimal digits.
EXP_TABLE = _exp_table()
#: ``2^e`` for e = -16..16 (exact).
POWERS_OF_TWO = np.array([2.0 ** e for e in range(-16, 17)])
#: Taylor coefficients ``1/j!`` of ``exp``, j = 0..6.
EXP_C0, EXP_C1, EXP_C2, EXP_C3, EXP_C4, EXP_C5, EXP_C6 = (1.0 / math.factorial(j) for j in range(7))
#: Coefficients ``1/27, 1/25, ..., 1/1`` of the series ``atanh(t) / t`` in ``t^2`` (Horner's order).
LOG_COEFFICIENTS = tuple(1.0 / j for j in range(27, 0, -2))


@kernel(inline="always")
def portable_exp(x):
    """``exp(x)`` from additions, multiplications and two stored tables: the same bits on every machine
    (relative error below 5e-16; faster than the C library's on one core here).

    The C library's ``exp`` differs between libraries and CPUs, and CUDA's
    (libdevice) from both, in the last bit; a covering vector drawn with it
    could tip a near-tie in Lemke's ratio test on one machine and not on
    another.  ``x = (32 e + j) ln 2 / 32 + r``, ``|r| <= ln 2 / 64``:
    ``2^e 2^(j/32) p(r)``, ``p`` the degree-6 Taylor polynomial (Estrin's
    order).  ``2^e`` is taken 2^16 at a time beyond the table (exact).
    """
    k = math.floor(x * 46.16624130844683 + 0.5)  # 32 / ln 2
    r = (x - k * (LN2_HI / 32.0)) - k * (LN2_LO / 32.0)
    r2 = r * r
    p = (EXP_C0 + EXP_C1 * r) + r2 * ((EXP_C2 + EXP_C3 * r) + r2 * ((EXP_C4 + EXP_C5 * r) + r2 * EXP_C6))
    e = int(k) >> 5
    y = EXP_TABLE[int(k) & 31] * p
    while e > 16:
        y *= 65536.0
        e -= 16
    while e < -16:
        y *= 1.0 / 65536.0
        e += 16
    return y * POWERS_OF_TWO[e + 16]


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
    for c in LOG_COEFFICIENTS:
        acc = acc * t2 + c
    return (2.0 * t * acc + k * LN2_LO) + k * LN2_HI


@kernel(inline="always")
def log_uniform_fill(d, ratio, state, base):
    """Fill ``d`` with log-uniform numbers in ``[1/ratio, ratio]``: coordinates ``base + i`` of a :func:`stream_state`.

    By :func:`portable_log` and :func:`portable_exp`: a GPU draws the CPU's covering vectors bit for bit.
    """
    logr = portable_log(ratio)
    for i in range(d.shape[0]):
        d[i] = portable_exp(logr * (2.0 * uniform_at(state, base + i) - 1.0))
