"""A cold start's two chains compiled at once (reach.sampling.cold_start)."""

import numba
import numpy as np
import pytest

import scenarios
from reach.kernels.hop import hop_step
from reach.kernels.lcp import solve_scaled
from reach.kernels.routh import allocate_output, modes_or_bases, robust_step, run_samples_kernel
from reach.kernels.routh_data import make_step_work
from reach.sampling import cold_start
from reach.sampling import directed
from reach.sampling import engine
from reach.sampling.cold_start import split_cold_compile, start_lemke_chain, step_arguments
from reach.sampling.directed import MIN_DIRECTED
from reach.sampling.engine import Plan
from reach.sampling.settings import SamplingSettings


def _plan(name="rocking-block", choice="exact", n=8, **settings):
    s = scenarios.get(name)
    return Plan(s.problem, SamplingSettings(n, s.h, s.N, solution_choice=choice, **settings))


@pytest.mark.parametrize("name", ["rocking-block", "disk-stack"])  # two contacts (no certificate), and three
def test_the_chains_are_compiled_for_the_argument_types_the_sampling_kernel_passes(name):
    """Otherwise the sampling kernel would not find them in the cache, and would compile them again.

    A copy of the sampling kernel without Numba's cache is compiled here, so that its calls are typed in this
    process whether or not the cache held it: each chain's dispatcher then holds the types of its call.
    """
    plan = _plan(name)
    copy = numba.njit(**{key: value for key, value in run_samples_kernel.targetoptions.items() if key != "nopython"},
                      cache=False)(run_samples_kernel.py_func)
    p, N = plan.problem, plan.settings.max_steps
    P = np.full((1, N, p.m), 0.5)
    copy(plan.data, plan.options, P, 0, allocate_output(1, p.nv, 0, N + 2), make_step_work(p.lcp_size, p.m, p.nv),
         *plan.flags)
    robust, modes, hop = step_arguments(plan.data, plan.options, plan.problem)
    for dispatcher, args in ((robust_step, robust), (modes_or_bases, modes), (hop_step, hop)):
        assert tuple(numba.typeof(a) for a in args) in dispatcher.signatures, dispatcher.py_func.__name__


def _cold(monkeypatch, tmp_path):
    """The cache counted as cold, two cores, no other process started yet, temporary files in ``tmp_path``."""
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    monkeypatch.setattr(cold_start, "_cores", lambda: 2)
    monkeypatch.setattr(cold_start, "_STARTED", [])
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(cold_start.tempfile, "tempdir", None)  # TMPDIR is read again


def _split(plan):
    return split_cold_compile(plan, start_lemke_chain(plan.problem, plan.settings))


def _uncached(dispatcher):
    return numba.njit(**{key: value for key, value in dispatcher.targetoptions.items() if key != "nopython"},
                      cache=False)(dispatcher.py_func)


def test_lemkes_chain_in_parts_is_compiled_for_the_argument_types_robust_step_passes(monkeypatch):
    """Where the run has no contact modes, the other process compiles solve_scaled's chain and this one the
    other callees: copies of robust_step and routh_step_kernel without Numba's cache are typed here, so that
    their callees' dispatchers hold the types of their calls."""
    from reach.kernels import routh

    plan = _plan("disk-stack", choice="random")
    monkeypatch.setattr(routh, "routh_step_kernel", _uncached(routh.routh_step_kernel))
    robust = step_arguments(plan.data, plan.options, plan.problem)[0]
    _uncached(robust_step).compile(tuple(numba.typeof(a) for a in robust))
    solve, others = cold_start.lemke_arguments(robust)
    for dispatcher, args in ((solve_scaled, solve), *others):
        assert tuple(numba.typeof(a) for a in args) in dispatcher.signatures, dispatcher.py_func.__name__


def test_the_other_process_runs_lemkes_chain(monkeypatch, tmp_path):
    """With the cache counted as cold, the split runs: the other process (here it loads Lemke's chain from the
    cache, or compiles it) exits 0, and its input file is gone.  A process starts one other process at most."""
    _cold(monkeypatch, tmp_path)
    assert _split(_plan()) == 0
    assert list(tmp_path.iterdir()) == []
    assert start_lemke_chain(_plan().problem, _plan().settings) is None


def test_the_other_process_builds_data_of_the_same_types_without_the_certificate():
    """It skips exact choice's certificate and piece tables (about ten seconds of compiling, here meanwhile):
    Lemke's chain compiled for its data is the one the run's data call."""
    for name in ("rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack"):
        plan = _plan(name)
        other = Plan(plan.problem, plan.settings, certificate=False)
        assert plan.data.certified or len(plan.data.mode_inv), name  # (two contacts: the pieces, no certificate)
        assert not other.data.certified and len(other.data.mode_inv) == 0
        mine, its = step_arguments(plan.data, plan.options, plan.problem)[0], \
            step_arguments(other.data, other.options, other.problem)[0]
        assert tuple(map(numba.typeof, mine)) == tuple(map(numba.typeof, its)), name


def test_a_run_whose_plan_fails_stops_the_other_process(monkeypatch, tmp_path):
    from reach import sample_post_impact_set
    from reach.examples import quadruped_touchdown

    _cold(monkeypatch, tmp_path)
    started = []
    start = cold_start.start_lemke_chain

    def recorded(problem, settings):
        started.append(start(problem, settings))
        return started[-1]

    monkeypatch.setattr(engine, "start_lemke_chain", recorded)
    with pytest.raises(ValueError, match="planar"):
        sample_post_impact_set(quadruped_touchdown(), 512, 1.0, 10, solution_choice="exact")
    assert started[0] is not None and started[0].process.poll() is not None
    assert list(tmp_path.iterdir()) == []


