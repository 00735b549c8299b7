"""A cold start's compiling, split between two processes: Lemke's chain there, the rest here.

A first run compiles the kernels, one after another in one process: Numba
compiles a kernel when a call to it is typed, and every kernel it calls first.
Lemke's method's chain (:func:`~reach.kernels.routh.robust_step`, about a
third of a cold ``reach run rocking-block``'s compiling, more of a spatial
problem's) calls nothing else a run compiles, and nothing else calls it but
the sampling kernel.  Where the cache does not hold it, a run starts a Python
process that compiles it (:func:`start_lemke_chain`) before it builds its plan,
and meanwhile compiles here the rest of what it will meet
(:func:`split_cold_compile`):

- the plan's uniqueness certificate (exact choice; the other process builds
  its data without it: their types are the same);
- the contact modes' chain (:func:`~reach.kernels.routh.modes_or_bases`, and
  :func:`~reach.kernels.hop.hop_step`) of exact choice, walk choice and
  enumeration;
- the host's kernels of a directed run (:func:`compile_host_side`): the first
  samples' caps, and a round's choice of parents and its children's caps, run
  on a few made-up outcomes.

Then the sampling kernel, compiled here, loads Lemke's chain from Numba's disk
cache.  Where there is nothing to compile here meanwhile (random or first
choice, uniform sampling) it does not split.

The same functions are compiled for the same argument types as the run's own
calls (:func:`step_arguments` builds the chains' as
:func:`reach.sampling.engine.run_chunk` does; the host's kernels are reached
through the functions the run calls; tests check the types), so the machine
code, and every set, is the same.  The other process is a plain ``python -c``
(no multiprocessing bootstrap: a user's script without a ``__main__`` guard is
not run again); if it fails or outlasts :data:`WAIT_SECONDS`, the sampling
kernel compiles what is missing here, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np

from reach.kernels.cache import holds
from reach.kernels.hop import hop_step
from reach.kernels.enumeration import first_solution_kernel
from reach.kernels.lcp import solve_scaled
from reach.kernels.routh import (CHOICE_ENUMERATE, CHOICE_EXACT, CHOICE_FIRST, CHOICE_RANDOM, CHOICE_WALK,
                                 certify_flag, fill_covering, modes_or_bases, robust_step)
from reach.kernels.routh_data import certified, make_step_work
from reach.sampling.caps import draw_caps, draw_caps_at
from reach.sampling.directed import MIN_DIRECTED, children_caps, empty_arrays
from reach.sampling.plan import Plan

__all__ = ["WAIT_SECONDS", "Other", "step_arguments", "lemke_arguments", "start_lemke_chain", "split_cold_compile",
           "stop", "compile_host_side", "compile_lemke_chain"]

#: The longest this process waits for the other one's compiling before it goes on without it.
WAIT_SECONDS = 600.0

_ONE_AT_A_TIME = threading.Lock()
_STARTED = []  # set once this process has started the other one
# The other process: this reach (its folder first on the path only where its own path finds no reach, or another
# one), then Lemke's chain.  Arguments: the pickle, the folder that holds this reach, its __init__.py.
_CHILD = """import importlib.util, os, sys
spec = importlib.util.find_spec("reach")
if spec is None or os.path.realpath(spec.origin) != sys.argv[3]:
    sys.path.insert(0, sys.argv[2])
