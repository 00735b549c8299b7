"""A first run says that it compiles, and ticks a clock until the kernels are cached."""

import os
import time

from reach.tools.compiling import NOTICE, compile_progress, kernels_cold


def test_kernels_cold_looks_for_the_sampling_kernels_cache_file(tmp_path):
    assert kernels_cold(tmp_path)
    (tmp_path / "routh.run_samples_kernel-340.py311.nbi").write_bytes(b"")
    assert not kernels_cold(tmp_path)


def test_a_cold_cache_prints_the_notice_and_the_clock_stops_once_cached(capsys):
    calls = []

    def cold():
        calls.append(time.perf_counter())
        return len(calls) < 4  # cached after the third look

    with compile_progress(cold=cold, tick=0.01):
        time.sleep(0.2)
    err = capsys.readouterr().err
    assert NOTICE in err and "compiling" in err
    assert len(calls) == 4  # it stopped looking once the cache appeared, well before the block ended


def test_a_warm_cache_or_no_progress_prints_nothing(capsys):
    with compile_progress(cold=lambda: False):
        pass
    with compile_progress(enabled=False, cold=lambda: True):
        pass
    assert capsys.readouterr().err == ""


def test_a_cold_run_that_stops_within_its_first_tick_prints_nothing(capsys):
    # A bad argument is found before any kernel runs: its error must stay the only line, even on a first run.
    try:
        with compile_progress(cold=lambda: True, tick=5.0):
            raise ValueError("bad argument")
    except ValueError:
        pass
    assert capsys.readouterr().err == ""


def test_the_bad_argument_of_a_first_run_is_one_line(tmp_path):
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # an empty cache: a first run
    cmd = [sys.executable, "-m", "reach", "run", "compass-gait", "--choice", "enumerate", "--steps", "20000"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "Sobol dimensions" in done.stderr
