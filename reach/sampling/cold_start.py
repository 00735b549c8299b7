"""A cold start's compiling, split between two processes: the step's two chains at once.

A first run compiles the kernels, one after another in one process: Numba
compiles a kernel when a call to it is typed, and every kernel it calls first.
The step of exact choice (and of walk choice and enumeration) has two chains
that never call each other: the contact modes' (:func:`~reach.kernels.routh.modes_or_bases`,
about a third of a cold ``reach run rocking-block``'s compiling) and Lemke's
method's (:func:`~reach.kernels.routh.robust_step`, another third).  Where the
cache holds neither, :func:`split_cold_compile` starts a Python process that
compiles Lemke's chain while this one compiles the modes'; then the sampling
kernel, compiled here, loads Lemke's chain from Numba's disk cache.

The same functions are compiled for the same argument types as the sampling
kernel's own calls (:func:`step_arguments` builds them as
:func:`reach.sampling.engine.run_chunk` does, and a test checks the types), so
the machine code, and every set, is the same.  The other process is a plain
``python -c`` (no multiprocessing bootstrap: a user's script without a
``__main__`` guard is not run again); if it fails or outlasts
:data:`WAIT_SECONDS`, the sampling kernel compiles what is missing here, as
before.
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

__all__ = ["WAIT_SECONDS", "step_arguments", "split_cold_compile", "compile_lemke_chain"]

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
    """Compile the step's two chains at once, where it pays; returns the other process's exit status (0: its
    chain is cached), or None where it did not split.

    It does where the plan's kernel holds the contact modes (``plan.flags``), neither
    chain is cached, this is not a worker's process (a pool's workers compile as they did) and two cores or more
    are there.  Threads call it one at a time: the first splits, the others find the chains cached.
    """
    with _ONE_AT_A_TIME:
        return _split(plan)


def _split(plan):
    if plan.flags[0] is None or multiprocessing.parent_process() is not None or _cores() < 2:
        return None
    if _cached(robust_step) or _cached(modes_or_bases):
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
    _, modes, hop = step_arguments(plan.data, plan.options, plan.problem)
    try:
        modes_or_bases(*modes)
        hop_step(*hop)
        other.wait(timeout=WAIT_SECONDS)
    except BaseException as error:  # Ctrl-C, or its time is up: the sampling kernel compiles what is missing here
        other.kill()
        if not isinstance(error, subprocess.TimeoutExpired):
            raise
    finally:
        Path(f.name).unlink(missing_ok=True)  # the other process removes it once read: here, where it did not
    return other.wait()


def compile_lemke_chain(path):
    """The other process: read ``(data, options, problem)`` pickled in the file ``path``, compile
    :func:`~reach.kernels.routh.robust_step`'s chain for them (it runs one step), and so write it to Numba's disk
    cache.  It removes the file once read, so that it does not outlive a run killed meanwhile."""
    with open(path, "rb") as f:
        data, options, problem = pickle.load(f)
    Path(path).unlink(missing_ok=True)
    robust_step(*step_arguments(data, options, problem)[0])