from reach.sampling.cold_start import compile_lemke_chain
compile_lemke_chain(sys.argv[1])
"""


def step_arguments(data, options, problem):
    """``(robust_step's, modes_or_bases's, hop_step's)`` arguments for one step of a sample at ``v0``, of the
    types the sampling kernel passes (fresh work arrays, as :func:`~reach.sampling.engine.run_chunk` makes them;
    the sample and step indices ``np.int64``; ``certify`` as the plan's flags give it; Lemke's choice the one
    :func:`~reach.kernels.routh.modes_or_bases` hands it)."""
    work = make_step_work(problem.lcp_size, problem.m, problem.nv)
    work.v[:] = data.v0
    work.lam[:] = 0.5 * options.h
    sample, step = np.int64(0), np.int64(0)
    head = (data, work.v, work.lam, options)
    choice = int(options.choice)
    choice = CHOICE_FIRST if choice in (CHOICE_EXACT, CHOICE_ENUMERATE) else CHOICE_RANDOM if choice == CHOICE_WALK \
        else choice
    robust = (*head, choice, work, sample, step, work.v_next)
    modes = (*head, work, sample, step, work.v_next, certify_flag(data))
    hop = (*head, work, sample, step, work.v_next)
    return robust, modes, hop


def lemke_arguments(robust):
    """``(solve_scaled's arguments, [(kernel, arguments), ...])``: of the calls in Lemke's chain, from
    ``robust_step``'s arguments ``robust`` (:func:`step_arguments`): :func:`~reach.kernels.lcp.solve_scaled`'s,
    which holds most of the chain, and those of ``robust_step``'s other callees that take a second or more to
    compile (each as its call in :func:`~reach.kernels.routh.robust_step` or
    :func:`~reach.kernels.routh.routh_step_kernel` types it)."""
    data, v, lam, options, choice, work, sample, step, v_next = robust
    solve = (data.lcp, work.q, work.d, options.lemke, work.lemke, work.z, work.w)
    first, tol = np.int64(0), options.lemke.verify_tol
    m, nb = data.Jn.shape[0], data.Jbar.shape[0]
    return solve, [(fill_covering, (work.d, choice, options.covering_ratio, options.seed, sample, step, first)),
                   (first_solution_kernel, (data.lcp, work.q, work.lemke.qs, 0, tol, work)),
                   (certified, (data.lcp.M, work.q, work.z, work.w, m, nb, options))]


def _compile(dispatcher, args):
    """Compile (or load from the cache) ``dispatcher`` for the types of ``args``, without running it."""
    dispatcher.compile(tuple(numba.typeof(a) for a in args))


def _cached(dispatcher):
    """Whether Numba's disk cache holds ``dispatcher`` for some argument types (:func:`reach.kernels.cache.holds`)."""
    return holds(f"{dispatcher.py_func.__module__.rsplit('.', 1)[-1]}.{dispatcher.py_func.__qualname__}")


def _cores():
    return os.cpu_count() or 1


class Other(NamedTuple):
    """The other process of a split cold start, and its input file (which it removes once read)."""

    process: subprocess.Popen
    path: Path


def start_lemke_chain(problem, settings):
    """Start the other process on Lemke's chain, where a split pays; returns it (an :class:`Other`), or None.

    A run calls it before it builds its plan, whose uniqueness certificate (exact choice) then compiles here
    meanwhile.  It starts where Lemke's chain is not cached, this process will have something to compile
    meanwhile (the contact modes' chain, or a directed run's host side), this is not a worker's process (a
    pool's workers compile as they did) and two cores or more are there; once a process at most (threads
    call it one at a time).
    """
    with _ONE_AT_A_TIME:
        if _STARTED or not _pays(settings):
            return None
        with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as f:
            path = Path(f.name)
            try:
                pickle.dump((problem, settings, _modes(settings)), f)
            except Exception:  # a problem that does not pickle: no split
                path.unlink()
                return None
        try:
            here = Path(__file__).resolve().parents[2], Path(sys.modules["reach"].__file__).resolve()
            process = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), *map(str, here)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            path.unlink()
            return None
        _STARTED.append(True)
        return Other(process, path)


def _modes(settings):
    """Whether the run's kernel holds the contact modes (as ``Plan.flags[0]`` says)."""
    return settings.solution_choice not in ("random", "first")


def _pays(settings):
    return ((_modes(settings) or _directed(settings)) and multiprocessing.parent_process() is None and _cores() >= 2
            and not _cached(robust_step))


def split_cold_compile(plan, other):
    """Compile here what a run meets besides Lemke's chain while ``other`` (:func:`start_lemke_chain`) compiles
    that; returns the other process's exit status (0: its chain is cached), or None where there is none.

    Here: the contact modes' chain where the plan's kernel holds it (``plan.flags``), and the host side
    (:func:`compile_host_side`).  Where it does not, this process has less to do, and the other one compiles
    only :func:`~reach.kernels.lcp.solve_scaled`'s chain: the other callees of Lemke's chain
    (:func:`lemke_arguments`) compile here, and then ``robust_step`` itself when the sampling kernel calls it.
    Then it waits for the other process, at most :data:`WAIT_SECONDS`.
    """
    if other is None:
        return None
    try:
        robust, chain, hop = step_arguments(plan.data, plan.options, plan.problem)
        if plan.flags[0] is not None:
            modes_or_bases(*chain)
            hop_step(*hop)
        compile_host_side(plan)
        if plan.flags[0] is None:  # the other process compiles solve_scaled's chain: robust_step's other callees here
            for dispatcher, args in lemke_arguments(robust)[1]:
                _compile(dispatcher, args)
        other.process.wait(timeout=WAIT_SECONDS)
    except BaseException as error:  # Ctrl-C, or its time is up: the sampling kernel compiles what is missing here
        stop(other)
        if not isinstance(error, subprocess.TimeoutExpired):
            raise
    finally:
        other.path.unlink(missing_ok=True)  # the other process removes it once read: here, where it did not
    return other.process.wait()


def stop(other):
    """End ``other`` (a run that stops before it waits for it: its plan failed, Ctrl-C); None: nothing."""
    if other is not None:
        other.process.kill()
        other.process.wait()
        other.path.unlink(missing_ok=True)


def _directed(settings):
    return settings.strategy == "directed" and settings.n_samples >= MIN_DIRECTED


#: Made-up outcomes :func:`compile_host_side` chooses parents among.
_MADE_UP = 64


def compile_host_side(plan):
    """Compile (or load) the host's kernels a run meets after its first samples, by the calls it makes.

    The first samples' caps (:func:`~reach.sampling.caps.draw_caps`, as
    :func:`reach.sampling.engine.run_chunk` draws them), and for a directed run
    a round's choice of parents and its children's caps
    (:func:`~reach.sampling.directed.children_caps`) among a few made-up
    outcomes: the pre-impact velocity, moved at random.  Nothing is kept; the
    kernels' argument types are those of the run's own calls.
    """
    s, p = plan.settings, plan.problem
    draw_caps(p.m, s.max_steps, 0, 1, seed=s.seed, sequence=s.sequence, caps=s.caps)
    if not _directed(s):
        return
    arrays = empty_arrays(_MADE_UP, p.nv)
    rng = np.random.default_rng(0)
    arrays["velocities"][:] = p.v + rng.normal(size=(_MADE_UP, p.nv)) * (1.0 + np.abs(p.v))
    arrays["kept"][:] = True
    children_caps(p, s, 0, arrays, _MADE_UP, _MADE_UP // 4,
                  lambda indices: draw_caps_at(p.m, s.max_steps, indices, seed=s.seed, sequence=s.sequence,
                                               caps=s.caps))


def compile_lemke_chain(path):
    """The other process: read ``(problem, settings, whole)`` pickled in the file ``path``, build the run's plan
    without the uniqueness certificate (its data have the same types: tested), compile Lemke's chain for it
    (``whole``: :func:`~reach.kernels.routh.robust_step`'s; else :func:`~reach.kernels.lcp.solve_scaled`'s,
    see :func:`split_cold_compile`), and so write it to Numba's disk cache.  It removes the file once read, so
    that it does not outlive a run killed meanwhile."""
    with open(path, "rb") as f:
        problem, settings, whole = pickle.load(f)
    Path(path).unlink(missing_ok=True)
    plan = Plan(problem, settings, certificate=False)
    robust = step_arguments(plan.data, plan.options, problem)[0]
    _compile(*((robust_step, robust) if whole else (solve_scaled, lemke_arguments(robust)[0])))
