"""A cold start's compiling, split between two processes: Lemke's chain there, the rest here.

A first run compiles the kernels, one after another in one process: Numba
compiles a kernel when a call to it is typed, and every kernel it calls first.
Lemke's method's chain (:func:`~reach.kernels.routh.robust_step`, about a
third of a cold ``reach run rocking-block``'s compiling, more of a spatial
problem's) calls nothing else a run compiles, and nothing else calls it but
the sampling kernel.  Where the cache does not hold it,
:func:`split_cold_compile` starts a Python process that compiles it, while
this one compiles the rest of what the run will meet:

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

import numpy as np

from reach.kernels.cache import holds
from reach.kernels.hop import hop_step
from reach.kernels.routh import (CHOICE_ENUMERATE, CHOICE_EXACT, CHOICE_FIRST, CHOICE_RANDOM, CHOICE_WALK,
                                 certify_flag, modes_or_bases, robust_step)
from reach.kernels.routh_data import make_step_work
from reach.sampling.caps import draw_caps, draw_caps_at
from reach.sampling.directed import MIN_DIRECTED, children_caps, empty_arrays

__all__ = ["WAIT_SECONDS", "step_arguments", "split_cold_compile", "compile_host_side", "compile_lemke_chain"]

#: The longest this process waits for the other one's compiling before it goes on without it.
WAIT_SECONDS = 600.0

_ONE_AT_A_TIME = threading.Lock()
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


def _cached(dispatcher):
    """Whether Numba's disk cache holds ``dispatcher`` for some argument types (:func:`reach.kernels.cache.holds`)."""
    return holds(f"{dispatcher.py_func.__module__.rsplit('.', 1)[-1]}.{dispatcher.py_func.__qualname__}")


def _cores():
    return os.cpu_count() or 1


def split_cold_compile(plan):
    """Compile Lemke's chain in another process while this one compiles the rest, where it pays; returns the
    other process's exit status (0: its chain is cached), or None where it did not split.

    It does where Lemke's chain is not cached, this process has something to compile meanwhile (the plan's
    kernel holds the contact modes, ``plan.flags``, or the run is directed), this is not a worker's process (a
    pool's workers compile as they did) and two cores or more are there.  Threads call it one at a time: the
    first splits, the others find the chain cached.
    """
    with _ONE_AT_A_TIME:
        return _split(plan)


def _split(plan):
    modes = plan.flags[0] is not None
    if not (modes or _directed(plan.settings)) or multiprocessing.parent_process() is not None or _cores() < 2:
        return None
    if _cached(robust_step):
        return None
    with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as f:
        pickle.dump((plan.data, plan.options, plan.problem), f)
    try:
        other = subprocess.Popen([sys.executable, "-c", _CHILD, f.name, str(Path(__file__).resolve().parents[2]),
                                  str(Path(sys.modules["reach"].__file__).resolve())],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        os.unlink(f.name)
        return None
    try:
        if modes:
            _, chain, hop = step_arguments(plan.data, plan.options, plan.problem)
            modes_or_bases(*chain)
            hop_step(*hop)
        compile_host_side(plan)
        other.wait(timeout=WAIT_SECONDS)
    except BaseException as error:  # Ctrl-C, or its time is up: the sampling kernel compiles what is missing here
        other.kill()
        if not isinstance(error, subprocess.TimeoutExpired):
            raise
    finally:
        Path(f.name).unlink(missing_ok=True)  # the other process removes it once read: here, where it did not
    return other.wait()


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
    """The other process: read ``(data, options, problem)`` pickled in the file ``path``, compile
    :func:`~reach.kernels.routh.robust_step`'s chain for them (it runs one step), and so write it to Numba's disk
    cache.  It removes the file once read, so that it does not outlive a run killed meanwhile."""
    with open(path, "rb") as f:
        data, options, problem = pickle.load(f)
    Path(path).unlink(missing_ok=True)
    robust_step(*step_arguments(data, options, problem)[0])
