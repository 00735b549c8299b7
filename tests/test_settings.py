"""reach.settings: one validated, immutable settings object; every bad value named."""

import dataclasses

import pytest

from reach.settings import TAPER_FLOOR, SamplingSettings, tapered_chunks


def test_defaults_and_round_trip():
    s = SamplingSettings(1000, 0.3, 10)
    assert s.eps == pytest.approx(0.03) and s.seed == 0 and s.sequence == "sobol"
    assert SamplingSettings.from_dict(s.as_dict()) == s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.h = 1.0


def test_replace_validates_again():
    s = SamplingSettings(1000, 0.3, 10, keep_paths=5000)
    assert s.keep_paths == 1000  # capped at the sample count
    assert s.replace(n_samples=2000).n_samples == 2000
    with pytest.raises(ValueError, match="`h` must be a positive finite number"):
        s.replace(h=-1)


@pytest.mark.parametrize("changes, error, message", [
    (dict(n_samples=True), TypeError, "`n_samples` must be an integer; got True."),
    (dict(n_samples="10"), TypeError, "`n_samples` must be an integer; got '10'."),
    (dict(n_samples=1e400), ValueError, "`n_samples` must be an integer; got inf."),
    (dict(max_steps=2.5), ValueError, "`max_steps` must be an integer; got 2.5."),
    (dict(h=1 + 2j), TypeError, "`h` must be a positive real number"),
    (dict(h=float("nan")), ValueError, "`h` must be a positive finite number; got nan."),
    (dict(seed=-1), ValueError, "`seed` must be an integer between 0 and"),
    (dict(chunk_size=0), ValueError, "`chunk_size` must be an integer between 1"),
])
def test_every_bad_value_is_named(changes, error, message):
    args = dict(n_samples=10, h=0.3, max_steps=5)
    args.update(changes)
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        SamplingSettings(**args)


def test_unknown_keys_are_refused():
    with pytest.raises(ValueError, match=r"unknown sampling settings \['colour'\]"):
        SamplingSettings.from_dict(dict(n_samples=10, h=0.3, max_steps=5, colour="red"))


def test_chunks_cover_the_range_once():
    s = SamplingSettings(10_000, 0.3, 5, chunk_size=4096)
    assert s.chunks() == [(0, 4096), (4096, 4096), (8192, 1808)]
    assert s.chunks(4096, 5000) == [(4096, 904)]


@pytest.mark.parametrize("start, stop, size", [(0, 65536, 16384), (100, 5000, 4096), (0, 300, 1024), (7, 8, 16),
                                               (0, 262144, 16384)])
def test_tapered_chunks_cover_the_range_and_shrink_at_the_end(start, stop, size):
    chunks = tapered_chunks(start, stop, size)
    assert chunks[0][0] == start and sum(c for _, c in chunks) == stop - start
    assert all(a + c == b for (a, c), (b, _) in zip(chunks, chunks[1:]))  # contiguous, no overlap
    counts = [c for _, c in chunks]
    assert max(counts) <= size and counts == sorted(counts, reverse=True)
    assert all(c >= min(TAPER_FLOOR, size) for c in counts[:-1])
    if stop - start >= 4 * size:
        assert counts[0] == size and counts[-1] <= TAPER_FLOOR  # a phase ends on small chunks


def test_schedule_is_made_of_tapered_phases():
    s = SamplingSettings(2**16, 0.3, 5, chunk_size=4096)
    first, rounds = s.schedule()
    phases = [first] + rounds
    assert [c for phase in phases for c in phase] == s.all_chunks()
    assert sum(c for _, c in s.all_chunks()) == 2**16
    for phase in phases:  # each phase tapers on its own, so that its workers finish together
        counts = [c for _, c in phase]
        assert counts == sorted(counts, reverse=True) and counts[-1] <= TAPER_FLOOR
