"""Which solution choice ``"auto"`` (the default) stands for: exact where it is cheap, else first or random by a probe.

Exact choice (:mod:`reach.kernels.planar`) finds every distinct v' of a planar
step by its contact modes and draws one uniformly (SPEC §7).  Its cost per
step is the uniqueness certificate (a test of each of the problem's ``K``
negative and singular pieces), plus, at the steps the certificate does not
prove unique, an enumeration of all ``7^m`` pieces; a certified step costs
what Lemke's method costs.  Up to :data:`AUTO_EXACT_CONTACTS` contacts this is
always cheap.  With four or five contacts it depends on the problem: nothing on
a row of discs whose certificate holds no piece, 35 times random choice on the
disk stack (2,870 pieces, a third of its steps enumerated).  There
:func:`exact_choice_estimate` predicts the cost from counts, not timings — the
certificate's pieces, and the share of steps it leaves to enumerate along a
fixed pilot of :data:`PILOT_SAMPLES` trajectories — so the choice depends on
the problem, ``h`` and ``N`` only, never on the machine or the seed, and
``"auto"`` takes exact choice where the estimate is at most
:data:`EXACT_COST_LIMIT` times random choice.

Where exact choice is not taken (spatial problems, the disk stack), random
covering vectors pay for paths 1.3-1.7 times as long as the covering vector of
ones (27 against 16 pivots a quadruped step), and they buy something only at
steps with several solutions: at a step with one, every covering vector gives
the same v'.  :func:`covering_probe` solves the pilot's steps again with
:data:`PROBE_COVERINGS` random covering vectors besides ones; where none reaches
another v', ``"auto"`` takes ``"first"`` (the covering vector of ones), else
``"random"``.  A probe is a sample, not a proof: it reports a 95 % upper bound on
the share of steps that split (``split_upper``), and ``reach run`` still checks
the set it drew (:func:`reach.analysis.uniqueness.choice_check`).  The answer
is kept for the process (:data:`AUTO_CACHE_SIZE` problems), so the many runs of
one problem that adaptive sampling, propagation through impacts or a notebook
make probe it once.
"""

from __future__ import annotations

import copy

import numpy as np

from reach.sampling.caps import draw_caps
from reach.sampling.cold_start import split_cold_compile, start_lemke_chain
from reach.sampling.directed import MIN_DIRECTED
from reach.sampling.plan import Plan
from reach.sampling.settings import SamplingSettings
from reach.kernels.modes import MODES, count_flagged
from reach.kernels.replay import solve_steps
from reach.kernels.routh import CHOICE_FIRST, allocate_output, modes_flag, run_samples_kernel
from reach.kernels.routh_data import StepOptions, make_step_work
from reach.problem.step import kernel_data, step_options

__all__ = ["AUTO_EXACT_CONTACTS", "AUTO_ESTIMATED_CONTACTS", "EXACT_COST_LIMIT", "PILOT_SAMPLES", "PROBE_COVERINGS",
           "PROBE_MAX_STEPS", "SPLIT_RTOL", "AUTO_CACHE_SIZE", "resolve_choice", "auto_choice", "exact_choice_estimate",
           "covering_probe", "clopper_pearson_upper"]

#: ``"auto"`` is ``"exact"`` for planar problems with at most this many contacts.
AUTO_EXACT_CONTACTS = 3
#: Up to this many contacts ``"auto"`` estimates exact choice's cost (every piece's inverse is stored up to
#: 7^5 pieces; with six contacts an enumeration solves 117,649 systems).
AUTO_ESTIMATED_CONTACTS = 5
#: ``"auto"`` takes exact choice where its estimated cost is at most this many times random choice's.
EXACT_COST_LIMIT = 1.5
#: Trajectories of the pilot (Sobol caps, seed 0, the covering vector of ones) whose steps are certified.
PILOT_SAMPLES = 128
#: Measured costs (CPU µs, docs/guide/model.md): one certificate piece tested, one piece tried in an
#: enumeration, and a verified Lemke step of an LCP of size n, about n^2 / 80 (1.2 µs at n = 10, 5 at 20, 8 at 25).
PIECE_TEST_US, PIECE_ENUMERATED_US, LEMKE_US_PER_N2 = 0.05, 0.067, 1 / 80
#: Random covering vectors :func:`covering_probe` solves each pilot step with, besides the covering vector of ones.
PROBE_COVERINGS = 8
#: Most pilot steps :func:`covering_probe` solves (the first ones, in the pilot's order): bounded memory and time
#: whatever N (the quadruped touchdown's pilot has 376 steps, four balls hitting their line 950).
PROBE_MAX_STEPS = 1024
#: Two answers of a step differ where some contact velocity differs by more than this share of the largest
#: pre-impact contact velocity (as :func:`reach.analysis.walk.walk_solutions` tells solutions apart).
SPLIT_RTOL = 1e-7
#: :func:`auto_choice`'s answers kept for the process, by problem fingerprint, ``h`` and ``N`` (the oldest dropped first).
AUTO_CACHE_SIZE = 64
_AUTO_CACHE = {}


