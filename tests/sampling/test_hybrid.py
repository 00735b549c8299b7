"""The GPU and the CPU's processes on the same phase (``backend="cuda+cpu"``): the set is the CPU's, bit for bit.

The orchestration (the GPU takes runs of chunks from a phase's front, the
processes runs from its back, each sized by the rates measured so far) is checked here with a stand-in device
that runs the CPU's kernel, so that no GPU is needed and the outcomes are
known; the simulator's test runs the real :class:`reach.sampling.gpu.Gpu`.
"""

import numpy as np
import pytest
from helpers import CpuDevice

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
    device = CpuDevice()
    hybrid = Hybrid(2, device=device)
    hybrid.min_launch = 1024  # small launches: a small run still splits between the two sides
    both = sample_post_impact_set(s.problem, 2**14, s.h, s.N, executor=hybrid, **kw)
    for field in FIELDS:
        assert np.array_equal(getattr(cpu, field), getattr(both, field)), field
    assert all(np.array_equal(a, b) for a, b in zip(cpu.paths, both.paths)) and len(cpu.paths) == len(both.paths)
    assert hybrid.samples["gpu"] > 0 and hybrid.samples["cpu"] > 0  # both sides ran some of it
    assert hybrid.samples["gpu"] + hybrid.samples["cpu"] == 2**14
    planned = plan_run(both.settings, 2).chunks  # the processes' chunks: a launch takes a run of them
    assert max(n for _, n in device.launches) > max(n for _, n in planned)
    starts = sorted(device.launches)
    assert all(a + n <= b for (a, n), (b, _) in zip(starts, starts[1:]))  # no sample ran twice
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
    code = main(["run", "rocking-block", "--backend", "cuda+cpu", "--n-jobs", "2", "--samples", "256", "--no-plot",
                 "--no-progress", "--out", str(tmp_path / "set.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no CUDA GPU" in err[0]


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
    # the processes ran what they took before both rates were known, a chunk at a time, and then nothing more
    assert 0 < hybrid.samples["cpu"] <= 2 * hybrid.in_hand * Hybrid.chunk_size, hybrid.samples


def test_a_hybrid_runs_checkpoint_resumes_elsewhere_with_the_same_set(tmp_path):
    s = scenarios.get("rocking-block")
    kw = dict(completeness=False, seed=8, keep_paths=0, solution_choice="random")
    hybrid = Hybrid(1, device=CpuDevice())
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
