"""The GPU and the CPU's processes on the same phase (``backend="cuda+cpu"``): the set is the CPU's, bit for bit.

The orchestration (the GPU takes runs of chunks from a phase's front, the
processes runs from its back, each sized by the rates measured so far) is checked here with a stand-in device
that runs the CPU's kernel, so that no GPU is needed and the outcomes are
known; the simulator's test runs the real :class:`reach.sampling.gpu.Gpu`.
"""

import time

import numpy as np
import pytest
from helpers import CpuDevice, PatientDevice, slow_on_the_cpu

import scenarios
from reach import sample_post_impact_set
from reach.sampling.executors import BACKENDS, Hybrid, make_executor
from reach.sampling.plan import plan_run

FIELDS = ("all_velocities", "lcp_solves", "terminated", "kept", "sample_status", "residual")


@pytest.mark.parametrize("strategy", ["directed", "uniform"])
def test_the_gpu_and_the_processes_together_give_the_cpu_set_bit_for_bit(strategy):
    s = scenarios.get("rocking-block")
    kw = dict(completeness=False, seed=5, strategy=strategy, keep_paths=4, solution_choice="random")
    cpu = sample_post_impact_set(s.problem, 2**14, s.h, s.N, n_jobs=1, **kw)
    device = PatientDevice()  # its first launch ends once the processes have delivered: both sides' runs are in it
    hybrid = device.executor = Hybrid(2, device=device)
    hybrid.min_launch = 1024  # small launches: a small run still splits between the two sides
    both = sample_post_impact_set(s.problem, 2**14, s.h, s.N, executor=hybrid, **kw)
    for field in FIELDS:
        assert np.array_equal(getattr(cpu, field), getattr(both, field)), field
    assert all(np.array_equal(a, b) for a, b in zip(cpu.paths, both.paths)) and len(cpu.paths) == len(both.paths)
    assert hybrid.samples["gpu"] > 0 and hybrid.samples["cpu"] > 0  # both sides delivered some of it
    assert hybrid.samples["gpu"] + hybrid.samples["cpu"] == 2**14
    planned = plan_run(both.settings, 2).chunks  # the processes' chunks: a launch takes a run of them
    assert max(n for _, n in device.launches) > max(n for _, n in planned)
    assert sum(n for _, n in device.launches) <= 2**14 + hybrid.workers * hybrid.in_hand * 4 * 1024  # few ran twice
    assert both.metadata["executor"].startswith("cuda+cpu: 2 workers, the GPU (a CPU stand-in)")


def test_the_gpus_launches_take_half_of_what_is_left_from_the_front():
    s = scenarios.get("box-wall")
    device = CpuDevice()
    hybrid = Hybrid(1, device=device)
    hybrid.min_launch = 1
    sample_post_impact_set(s.problem, 2**13, s.h, s.N, executor=hybrid, completeness=False, strategy="uniform")
    first, count = device.launches[0]
    assert first == 0 and 2**12 - 2**11 <= count <= 2**12  # half of the phase, in whole chunks
    assert hybrid.samples["gpu"] + hybrid.samples["cpu"] == 2**13


def test_the_hybrid_backend_without_a_gpu_says_so():
    from reach.sampling.gpu import gpu_available

    assert "cuda+cpu" in BACKENDS
    if gpu_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        make_executor(2, backend="cuda+cpu")


def test_reach_run_with_the_hybrid_backend_without_a_gpu_is_one_line_and_exit_2(tmp_path, capsys):
    from reach.sampling.gpu import gpu_available
    from reach.tools.cli import main

    if gpu_available():
        pytest.skip("this machine has a GPU")
    for fixed in ([], ["--fixed"]):  # sampled to a coverage, and one fixed, checkpointed budget
        code = main(["run", "rocking-block", "--backend", "cuda+cpu", "--n-jobs", "2", "--samples", "256", "--no-plot",
                     "--no-progress", "--out", str(tmp_path / "set.npz"), *fixed])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "no CUDA GPU" in err[0]
        assert not any(tmp_path.iterdir())  # no checkpoint left behind to stop the next run