def clopper_pearson_upper(k, n, confidence):
    """The one-sided Clopper-Pearson upper bound, at ``confidence``, on a share seen ``k`` times in ``n`` trials.

    The share ``p`` at which ``k`` or fewer of ``n`` is as unlikely as ``1 -
    confidence``: ``I^-1(k + 1, n - k; confidence)``, the inverse of the
    regularized incomplete beta function (``scipy.stats.beta.ppf(confidence,
    k + 1, n - k)``, the same bits on SciPy 1.17), and 1 where
    ``k == n``.  SciPy's special functions, not its statistics: importing
    ``scipy.stats`` took 1.0 s of every command's 1.7 s start-up
    (``python -X importtime -c "import reach"``).
    """
    from scipy.special import betaincinv

    return float(betaincinv(k + 1, n - k, confidence)) if k < n else 1.0


def resolve_choice(problem, solution_choice, h=None, max_steps=None):
    """The solution choice ``"auto"`` stands for on ``problem`` (any other is returned as it is).

    The first item of :func:`auto_choice`.
    """
    return auto_choice(problem, solution_choice, h, max_steps)[0]


def auto_choice(problem, solution_choice, h=None, max_steps=None):
    """``(choice, why)``: the solution choice ``"auto"`` stands for on ``problem``, and what decided it.

    Planar problems with at most :data:`AUTO_EXACT_CONTACTS` contacts: ``"exact"``.
    With up to :data:`AUTO_ESTIMATED_CONTACTS`, and ``h`` and ``max_steps``
    given: ``"exact"`` where :func:`exact_choice_estimate` puts its cost at
    most :data:`EXACT_COST_LIMIT` times random choice's.  Otherwise, with ``h``
    and ``max_steps`` given, ``"first"`` where :func:`covering_probe` finds
    no step at which random covering vectors reach another v' than the
    covering vector of ones, ``"random"`` where it finds one; without them,
    ``"random"``.  ``why`` is None for a choice other than ``"auto"``, else a
    dict (``rule``, and ``estimate`` or ``probe`` where one was made), which
    the sampler keeps in ``metadata["auto_choice"]``.
    """
    if solution_choice != "auto":
        return solution_choice, None
    if problem.planar and problem.m <= AUTO_EXACT_CONTACTS:
        return "exact", {"rule": f"planar, at most {AUTO_EXACT_CONTACTS} contacts"}
    if not _usable(h, max_steps):
        return "random", {"rule": "no usable h and N to probe with"}
    key = (problem.fingerprint(), float(h), int(max_steps))
    if key not in _AUTO_CACHE:
        while _AUTO_CACHE and len(_AUTO_CACHE) >= AUTO_CACHE_SIZE:
            del _AUTO_CACHE[next(iter(_AUTO_CACHE))]
        _AUTO_CACHE[key] = _decide(problem, h, max_steps)
    choice, why = _AUTO_CACHE[key]
    return choice, copy.deepcopy(why)


def _decide(problem, h, max_steps):
    """:func:`auto_choice` for a problem beyond the contacts where exact choice is always taken."""
    why = {}
    if problem.planar and problem.m <= AUTO_ESTIMATED_CONTACTS:
        why["estimate"] = exact_choice_estimate(problem, h, max_steps)
        if why["estimate"]["ratio"] <= EXACT_COST_LIMIT:
            return "exact", {"rule": "estimated cheap", **why}
    why["probe"] = probe = covering_probe(problem, h, max_steps)
    if probe["split"] == 0 and probe["steps"] > 0:
        return "first", {"rule": "no probed step splits", **why}
    return "random", {"rule": "a probed step splits" if probe["split"] else "no step to probe", **why}


def _usable(h, max_steps):
    """Whether ``h`` and ``max_steps`` can run a pilot (bad ones are refused, by name, when the run is planned)."""
    try:
        return bool(np.isfinite(float(h)) and float(h) > 0 and int(max_steps) == max_steps and max_steps >= 1)
    except (TypeError, ValueError, OverflowError):
        return False


def exact_choice_estimate(problem, h, max_steps, *, samples=PILOT_SAMPLES):
    """Exact choice's predicted cost per step over random choice's, from counts (planar problems).

    Returns a dict: ``pieces`` (the certificate's negative and singular
    pieces, each tested at every step), ``certified`` (whether the
    certificate applies at all), ``steps`` and ``flagged`` (steps of the pilot
    the certificate did not prove unique; 0 and 0 when no pilot was needed)
    and ``ratio``: ``(pieces * a + f * 7^m * b + L) / L`` with ``f`` the
    flagged share, ``a`` and ``b`` the measured costs of a piece tested and a
    piece enumerated, ``L`` that of a Lemke step.  A problem whose
    certificate alone costs more than the limit allows gets no pilot.
    """
    m, n = problem.m, problem.lcp_size
    data = kernel_data(problem, certificate="auto")
    pieces = int(data.piece_modes.shape[0])
    lemke = LEMKE_US_PER_N2 * n * n
    enumerate_us = MODES**m * PIECE_ENUMERATED_US
    out = {"pieces": pieces, "certified": bool(data.certified), "steps": 0, "flagged": 0}
    if not data.certified:  # every step is enumerated
        return {**out, "ratio": (enumerate_us + lemke) / lemke}
    base = (pieces * PIECE_TEST_US + lemke) / lemke
    if pieces == 0 or base > EXACT_COST_LIMIT:  # every step certified, or too costly whatever the pilot finds
        return {**out, "ratio": base}
    V, L = _pilot_steps(problem, data, h, max_steps, samples)
    flagged = int(count_flagged(data, V, L, make_step_work(n, m, problem.nv)))
    share = flagged / max(len(V), 1)
    return {**out, "steps": len(V), "flagged": flagged, "ratio": base + share * enumerate_us / lemke}


