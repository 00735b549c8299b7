"""The GPU and the CPU's processes on the same phase (``backend="cuda+cpu"``): the set is the CPU's, bit for bit.

The orchestration (the GPU takes runs of chunks from a phase's front, the
processes single chunks from its back) is checked here with a stand-in device
that runs the CPU's kernel, so that no GPU is needed and the outcomes are
known; the simulator's test runs the real :class:`reach.sampling.gpu.Gpu`.
"""

import numpy as np
import pytest

import scenarios
from reach import sample_post_impact_set
from reach.kernels.routh import allocate_output, run_samples_kernel
from reach.kernels.routh_data import make_step_work
from reach.sampling.caps import draw_caps
from reach.sampling.executors import BACKENDS, Hybrid, make_executor
from reach.sampling.plan import plan_run

FIELDS = ("all_velocities", "lcp_solves", "terminated", "kept", "sample_status", "residual")


class CpuDevice:
    """A stand-in GPU: each launch runs the CPU's kernel on the launch's samples; it records the launches."""

    def __init__(self):
        self.launches = []

    def describe(self):
        return "a CPU stand-in"

    def block_size(self, problem, max_steps, drawn=False):
        return 2**22

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        s, problem = plan.settings, plan.problem
        if P is None:
            P = draw_caps(problem.m, s.max_steps, first_index, count, seed=s.seed, sequence=s.sequence, caps=s.caps)
        self.launches.append((first_index, P.shape[0]))
        out = allocate_output(P.shape[0], problem.nv, keep, path_rows)
        run_samples_kernel(plan.data, plan.options, P, first_index, out,
                           make_step_work(problem.lcp_size, problem.m, problem.nv), *plan.flags)
        return out


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
