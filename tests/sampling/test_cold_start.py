"""A cold start's two chains compiled at once (reach.sampling.cold_start)."""

import numba
import numpy as np
import pytest

import scenarios
from reach.kernels.hop import hop_step
from reach.kernels.routh import allocate_output, modes_or_bases, robust_step, run_samples_kernel
from reach.kernels.routh_data import make_step_work
from reach.sampling import cold_start
from reach.sampling import directed
from reach.sampling.cold_start import split_cold_compile, step_arguments
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


def test_the_other_process_runs_lemkes_chain(monkeypatch, tmp_path):
    """With the cache counted as cold, the split runs: the other process (here it loads Lemke's chain from the
    cache, or compiles it) exits 0, and its input file is gone."""
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    monkeypatch.setattr(cold_start, "_cores", lambda: 2)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(cold_start.tempfile, "tempdir", None)  # TMPDIR is read again
    assert split_cold_compile(_plan()) == 0
    assert list(tmp_path.iterdir()) == []


def test_a_directed_run_without_contact_modes_is_split(monkeypatch, tmp_path):
    """Random choice: Lemke's chain there, the directed rounds' kernels here."""
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    monkeypatch.setattr(cold_start, "_cores", lambda: 2)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(cold_start.tempfile, "tempdir", None)
    plan = _plan("disk-stack", choice="random", n=MIN_DIRECTED)
    assert plan.flags[0] is None
    assert split_cold_compile(plan) == 0


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
    path.write_bytes(pickle.dumps((plan.data, plan.options, plan.problem)))
    cold_start.compile_lemke_chain(str(path))
    assert not path.exists()


def test_a_run_with_nothing_to_compile_meanwhile_or_with_lemkes_chain_cached_is_not_split(monkeypatch):
    monkeypatch.setattr(cold_start, "_cores", lambda: 2)
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: dispatcher is robust_step)
    assert split_cold_compile(_plan()) is None
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    uniform = _plan(choice="random", strategy="uniform", n=4096)
    assert uniform.flags[0] is None
    assert split_cold_compile(uniform) is None  # Lemke's chain alone: nothing to compile here meanwhile
    assert split_cold_compile(_plan(choice="random", n=MIN_DIRECTED - 1)) is None  # too few samples for rounds
    monkeypatch.setattr(cold_start, "_cached", lambda dispatcher: False)
    monkeypatch.setattr(cold_start, "_cores", lambda: 1)
    assert split_cold_compile(_plan()) is None


def test_a_chain_is_found_cached_by_its_index_file(tmp_path, monkeypatch):
    import reach.kernels.cache as cache

    monkeypatch.setattr(cache, "cache_folder", lambda: tmp_path)
    assert not cold_start._cached(robust_step)
    (tmp_path / "routh.robust_step-160.py311.nbi").write_bytes(b"")
    assert cold_start._cached(robust_step) and not cold_start._cached(modes_or_bases)


def test_threads_split_one_at_a_time(monkeypatch):
    """A threading backend's workers each load the kernels: the first splits, the others then find the chains
    cached, instead of starting a second process each."""
    import threading
    import time

    inside, most = [0], [0]

    def split(plan):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.05)
        inside[0] -= 1

    monkeypatch.setattr(cold_start, "_split", split)
    threads = [threading.Thread(target=split_cold_compile, args=(None,)) for _ in range(4)]
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
        pickle.dump((plan.data, plan.options, plan.problem), f)
    root = str(Path(cold_start.__file__).resolve().parents[2])
    elsewhere = str(tmp_path / "reach" / "__init__.py")
    done = subprocess.run([sys.executable, "-c", cold_start._CHILD + "import reach; print(reach.__file__)",
                           str(tmp_path / "step.pickle"), root, elsewhere], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).resolve() == Path(cold_start.__file__).resolve().parents[1] / "__init__.py"
