"""reach.sampling.settings: one validated, immutable settings object; every bad value named."""

import dataclasses

import pytest

from reach.sampling.settings import SamplingSettings


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
