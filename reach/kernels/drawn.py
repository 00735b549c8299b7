"""A sample's caps drawn from its index inside a kernel: how the GPU draws the caps it samples with.

:mod:`reach.sampling.caps` draws the caps of many samples at once on the
host, in NumPy.  :func:`fill_caps` draws one sample's, coordinate by
coordinate, from the same numbers: the scrambled Sobol point at the sample's
index (:func:`reach.kernels.sobol.sobol_coordinate`) or its counter-based
uniforms (:func:`reach.kernels.rng.uniform_at`), through the same cap
distribution.  So a thread of the GPU's kernel makes its own caps from
(seed, index) and nothing crosses the bus (issue 40, item 3); on the CPU the
two agree bit for bit (``tests/kernels/test_drawn.py``), and on a GPU up to
CUDA's ``pow`` in the extreme caps.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from reach.kernels.jit import kernel
from reach.kernels.rng import CAPS_STREAM, stream_state, uniform_at
from reach.kernels.sobol import sobol_coordinate

__all__ = ["EXTREMES_POWER", "SEQUENCE_CODES", "CAPS_CODES", "DrawnCaps", "drawn_caps", "extreme_cap", "extreme_caps",
           "fill_caps"]

#: Exponent of the "extremes" cap transform (see :func:`reach.sampling.caps.draw_caps`), taken by multiplications.
EXTREMES_POWER = 5
#: Kernel codes of the cap sequences of :class:`reach.sampling.settings.SamplingSettings`.
SEQUENCE_CODES = {"sobol": 0, "uniform": 1}
#: Kernel codes of its cap distributions.
CAPS_CODES = {"uniform": 0, "extremes": 1, "mixed": 2, "broad": 3}


class DrawnCaps(NamedTuple):
    """What :func:`fill_caps` needs besides the index: a run's caps, as a kernel takes them."""

    V: np.ndarray       # (N m, BITS) uint64 scrambled Sobol directions (1 row for the uniform sequence)
    shift: np.ndarray   # (N m,) uint64 digital shifts
    sequence: int       # SEQUENCE_CODES
    caps: int           # CAPS_CODES
    seed: int


def drawn_caps(m, N, *, seed=0, sequence="sobol", caps="uniform"):
    """The :class:`DrawnCaps` of a run (the arguments of :func:`reach.sampling.caps.draw_caps`)."""
    from reach.kernels.sobol import BITS, scrambled_directions

    if sequence == "sobol":
        V, shift = scrambled_directions(m * N, int(seed))
    else:
        V, shift = np.zeros((1, BITS), dtype=np.uint64), np.zeros(1, dtype=np.uint64)
    return DrawnCaps(np.ascontiguousarray(V), np.ascontiguousarray(shift), SEQUENCE_CODES[sequence],
                     CAPS_CODES[caps], int(seed))


@kernel(inline="always")
def _fifth_power(t):
    """``t^5`` as ``(t^2)^2 t``: three correctly rounded products, the same on every machine.

    ``pow`` is not: NumPy's array ``power`` is SVML's where the CPU has AVX-512 and the C
    library's elsewhere, and CUDA's is libdevice's; they differ in the last bit.
    """
    t2 = t * t
    return (t2 * t2) * t


@kernel(inline="always")
def extreme_cap(u):
    """The extreme cap of a uniform ``u``: ``(2u)^5 / 2`` below 1/2, else ``1 - (2(1-u))^5 / 2``; near 0 or 1: 0 or 1."""
    if u < 0.5:
        e = 0.5 * _fifth_power(2.0 * u)
    else:
        e = 1.0 - 0.5 * _fifth_power(2.0 * (1.0 - u))
    if e < 1e-6:
        return 0.0
    if e > 1.0 - 1e-6:
        return 1.0
    return e


@kernel
def extreme_caps(P):
    """:func:`extreme_cap` of every entry of ``P`` (2-D), in place: the host's extreme caps."""
    for s in range(P.shape[0]):
        for j in range(P.shape[1]):
            P[s, j] = extreme_cap(P[s, j])


@kernel
def fill_caps(p, V, shift, sequence, caps, seed, index):
    """Fill ``p`` (N, m) with the caps of sample ``index``: row ``index`` of :func:`reach.sampling.caps.draw_caps`.

    ``V``, ``shift``: the scrambled Sobol directions of dimension ``N m``
    (:func:`reach.kernels.sobol.scrambled_directions`; unused for the uniform
    sequence); ``sequence``, ``caps``: codes of :data:`SEQUENCE_CODES` and
    :data:`CAPS_CODES`.
    """
    N, m = p.shape
    state = stream_state(seed, CAPS_STREAM, index)
    kind = caps
    if caps == 2:    # mixed: odd indices extreme
        kind = 1 if index % 2 == 1 else 0
    elif caps == 3:  # broad: uniform, extreme, binary for indices 0, 1, 2 mod 3
        kind = index % 3
        kind = 4 if kind == 2 else kind
    for k in range(N):
        for i in range(m):
            j = k * m + i
            u = sobol_coordinate(V, shift, index, j) if sequence == 0 else uniform_at(state, j)
            if kind == 1:
                u = extreme_cap(u)
            elif kind == 4:
                u = 0.0 if u < 0.5 else 1.0
            p[k, i] = u
