"""A sample's caps drawn inside a kernel from its index equal the host's caps, bit for bit."""

import numpy as np
import pytest

from reach.kernels.drawn import CAPS_CODES, SEQUENCE_CODES, extreme_cap, fill_caps
from reach.kernels.sobol import scrambled_directions
from reach.sampling.caps import draw_caps


@pytest.mark.parametrize("sequence", sorted(SEQUENCE_CODES))
@pytest.mark.parametrize("caps", sorted(CAPS_CODES))
def test_a_kernels_caps_are_the_hosts_bit_for_bit(sequence, caps):
    m, N, seed, start = 4, 10, 11, 1000
    host = draw_caps(m, N, start, 300, seed=seed, sequence=sequence, caps=caps)
    V, shift = scrambled_directions(m * N, seed)
    p = np.empty((N, m))
    for s in range(host.shape[0]):
        fill_caps(p, V, shift, SEQUENCE_CODES[sequence], CAPS_CODES[caps], seed, start + s)
        assert np.array_equal(p, host[s]), (sequence, caps, start + s)
    assert 0.0 <= host.min() and host.max() <= 1.0


def test_extreme_caps_are_monotone_and_snap_to_0_and_1():
    u = np.linspace(0.0, 1.0, 2001)
    e = np.array([extreme_cap(x) for x in u])
    assert np.all(np.diff(e) >= 0.0)
    assert e[0] == 0.0 and e[-1] == 1.0 and e[1000] == 0.5
    assert np.all((e == 0.0) | (e >= 1e-6)) and np.all((e == 1.0) | (e <= 1.0 - 1e-6))