class ReplayDevice(CpuDevice):
    """A far faster stand-in GPU: a launch returns a stored run's outcomes for its samples at once."""

    def __init__(self, stored):
        super().__init__()
        self.stored = stored

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        from reach.kernels.routh import SAMPLE_FIELDS, SampleOutput

        S = count if P is None else P.shape[0]
        self.launches.append((first_index, S))
        nv = plan.problem.nv
        fields = {name: self.stored[name][first_index:first_index + S].copy() for name in SAMPLE_FIELDS}
        return SampleOutput(**fields, paths=np.full((keep, path_rows, nv), np.nan), path_len=np.zeros(keep, np.int64))


def test_where_the_gpu_is_far_faster_the_processes_stop_taking_runs():
    s = scenarios.get("box-wall")
    kw = dict(completeness=False, seed=2, solution_choice="random", keep_paths=0)
    stored = sample_post_impact_set(s.problem, 2**15, s.h, s.N, **kw)
    hybrid = Hybrid(1, device=ReplayDevice(stored.arrays))
    both = sample_post_impact_set(s.problem, 2**15, s.h, s.N, executor=hybrid, **kw)
    assert np.array_equal(both.all_velocities, stored.all_velocities)
    # the processes took runs (a chunk each) only until both rates were known; what they took, they or the GPU
    # delivered
    assert hybrid.samples["gpu"] + hybrid.samples["cpu"] == 2**15
    assert 0 < hybrid.samples["cpu"] + hybrid.backups <= 2 * hybrid.in_hand * Hybrid.chunk_size, hybrid.samples


def test_at_a_phases_end_the_gpu_runs_again_what_the_processes_still_hold():
    from types import SimpleNamespace

    from reach.sampling.workers import drop_pool

    hybrid = Hybrid(2, device=CpuDevice())
    items = [(start, 1024) for start in range(0, 2**15, 1024)]
    try:  # processes that take 10 s a run: without the GPU's back-ups the phase would end with theirs
        chunks = list(hybrid.map_unordered(slow_on_the_cpu, SimpleNamespace(seconds=10.0), items))
    finally:
        drop_pool()  # its workers end their sleep and exit; the next test starts new ones
    covered = np.concatenate([c["start"] + np.arange(len(c["lcp_solves"])) for c in chunks])
    assert np.array_equal(np.sort(covered), np.arange(2**15))  # each sample delivered once
    assert hybrid.samples == {"gpu": 2**15, "cpu": 0}
    assert hybrid.backups == hybrid.workers * hybrid.in_hand * 1024  # the runs the processes took at the start
    held = hybrid.workers * hybrid.in_hand * 1024  # taken one after another from the back: one launch runs them again
    assert [(c["start"], len(c["lcp_solves"])) for c in chunks][-1] == (2**15 - held, held)


def test_a_back_up_delivers_only_the_samples_the_processes_have_not():
    from concurrent.futures import Future

    from reach.sampling.sharing import Clock, Line, Runs

    def chunk(start, count):
        return {"start": start, "lcp_solves": np.arange(start, start + count), "paths": np.arange(min(count, 3)),
                "kernel_seconds": 1.0}

    runs, cpu = Runs(Line([]), Clock()), [Future() for _ in range(4)]
    for future, start in zip(cpu, (3072, 2048, 1024, 5120)):  # three consecutive runs, and one apart
        runs.add(future, "cpu", (start, 1024))
    launched = {}
    runs.back_up(lambda item: launched.setdefault(item[:2], Future()), lambda samples, taken, held: True)
    assert list(launched) == [(1024, 3072), (5120, 1024)]  # one launch for each consecutive stretch
    cpu[1].set_result(chunk(2048, 1024))  # the processes deliver the middle run first
    assert runs.finish(cpu[1]) == ("cpu", [cpu[1].result()], False)
    done = launched[1024, 3072]
    done.set_result(chunk(1024, 3072))
    side, parts, was_backup = runs.finish(done)
    assert side == "gpu" and was_backup
    assert [(p["start"], list(p["lcp_solves"][[0, -1]]), p["kernel_seconds"]) for p in parts] == \
        [(1024, [1024, 2047], 1.0), (3072, [3072, 4095], 0.0)]  # the run the processes delivered is left out
    assert list(parts[0]["paths"]) == [0, 1, 2] and len(parts[1]["paths"]) == 0  # paths: the chunk's first samples
    assert cpu[0].cancelled() and cpu[2].cancelled() and not cpu[3].cancelled()
    assert runs.clock.held == 1024  # only the run apart is still out