def test_a_directed_run_without_contact_modes_is_split(monkeypatch, tmp_path):
    """Random choice: Lemke's chain there, the directed rounds' kernels here."""
    _cold(monkeypatch, tmp_path)
    plan = _plan("disk-stack", choice="random", n=MIN_DIRECTED)
    assert plan.flags[0] is None
    assert _split(plan) == 0


def test_an_automatic_choices_pilot_splits(monkeypatch, tmp_path):
    """A spatial run's automatic choice runs a pilot before the run: the pilot's call is the first, so it splits."""
    from reach.examples import quadruped_touchdown
    from reach.sampling import choice

    _cold(monkeypatch, tmp_path)
    status = []
    monkeypatch.setattr(choice, "split_cold_compile",
                        lambda plan, other: status.append((plan.settings.strategy, split_cold_compile(plan, other))))
    choice._split_cold_compile(quadruped_touchdown(), 1.0, 10)
    assert status == [("directed", 0)]
    assert list(tmp_path.iterdir()) == []


_HOST_KERNELS = ("projected_rows", "standardize_columns", "grid_squares", "top_along", "perturbed_caps")


@pytest.mark.parametrize("name, choice, settings", [("rocking-block", "exact", {}),
                                                    ("disk-stack", "random", {"caps": "extremes"})])
def test_the_host_side_is_compiled_for_the_types_a_directed_run_passes(monkeypatch, name, choice, settings):
    """compile_host_side's made-up round calls each kernel of a round's selection with the argument types a
    real directed run passes (recorded at the calls, in both), so the run finds them compiled."""
    from reach import sample_post_impact_set

    types = {}

    def recorded(label, kernel):
        def call(*args):
            types[label].add(tuple(numba.typeof(a) for a in args))
            return kernel(*args)
        return call

    for label in _HOST_KERNELS:
        monkeypatch.setattr(directed, label, recorded(label, getattr(directed, label)))
    s = scenarios.get(name)
    types.update({label: set() for label in _HOST_KERNELS})
    sample_post_impact_set(s.problem, 2 * MIN_DIRECTED, s.h, s.N, solution_choice=choice, seed=3, **settings)
    real = types.copy()
    types.update({label: set() for label in _HOST_KERNELS})
    cold_start.compile_host_side(_plan(name, choice, n=2 * MIN_DIRECTED, **settings))
    for label in _HOST_KERNELS:
        assert real[label] and types[label] and types[label] <= real[label], label


def test_the_other_process_removes_its_input_once_read(tmp_path):
    """So that a run killed meanwhile (SIGKILL: no finally) leaves no file behind: the other process goes on
    compiling by itself, and removes the pickle it was handed."""
    import pickle

    plan, path = _plan(), tmp_path / "input.pickle"
    path.write_bytes(pickle.dumps((plan.problem, plan.settings, True)))
    cold_start.compile_lemke_chain(str(path))
    assert not path.exists()


def test_a_run_with_nothing_to_compile_meanwhile_or_with_lemkes_chain_cached_is_not_split(monkeypatch, tmp_path):
    _cold(monkeypatch, tmp_path)
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: dispatcher is robust_step)
    assert _split(_plan()) is None
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    uniform = _plan(choice="random", strategy="uniform", n=4096)
    assert uniform.flags[0] is None
    assert _split(uniform) is None  # Lemke's chain alone: nothing to compile here meanwhile
    assert _split(_plan(choice="first", n=MIN_DIRECTED - 1)) is None  # too few samples for rounds
    monkeypatch.setattr(cold_start, "_cores", lambda: 1)
    assert _split(_plan()) is None
    assert list(tmp_path.iterdir()) == []


def test_a_chain_is_found_cached_by_its_index_file(tmp_path, monkeypatch):
    import reach.kernels.cache as cache

    monkeypatch.setattr(cache, "cache_folder", lambda: tmp_path)
    assert not cold_start._cached(robust_step)
    (tmp_path / "routh.robust_step-160.py311.nbi").write_bytes(b"")
    assert cold_start._cached(robust_step) and not cold_start._cached(modes_or_bases)


def test_threads_start_the_other_process_one_at_a_time(monkeypatch):
    """Runs on threads of one process: the first starts the other process, the others find it started."""
    import threading
    import time

    inside, most = [0], [0]

    def pays(settings):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        inside[0] -= 1
        return False

    monkeypatch.setattr(cold_start, "_pays", pays)
    monkeypatch.setattr(cold_start, "_STARTED", [])
    threads = [threading.Thread(target=start_lemke_chain, args=(None, None)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1


def test_the_other_process_imports_this_reach_where_its_path_finds_another(tmp_path):
    """Its own path may find no reach, or another one: then this reach's folder goes first on its path."""
    import pickle
    import subprocess
    import sys
    from pathlib import Path

    plan = _plan()
    with open(tmp_path / "step.pickle", "wb") as f:
        pickle.dump((plan.problem, plan.settings, False), f)
    root = str(Path(cold_start.__file__).resolve().parents[2])
    elsewhere = str(tmp_path / "reach" / "__init__.py")
    done = subprocess.run([sys.executable, "-c", cold_start._CHILD + "import reach; print(reach.__file__)",
                           str(tmp_path / "step.pickle"), root, elsewhere], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).resolve() == Path(cold_start.__file__).resolve().parents[1] / "__init__.py"