def _pilot_steps(problem, data, h, max_steps, samples):
    """The velocities and caps (velocity units) of every step of ``samples`` fixed trajectories."""
    _split_cold_compile(problem, h, max_steps)
    opts = step_options(problem, h=h, choice=CHOICE_FIRST)
    P = draw_caps(problem.m, max_steps, 0, samples, seed=0)
    out = allocate_output(samples, problem.nv, samples, max_steps + 2)
    run_samples_kernel(data, opts, P, 0, out, make_step_work(problem.lcp_size, problem.m, problem.nv),
                       modes_flag(CHOICE_FIRST), None)
    steps = np.minimum(out.path_len - 1, max_steps)  # a path's row N + 1, if any, is the closing step
    taken = np.arange(max_steps)[None, :] < steps[:, None]  # (samples, N): the steps each sample took
    V = out.paths[:, :max_steps][taken]
    return np.ascontiguousarray(V), np.ascontiguousarray(opts.h * P[taken])


def _split_cold_compile(problem, h, max_steps):
    """The pilot is the first run of an automatic choice: where the cache is cold, Lemke's chain compiles in
    another process while this one compiles a directed run's host side, as a run's own first call does
    (:mod:`reach.sampling.cold_start`); the pilot's kernel then loads the chain from the cache."""
    try:
        settings = SamplingSettings(MIN_DIRECTED, h, max_steps, solution_choice="first")
        plan = Plan(problem, settings)
    except ValueError:  # (too many Sobol dimensions, say: the pilot's own call says so)
        return
    split_cold_compile(plan, start_lemke_chain(problem, settings))


def covering_probe(problem, h, max_steps, *, samples=PILOT_SAMPLES, coverings=PROBE_COVERINGS):
    """Whether random covering vectors reach other v' than the covering vector of ones, on a fixed pilot.

    Every step of the pilot of :func:`_pilot_steps` (``samples`` Sobol
    trajectories, seed 0; the first :data:`PROBE_MAX_STEPS`) is solved again with the covering vector of ones
    and with ``coverings`` random ones, log-uniform as the sampler draws them
    (a fixed seed).  A step *splits* where two verified answers differ (some
    contact velocity by more than :data:`SPLIT_RTOL` of the largest
    pre-impact one).  Depends on the problem, ``h`` and ``max_steps`` only.

    Returns a dict: ``steps``, ``split`` (steps that split), ``split_upper``
    (the one-sided 95 % Clopper-Pearson upper bound of the share of steps that
    split, were the probed steps independent draws: 0.8 % for none of 376),
    ``failed`` (solves that did not verify, left out of the comparison) and
    ``coverings``.
    """
    data = kernel_data(problem)
    V, L = (a[:PROBE_MAX_STEPS] for a in _pilot_steps(problem, data, h, max_steps, samples))
    K, n, R = len(V), problem.lcp_size, coverings + 1
    D = np.ones((K, R, n))
    ratio = np.log(StepOptions._field_defaults["covering_ratio"])
    D[:, 1:] = np.exp(ratio * np.random.default_rng(0).uniform(-1.0, 1.0, (K, coverings, n)))
    V_next, status = np.empty((K * R, problem.nv)), np.empty(K * R, dtype=np.int64)
    solve_steps(data, step_options(problem), make_step_work(n, problem.m, problem.nv), np.repeat(V, R, axis=0),
                np.repeat(L, R, axis=0), D.reshape(K * R, n), 0, K * R, V_next, status)
    C = problem.contact_velocities(V_next).reshape(K, R, -1)
    ok = (status == 0).reshape(K, R)
    scale = max(float(np.max(np.abs(problem.contact_velocities(problem.v)))), 1e-300)
    apart = np.max(np.abs(C - C[:, :1]), axis=2) > SPLIT_RTOL * scale
    split = np.any(apart & ok & ok[:, :1], axis=1)
    k = int(split.sum())
    upper = clopper_pearson_upper(k, K, 0.95)
    return {"steps": int(K), "split": k, "split_upper": upper, "failed": int(np.count_nonzero(~ok)),
            "coverings": int(coverings)}