def test_the_processes_share_follows_what_they_deliver_not_their_kernels_seconds():
    hybrid = Hybrid(15, device=CpuDevice())
    hybrid._delivered("gpu", 2**20, {"kernel_seconds": 0.43})  # 2.4 M samples/s, launches and transfers
    hybrid._out.seconds = 3.0  # the processes' runs were out 3 s ...
    hybrid._delivered("cpu", 370_000, {"kernel_seconds": 0.12})  # ... for 123 k samples/s, 3.1 M by their kernels
    assert hybrid._want("cpu", 2**20) is None and hybrid._want("gpu", 2**20) == 2**20  # the GPU runs the rest alone
    hybrid._out.seconds = 0.185  # had they delivered 2 M samples/s, they would take 45 % of a line, 3 % a process
    hybrid._delivered("cpu", 0, {})
    assert hybrid._want("cpu", 2**20) == int(2e6 / 15 * 2**20 / (2**20 / 0.43 + 2e6) / 2)
    assert hybrid._want("gpu", 2**20) == int(2**20 / 0.43 * 2**20 / (2**20 / 0.43 + 2e6))  # its share, at once


def test_processes_that_have_delivered_nothing_yet_are_rated_as_if_all_they_hold_came_back_now():
    hybrid = Hybrid(15, device=CpuDevice())
    assert hybrid._want("gpu", 2**20) == 2**19 and hybrid._want("cpu", 2**20) == 0  # nothing known: half, a chunk
    hybrid._delivered("gpu", 2**18, {"kernel_seconds": 0.11})  # 2.4 M samples/s
    hybrid._out.held, hybrid._out.seconds = 30 * 1024, 0.5  # 30 runs held 0.5 s: at most 61 k samples/s
    assert hybrid._want("cpu", 2**19) is None and hybrid._want("gpu", 2**19) == 2**19
    hybrid._out.seconds = 0.01  # held 10 ms: at most 3.1 M samples/s, so far as anyone knows
    assert hybrid._want("gpu", 2**19) == int(2**18 / 0.11 * 2**19 / (2**18 / 0.11 + 30 * 1024 / 0.01))


def test_the_gpus_launches_are_modelled_as_a_latency_and_a_rate_and_sized_by_both():
    hybrid = Hybrid(15, device=CpuDevice())
    assert hybrid.launch_model() is None
    hybrid._delivered("gpu", 196_608, {"kernel_seconds": 0.76})  # one size: a rate alone
    assert hybrid.launch_model() == (0.0, 196_608 / 0.76)
    hybrid._delivered("gpu", 131_072, {"kernel_seconds": 0.76})  # sizes within 2x: too close to tell a latency
    assert hybrid.launch_model() == (0.0, (196_608 + 131_072) / 1.52)
    hybrid._launches.pop()
    hybrid._delivered("gpu", 1024, {"kernel_seconds": 0.09})  # the H200's quadruped launches: 0.09 s for 1,024
    latency, rate = hybrid.launch_model()
    assert latency == pytest.approx(0.09 - 1024 * 0.67 / 195_584) and rate == pytest.approx(195_584 / 0.67)
    hybrid._out.seconds = 1.0
    hybrid._delivered("cpu", 133_000, {})  # the 15 processes: 133 k samples/s
    x = (196_608 / 133_000 - latency) / (1 / rate + 1 / 133_000)  # it ends when the processes end the rest
    assert hybrid._want("gpu", 196_608) == int(x) and latency + x / rate == pytest.approx((196_608 - x) / 133_000)
    assert hybrid._want("cpu", 196_608) == int((196_608 - x) / 15 / 2)
    assert hybrid._want("gpu", 8192) == 0  # the processes end 8,192 samples before a launch would: no launch
    assert hybrid._want("cpu", 8192) == 8192 // 15 // 2
    now = time.perf_counter()
    assert not hybrid._gpu_ends_first(1024, now, 10_000)  # theirs is due in 75 ms, a launch takes more than 90 ms
    assert hybrid._gpu_ends_first(1024, now, 20_000)


