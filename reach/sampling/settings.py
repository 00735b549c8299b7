"""The sampling settings of Algorithm 2: one validated, immutable object.

:class:`SamplingSettings` holds what fixes a set (h, N, epsilon, the sample
count, the seed, the cap sequence and distribution, the solution choice) and
how it is cut into work (chunk size, kept paths).  It is built once, checked
once, stored on the result and in checkpoints, and compared on resume.
"""

from __future__ import annotations

import dataclasses
import numbers

__all__ = ["SamplingSettings", "SEQUENCES", "CAPS", "STRATEGIES", "SOLUTION_CHOICES", "MAX_SAMPLES", "MAX_STEPS",
           "MAX_SEED", "check_integer", "check_positive_number"]

#: Low-discrepancy or plain random sample indices.
SEQUENCES = ("sobol", "uniform")
#: How the budget is spent (:mod:`reach.sampling.directed`).
STRATEGIES = ("directed", "uniform")
#: Distributions of the normalized caps.
CAPS = ("uniform", "extremes", "mixed", "broad")
#: How a step with several distinct v' is resolved.
SOLUTION_CHOICES = ("random", "first", "enumerate", "exact", "walk")
#: Most samples of one run.
MAX_SAMPLES = 2**30
#: Most Routh steps of one trajectory.
MAX_STEPS = 100_000
#: Seeds lie in ``[0, MAX_SEED]``.
MAX_SEED = 2**63 - 1


def check_integer(name, value, *, low, high=None):
    """``value`` as an int in ``[low, high]``, or a ValueError/TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be an integer; got {value!r}.")
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif value != value or value in (float("inf"), float("-inf")) or int(value) != value:
        raise ValueError(f"`{name}` must be an integer; got {value!r}.")
    else:
        value = int(value)
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"between {low} and {high:,}"
        raise ValueError(f"`{name}` must be an integer {bound}; got {value!r}.")
    return value


def check_positive_number(name, value):
    """``value`` as a positive finite float, or a ValueError/TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a positive real number; got {value!r}.")
    value = float(value)
    if not (value > 0 and value < float("inf")):
        raise ValueError(f"`{name}` must be a positive finite number; got {value!r}.")
    return value


def _check_choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}.")
    return value


@dataclasses.dataclass(frozen=True)
class SamplingSettings:
    """The algorithm's settings (paper Algorithm 2), validated at construction.

    Parameters
    ----------
    n_samples : int
        Trajectory count (the paper's M), at most 2^30.
    h : float
        Step size: per-step normal-impulse caps are ``h p``, ``p`` in ``[0, 1]^m``.
    max_steps : int
        Trajectory length N.
    eps : float, optional
        Approximation radius epsilon (an impulse, like ``h``); the closing step
        caps every contact's impulse at ``eps / (3 psi)``.  Default ``h / 10``.
    seed : int
        Seed of the sequence and of the random solution choice, ``0 <= seed < 2^63``.
    sequence : {"sobol", "uniform"}
    caps : {"mixed", "uniform", "extremes", "broad"}
        Distribution of the normalized caps ``p``: ``"mixed"`` (default), uniform caps
        for even sample indices and extreme ones for odd; uniform on ``[0, 1]``
        (the paper's choice), ``"extremes"``, which pushes each coordinate
        toward 0 or 1 (``p = (2u)^5 / 2`` below one half, mirrored above), or
        ``"mixed"``: uniform caps for even sample indices, extreme ones for
        odd, or ``"broad"``: sample i takes uniform, extreme or binary caps
        (each coordinate exactly 0 or 1) for i mod 3 = 0, 1, 2 — the held-out
        search of :mod:`reach.sets.completeness`.  The reachable set is the same;
        only how fast samples reach its parts changes.
    solution_choice : {"random", "first", "enumerate", "exact", "walk"}
        How a step whose LCP has several distinct solutions is resolved
        (see :mod:`reach.kernels.routh`): ``"random"`` a random covering
        vector for Lemke per step; ``"first"`` the covering vector of ones;
        ``"enumerate"`` every complementary solution enumerated and one
        distinct v' chosen uniformly (exact, slow, LCPs of size n <= 14);
        ``"exact"`` every distinct v' found by enumerating per-contact modes
        (:mod:`reach.kernels.modes`) and one chosen uniformly, with steps
        certified unique left to Lemke — exact, planar problems with up to
        six contacts, cheap up to three; ``"walk"`` a random covering vector
        and then one hop of Lemke's walk to another solution, taken with
        probability 1/2 (:mod:`reach.kernels.hop`: reaches the solutions of
        index -1 that random covering vectors never do, at about two solves
        a step).  :func:`reach.sample_post_impact_set`
        takes ``"auto"`` (its default: ``"exact"`` where it is cheap, else
        ``"first"`` or ``"random"`` as a probe decides) and records what it
        resolved to (:func:`reach.sampling.choice.auto_choice`).
    keep_paths : int
        Store the velocity paths of the first ``keep_paths`` samples.
    chunk_size : int
        Most samples per unit of work (a chunk, and a checkpoint file); the run plan cuts each phase
        finer, into at least 4 chunks per worker (:func:`reach.sampling.plan.plan_run`).
    strategy : {"directed", "uniform"}
        ``"directed"`` (default): a quarter of the budget by sample index as
        the paper does, the rest in rounds that push outward from the set's edges
        (:mod:`reach.sampling.directed`); ``"uniform"``: the paper's plain sampling,
        every sample by index.
    """

    n_samples: int
    h: float
    max_steps: int
    eps: float = None
    seed: int = 0
    sequence: str = "sobol"
    caps: str = "mixed"
    solution_choice: str = "random"
    keep_paths: int = 0
    chunk_size: int = 16384
    strategy: str = "directed"

    def __post_init__(self):
        put = lambda key, value: object.__setattr__(self, key, value)  # noqa: E731 (frozen)
        put("n_samples", check_integer("n_samples", self.n_samples, low=1, high=MAX_SAMPLES))
        put("h", check_positive_number("h", self.h))
        put("max_steps", check_integer("max_steps", self.max_steps, low=1, high=MAX_STEPS))
        put("eps", self.h / 10.0 if self.eps is None else check_positive_number("eps", self.eps))
        put("seed", check_integer("seed", self.seed, low=0, high=MAX_SEED))
        _check_choice("sequence", self.sequence, SEQUENCES)
        _check_choice("caps", self.caps, CAPS)
        _check_choice("solution_choice", self.solution_choice, SOLUTION_CHOICES)
        keep = check_integer("keep_paths", self.keep_paths, low=0, high=MAX_SAMPLES)
        put("keep_paths", min(keep, self.n_samples))
        put("chunk_size", check_integer("chunk_size", self.chunk_size, low=1, high=MAX_SAMPLES))
        _check_choice("strategy", self.strategy, STRATEGIES)

    def as_dict(self):
        """The settings as a plain dict (JSON-ready)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, mapping):
        """Settings from :meth:`as_dict`'s output (unknown keys are an error)."""
        if not isinstance(mapping, dict):
            raise ValueError(f"settings must be a mapping; got {type(mapping).__name__}.")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(mapping) - names)
        if unknown:
            raise ValueError(f"unknown sampling settings {unknown}.")
        return cls(**mapping)

    def replace(self, **changes):
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


