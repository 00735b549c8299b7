"""reach.kernels.rng: numbers fixed by their key, uniform, and streams that do not share numbers."""

import numpy as np

from reach.kernels.rng import (CAPS_STREAM, COVERING_STREAM, FALLBACK_STREAM, PICK_STREAM, RETRY_STREAM, WALK_STREAM,
                               hashed_uniform, stream_state, uniform_at, uniform_block)
from reach.kernels.routh import CHOICE_RANDOM, fill_covering


def test_a_number_depends_on_its_key_only():
    out = np.empty((5, 3))
    uniform_block(7, 0, 100, out)
    for s in range(5):
        for j in range(3):
            assert out[s, j] == hashed_uniform(7, 0, 100 + s, j) == uniform_at(np.uint64(stream_state(7, 0, 100 + s)), j)


def test_uniform_on_the_unit_interval():
    out = np.empty((20000, 4))
    uniform_block(1, 0, 0, out)
    assert out.min() >= 0.0 and out.max() < 1.0
    counts, _ = np.histogram(out, bins=10, range=(0, 1))
    expected = out.size / 10
    assert np.sum((counts - expected) ** 2 / expected) < 30  # chi-square, 9 d.o.f., p ~ 4e-4


def test_retry_streams_are_keyed_by_attempt_not_by_seed_arithmetic():
    """0.1 drew retry t of seed s from seed s + 7919 t: another seed's first try.  Now no two keys share."""
    d = np.empty(8)
    firsts = {}
    for seed in range(4):
        fill_covering(d, CHOICE_RANDOM, 1e3, seed, 5, 2, 0)
        firsts[seed] = d.copy()
    for seed in range(4):
        for attempt in range(1, 4):
            fill_covering(d, CHOICE_RANDOM, 1e3, seed, 5, 2, attempt)
            for other in firsts.values():
                assert not np.allclose(d, other)
    assert RETRY_STREAM > COVERING_STREAM
    assert np.all((firsts[0] >= 1e-3) & (firsts[0] <= 1e3))


def test_portable_exp_and_log_are_accurate_and_call_no_math_library():
    """The covering vectors' exp and log: within a few ulps of the C library's, monotone, and made of
    arithmetic alone (no call to a math library whose last bit differs by machine, or to CUDA's)."""
    import math

    from reach.kernels.rng import portable_exp, portable_log

    xs = np.linspace(-8.0, 8.0, 40001)
    e = np.array([portable_exp(x) for x in xs])
    assert np.max(np.abs(e / np.exp(xs) - 1.0)) < 1e-15 and np.all(np.diff(e) > 0.0)
    assert portable_exp(0.0) == 1.0 and portable_log(1.0) == 0.0
    ys = np.exp(np.linspace(-9.0, 9.0, 20001))
    assert np.max(np.abs(np.array([portable_log(y) for y in ys]) - np.log(ys))) < 1e-15
    assert abs(portable_log(1e3) - math.log(1e3)) < 1e-15
    for f in (portable_exp, portable_log):
        ir = "\n".join(f.inspect_llvm().values())
        assert not any(f"@{name}(" in ir or f"@llvm.{name}." in ir for name in ("exp", "log", "pow")), f


def test_a_kernel_types_every_stream_alike_so_stream_state_compiles_once():
    """A kernel types a global int as a literal, and a callee compiles once more for each literal it is given
    (bench/compile_profile.py counted four ``stream_state`` and two ``hashed_uniform``); the streams are np.int64."""
    import numba

    @numba.njit(cache=False)
    def every_stream(seed, index):  # the streams as the kernels name them: globals of their module
        return (stream_state(seed, CAPS_STREAM, index) ^ stream_state(seed, COVERING_STREAM, index)
                ^ stream_state(seed, FALLBACK_STREAM, index) ^ stream_state(seed, PICK_STREAM, index)
                ^ stream_state(seed, WALK_STREAM, index) ^ stream_state(seed, RETRY_STREAM, index))

    streams = (CAPS_STREAM, COVERING_STREAM, FALLBACK_STREAM, PICK_STREAM, WALK_STREAM, RETRY_STREAM)
    assert len(set(map(int, streams))) == len(streams)
    expected = 0
    for stream in streams:
        expected ^= int(stream_state(3, int(stream), 11))
    assert int(every_stream(3, 11)) == expected
    assert not [sig for sig in stream_state.signatures if any(isinstance(t, numba.types.Literal) for t in sig)]