def test_the_gpu_backs_up_a_processes_run_only_where_it_would_end_it_first():
    hybrid = Hybrid(2, device=CpuDevice())
    now = time.perf_counter()
    assert hybrid._gpu_ends_first(1024, now, 4096)  # no rates yet: it backs up
    hybrid._delivered("gpu", 2**16, {"kernel_seconds": 0.1})  # 655 k samples/s: 1.6 ms for 1024
    hybrid._out.seconds = 1.0
    hybrid._delivered("cpu", 2**14, {})  # the processes: 16 k samples/s
    assert hybrid._gpu_ends_first(1024, now, 4096)  # theirs ends in about 0.25 s
    assert not hybrid._gpu_ends_first(1024, now - 0.25, 4096)  # theirs is due now
    hybrid._rates["cpu"] = (0, 1.0)  # they delivered nothing in 1 s
    assert hybrid._gpu_ends_first(1024, now - 10.0, 4096)


def test_a_hybrid_runs_checkpoint_resumes_elsewhere_with_the_same_set(tmp_path):
    s = scenarios.get("rocking-block")
    kw = dict(completeness=False, seed=8, keep_paths=0, solution_choice="random")
    device = PatientDevice()
    hybrid = device.executor = Hybrid(1, device=device)
    hybrid.min_launch = 1024  # runs of several chunks: the checkpoint's files are the runs, not the plan's chunks
    first = sample_post_impact_set(s.problem, 2**14, s.h, s.N, executor=hybrid, checkpoint=tmp_path / "ck",
                                   keep_checkpoint=True, **kw)
    again = sample_post_impact_set(s.problem, 2**14, s.h, s.N, n_jobs=1, checkpoint=tmp_path / "ck", resume=True,
                                   **kw)
    assert again.metadata["resumed_samples"] == 2**14 and hybrid.samples["cpu"] > 0
    for field in FIELDS:
        assert np.array_equal(getattr(first, field), getattr(again, field)), field


def test_a_large_set_on_a_gpu_alone_runs_its_held_out_search_on_the_cores_meanwhile(monkeypatch):
    from reach.sampling.executors import Cuda
    from reach.sets import build

    monkeypatch.setattr(build, "HELD_OUT_BESIDE_GPU", 2**12)
    monkeypatch.setattr(build, "HELD_OUT_BESIDE_CORES", 2)  # (a large set's search goes beside on 8 cores or more)
    s = scenarios.get("disk-stack")
    kw = dict(seed=6, keep_paths=0)
    cpu = sample_post_impact_set(s.problem, 2**12, s.h, s.N, n_jobs=1, **kw)
    device = CpuDevice()
    gpu = sample_post_impact_set(s.problem, 2**12, s.h, s.N, executor=Cuda(device=device), **kw)
    assert np.array_equal(cpu.all_velocities, gpu.all_velocities)
    a, b = dict(cpu.metadata["completeness"]), dict(gpu.metadata["completeness"])
    assert a.pop("seconds").keys() == b.pop("seconds").keys() and a == b  # the same estimate, bit for bit
    held = a["samples"]  # the held-out search's samples: indices 0 .. held - 1 under its own seed
    searched = [first for seed, first, _ in device.runs if seed != 6 and first < held]
    assert not searched and any(seed != 6 for seed, _, _ in device.runs)  # only the climb (indices from held) ran here
    monkeypatch.setattr(build, "HELD_OUT_BESIDE_GPU", None)
    device = CpuDevice()
    after = sample_post_impact_set(s.problem, 2**12, s.h, s.N, executor=Cuda(device=device), **kw)
    assert [first for seed, first, _ in device.runs if seed != 6 and first < held]  # the search ran on the GPU
    assert after.metadata["completeness"]["max"] == a["max"]


