"""A first run says that it compiles, and ticks a clock until the kernels are cached."""

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