def test_a_coverage_run_on_a_gpu_alone_runs_its_rounds_held_out_searches_on_the_cores(monkeypatch):
    """``reach run NAME --gpu``: every round's held-out search may run on the cores while the GPU runs the set (it
    depends on the round's settings only); the set, its rounds and its estimate are the CPU's, bit for bit."""
    import os

    from reach.sampling import gpu as gpu_module
    from reach.sets.build import sample_to_coverage

    s = scenarios.get("disk-stack")
    kw = dict(initial=1024, max_samples=2048, seed=4, resolution=0.002, missed=0.001)
    cpu = sample_to_coverage(s.problem, s.h, s.N, n_jobs=1, **kw)
    device = CpuDevice()
    monkeypatch.setattr(gpu_module, "Gpu", lambda: device)
    gpu = sample_to_coverage(s.problem, s.h, s.N, backend="cuda", **kw)
    for field in FIELDS:
        assert np.array_equal(getattr(cpu, field), getattr(gpu, field)), field
    a, b = cpu.metadata, gpu.metadata
    assert [(r["samples"], r["far"], r["upper_bound"]) for r in a["coverage"]["rounds"]] == \
        [(r["samples"], r["far"], r["upper_bound"]) for r in b["coverage"]["rounds"]]
    assert a["completeness"] == b["completeness"]  # the estimate, the climb's farthest included
    starts = [i for i, (seed, first, _) in enumerate(device.runs) if seed == 4 and first == 0]
    assert len(starts) == 2  # two rounds' sets, each from index 0
    if (os.cpu_count() or 1) >= 2:  # the first round's held-out search ran on the cores, beside the set
        assert all(seed == 4 for seed, _, _ in device.runs[:starts[1]])
    assert any(seed != 4 for seed, _, _ in device.runs[starts[1]:])  # the climb at least ran on the GPU


def test_a_coverage_run_on_a_gpu_resumes_on_the_cpu_with_the_same_set(tmp_path, monkeypatch):
    # `reach run NAME --gpu`, interrupted within its second round, then resumed where there is no GPU
    from reach.sampling import gpu as gpu_module
    from reach.sampling.checkpoint import Checkpoint
    from reach.sets import rounds
    from reach.sets.build import sample_to_coverage

    s = scenarios.get("rocking-block")
    kw = dict(initial=1024, max_samples=2048, seed=4, resolution=0.002, missed=0.001, checkpoint=tmp_path / "ck")
    monkeypatch.setattr(rounds, "CHUNKS_FROM", 0)  # (rounds this small keep no chunks otherwise)
    monkeypatch.setattr(gpu_module, "Gpu", CpuDevice)
    whole = sample_to_coverage(s.problem, s.h, s.N, backend="cuda", **kw)
    real, writes = Checkpoint.write_chunk, []

    def write_chunk(self, chunk):
        writes.append(self.path.name)
        if self.path.name == "set-2048":
            raise KeyboardInterrupt
        return real(self, chunk)

    monkeypatch.setattr(Checkpoint, "write_chunk", write_chunk)
    with pytest.raises(KeyboardInterrupt):
        sample_to_coverage(s.problem, s.h, s.N, backend="cuda", **kw)
    monkeypatch.setattr(Checkpoint, "write_chunk", real)
    monkeypatch.setattr(gpu_module, "Gpu", None)  # no GPU any more
    assert "set-1024" in writes
    resumed = sample_to_coverage(s.problem, s.h, s.N, n_jobs=1, resume=True, **kw)
    assert resumed.metadata["coverage"]["resumed_rounds"] == 1
    for field in FIELDS:
        assert np.array_equal(getattr(whole, field), getattr(resumed, field)), field
