"""The GPU executor: the same set as the CPU's, checked under Numba's CUDA simulator; the kernel compiles to PTX.

The simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the device code as Python, one
thread at a time, so it checks the port's logic (thread indexing, per-thread
work arrays, the swapped-in device functions) but not the CUDA compiler:
:func:`test_the_sampling_kernel_compiles_to_ptx` does that where libNVVM is
installed, without a GPU.  The simulator is chosen when ``numba.cuda`` is
first imported, so those runs are subprocesses.  ``reach bench --gpu`` measures
a real device: speed, and agreement with the CPU on the same samples.
"""

import json
import sys
import textwrap

import numpy as np
import pytest
from helpers import nvvm_available, under_the_simulator

from reach.sampling.executors import BACKENDS, make_executor
from reach.sampling.plan import plan_run
from reach.sampling.settings import SamplingSettings


SIMULATED = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)  # the simulator runs the hash's uint64 products in NumPy
    import scenarios
    from reach import sample_post_impact_set
    from reach.kernels.routh import SAMPLE_FIELDS
    report = {}
    for name, choice, strategy, *caps in json.loads(sys.argv[1]):  # caps: (sequence, distribution) if not default
        s = scenarios.get(name)
        kw = dict(completeness=False, seed=7, solution_choice=choice, strategy=strategy, keep_paths=8)
        kw.update(zip(("sequence", "caps"), caps[0]) if caps else ())
        n = 128 if strategy == "uniform" else 320
        cpu = sample_post_impact_set(s.problem, n, s.h, s.N, **kw)
        gpu = sample_post_impact_set(s.problem, n, s.h, s.N, backend="cuda", **kw)
        same = {f: bool(np.array_equal(getattr(cpu, f), getattr(gpu, f))) for f in
                ("all_velocities", "lcp_solves", "terminated", "kept", "sample_status", "residual")}
        report[f"{name} {choice} {strategy} {caps}"] = dict(same, paths=len(cpu.paths) == len(gpu.paths) and all(
            np.array_equal(a, b) for a, b in zip(cpu.paths, gpu.paths)),
                                                     executor=gpu.metadata["executor"], n_kept=len(gpu))
    print(json.dumps(report))
""")


#: Threads a block under the simulator, which runs a block's threads as Python threads: a full block of 64 fights
#: over the interpreter (a GPU run is one launch a phase, its blocks full), and a sample's answer does not depend
#: on its block.  Small blocks also test the indexing across many blocks.
SIMULATED_BLOCK = 8


def _under_the_simulator(script, *args, **environment):
    """Run ``script`` in a subprocess under Numba's CUDA simulator, :data:`SIMULATED_BLOCK` threads a block; the
    JSON report it prints last."""
    blocks = f"import reach.kernels.device\nreach.kernels.device.THREADS_PER_BLOCK = {SIMULATED_BLOCK}\n"
    return under_the_simulator(blocks + script, *args, **environment)


def _simulate(cases):
    return _under_the_simulator(SIMULATED, json.dumps(cases))


def test_the_gpu_executor_gives_the_cpu_set_bit_for_bit_under_the_simulator():
    cases = [("rocking-block", "random", "directed"), ("compass-gait", "exact", "uniform"),
             ("disk-stack", "random", "uniform"), ("box-wall", "first", "uniform", ("uniform", "broad")),
             ("rocking-block", "first", "uniform", ("sobol", "extremes")),
             ("compass-gait", "walk", "uniform")]  # walk choice hops at the compass gait's three-solution steps
    report = _simulate(cases)
    assert len(report) == len(cases)
    for case, r in report.items():
        assert r.pop("executor").startswith("cuda: 1 worker, the GPU"), case
        assert r.pop("n_kept") > 0, case
        assert all(r.values()), f"{case}: {r}"


QUEUE = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)
    import scenarios
    from reach.kernels import device
    from reach.kernels.routh import SampleOutput, allocate_output, run_samples_kernel
    from reach.kernels.routh_data import make_step_work
    from reach.sampling.caps import draw_caps
    from reach.sampling.engine import Plan
    from reach.sampling import gpu as gpus
    from reach.sampling.gpu import LAUNCHES, Gpu
    from reach.sampling.settings import SamplingSettings
    s = scenarios.get(sys.argv[1])
    plan = Plan(s.problem, SamplingSettings(40, s.h, s.N, strategy="uniform", seed=9))
    p, S, first, keep = s.problem, 40, 1000, 20
    P = draw_caps(p.m, s.N, first, S, seed=9, sequence=plan.settings.sequence, caps=plan.settings.caps)
    cpu = allocate_output(S, p.nv, keep, s.N + 2)
    run_samples_kernel(plan.data, plan.options, P, first, cpu, make_step_work(p.lcp_size, p.m, p.nv), *plan.flags)
    report = {}
    for schedule, part in (("thread", gpus.DOWNLOAD_PART), ("thread", 16), ("queue", 16)):
        device.SCHEDULE, gpus.DOWNLOAD_PART = schedule, part  # parts of 16: three, the kept paths in two of them
        for caps in ("host", "drawn"):  # a directed round's children bring theirs; a uniform block draws its own
            gpu = Gpu().run(plan, P if caps == "host" else None, first, keep, s.N + 2, count=S)
            report[f"{schedule} {caps} {min(part, S)}"] = {
                f: bool(np.array_equal(getattr(cpu, f), getattr(gpu, f), equal_nan=True)) for f in SampleOutput._fields}
    print(json.dumps({"same": report, "launches": [[n, t >= 0] for n, t in LAUNCHES]}))
""")


@pytest.mark.parametrize("name", ["rocking-block", "disk-stack"])  # n = 10 and 25: the longer paths too
def test_the_queue_schedule_and_launches_in_parts_give_the_cpu_kernels_outputs_bit_for_bit_under_the_simulator(name):
    report = _under_the_simulator(QUEUE, name)
    assert set(report["same"]) == {f"{schedule} {caps} {part}" for schedule, part in
                                   (("thread", 40), ("thread", 16), ("queue", 16)) for caps in ("host", "drawn")}
    for case, same in report["same"].items():
        assert all(same.values()), f"{case}: {same}"
    assert report["launches"] == [[40, True]] * 6  # each run recorded once, its samples and kernel seconds


HYBRID = textwrap.dedent("""
    import json, time, warnings
    import numpy as np
    import scenarios
    from reach import sample_post_impact_set
    from reach.sampling.executors import make_executor
    from reach.sampling.gpu import Gpu
    warnings.simplefilter("ignore", RuntimeWarning)


    class Patient(Gpu):  # its launches end once the processes have delivered a run: the set has runs of both
        def run(self, *args, **kwargs):
            out, t = super().run(*args, **kwargs), time.perf_counter()
            while hybrid.samples["cpu"] == 0 and time.perf_counter() - t < 120:
                time.sleep(0.01)
            return out


    s = scenarios.get("box-wall")
    kw = dict(completeness=False, seed=11, solution_choice="random", keep_paths=4)
    cpu = sample_post_impact_set(s.problem, 1024, s.h, s.N, **kw)
    hybrid = make_executor(2, backend="cuda+cpu")
    hybrid.gpu = Patient()
    hybrid.chunk_size, hybrid.min_launch = 64, 32  # small chunks and launches: a small run still splits
    both = sample_post_impact_set(s.problem, 1024, s.h, s.N, executor=hybrid, **kw)
    same = all(np.array_equal(getattr(cpu, f), getattr(both, f)) for f in
               ("all_velocities", "lcp_solves", "terminated", "kept", "sample_status", "residual"))
    print(json.dumps({"same": bool(same), "samples": hybrid.samples, "executor": both.metadata["executor"]}))
""")


def test_the_gpu_beside_local_processes_gives_the_cpu_set_under_the_simulator():
    report = _under_the_simulator(HYBRID)
    assert report["same"] and report["samples"]["gpu"] > 0 and report["samples"]["cpu"] > 0, report
    assert sum(report["samples"].values()) == 1024, report
    assert report["executor"].startswith("cuda+cpu: 2 workers, the GPU"), report


FRONTIER = textwrap.dedent("""
    import json, warnings
    import numpy as np
    import scenarios
    from reach import sample_post_impact_set
    from reach.sets.completeness import estimate_completeness, held_out_settings
    from reach.sets.farthest import climb_executor
    from reach.sets.frontier import frontier_search
    from reach.sets.run import run_sampling
    warnings.simplefilter("ignore", RuntimeWarning)
    s = scenarios.get("compass-gait")
    result = sample_post_impact_set(s.problem, 64, s.h, s.N, completeness=False, seed=3)
    held = run_sampling(s.problem, held_out_settings(result.settings, 64), warn=False, keep_caps=True)
    cpu, gpu = (frontier_search(result, held, 32, backend=b) for b in ("loky", "cuda"))
    same = all(np.array_equal(getattr(cpu, f), getattr(gpu, f)) for f in ("all_velocities", "kept", "lcp_solves"))
    caps = all(a == b and np.array_equal(x, y) for (a, x), (b, y) in zip(cpu.child_caps, gpu.child_caps))
    estimates = [estimate_completeness(result, budget=32, backend=b) for b in ("loky", "cuda")]
    for e in estimates:
        e.pop("seconds")
    print(json.dumps({"same": bool(same and caps), "samples": len(gpu.all_velocities), "kept": len(gpu),
                      "executor": climb_executor(held, 32, None, 1, "cuda", None).describe(),
                      "same_estimate": estimates[0] == estimates[1], "climbed": estimates[1]["search_samples"]}))
""")


def test_the_frontier_and_the_estimate_on_the_gpu_give_the_cpus_under_the_simulator():
    report = _under_the_simulator(FRONTIER)
    assert report["same"] and report["samples"] == 32 and report["kept"] > 0, report
    assert report["same_estimate"] and report["climbed"] == 32, report
    assert report["executor"].startswith("cuda: 1 worker, the GPU"), report


PROPAGATED = textwrap.dedent("""
    import json, warnings
    import numpy as np
    from scenarios import rimless_wheel as rw
    from reach.analysis.propagate import propagate
    warnings.simplefilter("ignore", RuntimeWarning)
    q, v = rw.state_after_footfall(1.3 * rw.steady_speed())
    cpu = propagate(rw.system(), q, v, impacts=2, budget=2**6, max_branches=2, completeness=False)
    gpu = propagate(rw.system(), q, v, impacts=2, budget=2**6, max_branches=2, completeness=False, executor="cuda")
    same = [bool(np.array_equal(a.v, b.v) and np.array_equal(a.q, b.q)) for a, b in zip(cpu.impacts, gpu.impacts)]
    print(json.dumps({"impacts": [len(cpu.impacts), len(gpu.impacts)], "same": same}))
""")


def test_propagation_through_impacts_on_the_gpu_gives_the_cpu_sets_under_the_simulator():
    report = _under_the_simulator(PROPAGATED)
    assert report["impacts"] == [2, 2] and all(report["same"]), report


TOUCHDOWNS = textwrap.dedent("""
    import json, warnings
    import mujoco
    import numpy as np
    from reach.analysis.touchdowns import propagate_touchdowns
    from reach.models.mujoco import load_model
    warnings.simplefilter("ignore")
    model = load_model("examples/quadruped12.xml")
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    q, v = data.qpos.copy(), np.zeros(model.nv)
    q[2] += 0.05
    runs = [propagate_touchdowns(model, q, v, impacts=1, budget=16, completeness=False, **where)
            for where in ({}, {"executor": "cuda"})]
    print(json.dumps({"same": bool(np.array_equal(runs[0].impacts[0].v, runs[1].impacts[0].v)),
                      "outcomes": len(runs[1].impacts[0].v)}))
""")


def test_a_spatial_robots_touchdown_on_the_gpu_gives_the_cpu_set_under_the_simulator():
    pytest.importorskip("mujoco", reason="MuJoCo is not installed")
    report = _under_the_simulator(TOUCHDOWNS)
    assert report["same"] and report["outcomes"] > 0, report


def test_without_a_gpu_the_cuda_backend_says_so():
    if "cuda" not in BACKENDS:
        pytest.fail("the cuda backend is missing")
    from reach.sampling.gpu import gpu_available

    if gpu_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        make_executor(backend="cuda")


def test_reach_run_gpu_without_a_gpu_is_one_line_and_exit_2(tmp_path, capsys):
    from reach.sampling.gpu import gpu_available
    from reach.tools.cli import main

    if gpu_available():
        pytest.skip("this machine has a GPU")
    for fixed in ([], ["--fixed"]):  # sampled to a coverage, and one fixed, checkpointed budget
        code = main(["run", "rocking-block", "--gpu", "--samples", "256", "--no-plot", "--no-progress",
                     "--out", str(tmp_path / "set.npz"), *fixed])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "no CUDA GPU" in err[0]
        assert not any(tmp_path.iterdir())  # no checkpoint left behind to stop the next run


def test_a_gpu_plan_cuts_each_phase_into_as_few_equal_chunks_as_its_chunk_size_allows():
    from reach.sampling.executors import Cuda

    settings = SamplingSettings(2**24, 1.0, 10)  # directed: a first batch of 2^22, rounds of 3 * 2^20
    cpu = plan_run(settings, 1)
    gpu = plan_run(settings, 1, chunk_size=Cuda.chunk_size, taper=Cuda.tapers)
    assert max(c for _, c in cpu.chunks) == settings.chunk_size < Cuda.chunk_size
    assert min(c for _, c in cpu.chunks) <= 256  # the CPU's plan tapers: tiny last chunks
    for phase in gpu.phases:  # one launch a chunk: none small
        sizes = [c for _, c in phase.chunks]
        assert len(sizes) == -(-phase.count // Cuda.chunk_size) and max(sizes) - min(sizes) <= 1
    assert sum(c for _, c in gpu.chunks) == settings.n_samples
    from reach.sampling.gpu import MAX_BLOCK

    assert MAX_BLOCK >= Cuda.chunk_size  # a chunk is one launch (where the device draws its caps)
    small = plan_run(SamplingSettings(2**17, 1.0, 10), 1, chunk_size=Cuda.chunk_size, taper=False)
    assert [len(p.chunks) for p in small.phases] == [1] * len(small.phases)


def _kernel_ptx(monkeypatch, name, choice, drawn=False, schedule="thread"):
    """PTX of the sampling kernel for scenario ``name`` and ``choice``, for a Hopper GPU (cc 9.0);
    ``drawn``: the kernel whose threads draw their own caps; ``schedule``: :data:`reach.kernels.device.SCHEDULES`."""
    import numba
    import scenarios
    from reach.kernels import device
    from reach.kernels.drawn import drawn_caps
    from reach.sampling.engine import Plan

    cuda = device.numba_cuda()
    # Numba compiles device functions for the current device's compute capability; this machine has none
    monkeypatch.setattr(sys.modules[cuda.dispatcher.__name__], "get_current_device",
                        lambda: type("Hopper", (), {"compute_capability": (9, 0)})())
    s = scenarios.get(name)
    plan = Plan(s.problem, SamplingSettings(64, s.h, s.N, solution_choice=choice))
    p, S = s.problem, 64
    out = device.output_on(S, p.nv, 4, s.N + 2, np.zeros)
    if drawn:
        args = (plan.data, plan.options, drawn_caps(p.m, s.N, seed=3, caps="mixed"), 0, S, out)
    else:
        args = (plan.data, plan.options, np.zeros((S, s.N, p.m)), 0, out)
    from reach.sampling.gpu import takes_tableau

    if schedule == "queue":  # the sample count (its caps' rows where they come from the host) and the counter
        args = (*args[:4], S, out, np.zeros(1, np.int64)) if not drawn else (*args, np.zeros(1, np.int64))
    kernel, _ = device.kernel_function(*plan.flags, p.lcp_size, p.m, p.nv, s.N if drawn else None,
                                       takes_tableau(plan.options, p.lcp_size), (), schedule)
    ptx, _ = cuda.compile_ptx(kernel, tuple(numba.typeof(a) for a in args), cc=(9, 0))
    return ptx


@pytest.mark.skipif(not nvvm_available(), reason="no CUDA compiler (libNVVM, NVRTC) here")
def test_the_sampling_kernel_compiles_to_ptx(monkeypatch):
    """The CUDA compiler takes the kernel (every device function it calls) for a Hopper GPU (cc 9.0).

    Exact choice compiles the most: contact modes, the certificate, the
    enumeration fallback and Lemke's method with random covering vectors.
    """
    from reach.kernels import device

    with device.without_contraction():
        ptx = _kernel_ptx(monkeypatch, "compass-gait", "exact")
    assert ".visible .entry" in ptx and "samples" in ptx
    assert "fma.rn.f64" not in ptx  # no contraction, and no libdevice exp, log or pow (an integer power had one)


@pytest.mark.skipif(not nvvm_available(), reason="no CUDA compiler (libNVVM, NVRTC) here")
def test_the_queue_kernel_compiles_to_ptx(monkeypatch):
    """Caps from the host; the queue kernel that draws its own is compiled by the next test but one."""
    from reach.kernels import device

    with device.without_contraction():
        ptx = _kernel_ptx(monkeypatch, "rocking-block", "random", schedule="queue")
    assert ".visible .entry" in ptx and "atom.global.add.u64" in ptx  # the shared counter
    assert "fma.rn.f64" not in ptx


def test_a_threads_frame_leaves_out_the_arrays_its_kernel_cannot_reach():
    """Random choice at n = 44 (the quadruped) has neither enumeration nor candidates; exact choice keeps both."""
    from reach.kernels.device import work_template
    from reach.kernels.enumeration import FALLBACK_MAX_N
    from reach.kernels.routh_data import make_step_work

    def size(work):
        return sum(a.nbytes for a in (*work.lemke, *work[1:]))

    full, lean = make_step_work(44, 4, 18), work_template(None, 44, 4, 18)
    assert size(full) - size(lean) >= 44 * 44 * 8 and lean.A.size == 1 and lean.distinct.shape == (1, 18)
    assert all(a.shape == b.shape for a, b in zip(full.lemke, lean.lemke))
    small = work_template(None, FALLBACK_MAX_N, 2, 3)  # the enumeration fallback runs there
    assert small.A.shape == (FALLBACK_MAX_N, FALLBACK_MAX_N) and small.distinct.shape == (1, 3)
    exact = work_template(True, 44, 4, 18)
    assert all(a.shape == b.shape for a, b in zip(exact[1:], full[1:]))
    revised = work_template(None, 44, 4, 18, tableau=False)  # the revised method's LU re-solve needs no tableau
    assert revised.lemke.T.size == 1 and size(lean) - size(revised) == full.lemke.T.nbytes - 8
    assert size(full) - size(revised) >= 57 * 1024 and size(full) < 94 * 1024  # the docstring's figures


def test_a_run_keeps_the_tableau_in_its_kernel_only_where_its_method_can_take_it():
    import scenarios
    from reach.kernels.lcp import REVISED_MIN_N, TABLEAU
    from reach.sampling.engine import Plan
    from reach.sampling.gpu import takes_tableau

    s = scenarios.get("disk-stack")
    options = Plan(s.problem, SamplingSettings(64, s.h, s.N)).options
    n = s.problem.lcp_size
    assert n >= REVISED_MIN_N and not takes_tableau(options, n) and takes_tableau(options, REVISED_MIN_N - 1)
    assert takes_tableau(options._replace(lemke_strict=options.lemke_strict._replace(method=TABLEAU)), n)
    walk = Plan(s.problem, SamplingSettings(64, s.h, s.N, solution_choice="walk")).options  # hops on the tableau
    assert takes_tableau(walk, n)


@pytest.mark.skipif(not nvvm_available(), reason="no CUDA compiler (libNVVM, NVRTC) here")
def test_without_contraction_the_kernel_has_no_fused_multiply_add(monkeypatch):
    """NVVM fuses ``a * b + c`` unless told not to; inside ``without_contraction`` none is left.

    None, because the kernels call no ``exp``, ``log`` or ``pow`` either (libdevice writes those with
    explicit fused multiply-adds, and they differ from the C library's): the caps drawn on the device
    included.
    """
    from reach.kernels import device

    # the queue kernel that draws its own caps (the thread kernel calls the same parts, FILL included)
    ptx = _kernel_ptx(monkeypatch, "rocking-block", "random", drawn=True, schedule="queue")
    assert ".visible .entry" in ptx and "samples" in ptx
    assert "xor.b64" in ptx  # the Sobol point's Gray code, on the device
    with device.without_contraction():
        strict = _kernel_ptx(monkeypatch, "rocking-block", "random", drawn=True, schedule="queue")
    assert "atom.global.add.u64" in strict  # the shared counter
    fused, strict = ptx.count("fma.rn.f64"), strict.count("fma.rn.f64")
    assert fused > 100 and strict == 0, (fused, strict)


def test_the_gpu_kernel_is_compiled_without_link_time_optimization():
    """nvJitLink would generate the code again and fuse multiply-adds (measured on an H200); only
    ``REACH_GPU_FUSED=1`` lets it."""
    import numba

    from reach.kernels import device

    if numba.config.ENABLE_CUDASIM:
        pytest.skip("the simulator compiles nothing")
    kernel = device.sample_kernel(None, None, 10, 2, 3, 7)
    assert not device.FUSED and kernel.targetoptions["lto"] is False


def test_the_benchs_compile_options_reach_the_compiler_and_name_their_own_kernel(monkeypatch):
    import numba

    from reach.kernels import device

    if numba.config.ENABLE_CUDASIM:
        pytest.skip("the simulator compiles nothing")
    plain = device.sample_kernel(None, None, 10, 2, 3, 7)
    monkeypatch.setattr(device, "JIT_OPTIONS", (("max_registers", 96),))
    capped = device.sample_kernel(None, None, 10, 2, 3, 7)
    assert capped is not plain and capped.targetoptions["max_registers"] == 96
    assert capped.targetoptions["lto"] is False
    source = device.kernel_source(None, 10, 2, 3, 7)  # the same source, another file: Numba's disk cache keeps both
    assert device.kernel_file((None, None, 10, 2, 3, 7, False, ()), source) != device.kernel_file(
        (None, None, 10, 2, 3, 7, False, (("max_registers", 96),)), source)


def test_large_lcps_kernels_are_capped_at_the_measured_register_count_and_small_ones_are_not(monkeypatch):
    from reach.kernels import device

    assert device.JIT_OPTIONS is None
    assert device.jit_options(44) == device.jit_options(device.REGISTER_CAP_MIN_N) == (("max_registers", 80),)
    assert device.jit_options(10) == device.jit_options(device.REGISTER_CAP_MIN_N - 1) == ()
    monkeypatch.setattr(device, "JIT_OPTIONS", ())  # a bench's override wins, at every size
    assert device.jit_options(44) == ()


def test_large_lcps_take_the_queue_schedule_and_small_ones_a_thread_a_sample_unless_one_is_set(monkeypatch):
    from reach.kernels import device

    assert device.SCHEDULE is None  # REACH_GPU_SCHEDULE unset
    assert device.schedule_for(44) == device.schedule_for(device.QUEUE_MIN_N) == "queue"
    assert device.schedule_for(10) == device.schedule_for(device.QUEUE_MIN_N - 1) == "thread"
    monkeypatch.setattr(device, "SCHEDULE", "thread")  # REACH_GPU_SCHEDULE=thread: every size
    assert device.schedule_for(44) == "thread"
    monkeypatch.setattr(device, "SCHEDULE", "warp")
    with pytest.raises(ValueError, match="REACH_GPU_SCHEDULE"):
        device.schedule_for(10)


def test_the_register_cap_reaches_the_compiler_by_default():
    import numba

    from reach.kernels import device

    if numba.config.ENABLE_CUDASIM:
        pytest.skip("the simulator compiles nothing")
    assert device.sample_kernel(None, None, 25, 5, 9, 7).targetoptions["max_registers"] == device.REGISTER_CAP
    assert "max_registers" not in device.sample_kernel(None, None, 10, 2, 3, 7).targetoptions


def test_a_kernel_file_is_named_by_its_source_key_and_the_kernel_modules():
    """Numba keys its disk cache on the kernel's file alone: a different key or source must be another file."""
    from reach.kernels.device import kernel_file, kernel_source

    source = kernel_source(None, 10, 2, 3)
    path = kernel_file((None, None, 10, 2, 3, None), source)
    assert path is not None and path.read_text().endswith(source)
    assert kernel_file((None, None, 10, 2, 3, None), source) == path
    assert kernel_file((None, True, 10, 2, 3, None), source) != path  # same source, another kernel
    assert kernel_file((None, None, 10, 2, 3, 4), kernel_source(None, 10, 2, 3, 4)) != path


def test_a_new_version_of_the_kernels_removes_the_kernel_files_of_the_old_one(tmp_path):
    from reach.kernels.cache import kernels_digest
    from reach.kernels.device import kernel_file, kernel_source, remove_stale_kernels

    path = kernel_file((None, None, 10, 2, 3, None), kernel_source(None, 10, 2, 3))
    assert path.name.startswith(f"kernel_{kernels_digest()[:12]}_")  # the kernel modules' hash comes first
    (tmp_path / "__pycache__").mkdir()
    names = ["kernel_aaaaaaaaaaaa_1.py", "kernel_bbbbbbbbbbbb_2.py", "sampling_kernel_3.py"]  # the last: 0.2.0's
    for name in names:
        (tmp_path / name).write_text("")
        (tmp_path / "__pycache__" / f"{name[:-3]}.samples-2.py311.nbc").write_text("")
    remove_stale_kernels(tmp_path, "kernel_bbbbbbbbbbbb_")
    assert sorted(f.name for f in tmp_path.glob("*.py")) == ["kernel_bbbbbbbbbbbb_2.py"]
    assert [f.name for f in (tmp_path / "__pycache__").iterdir()] == ["kernel_bbbbbbbbbbbb_2.samples-2.py311.nbc"]


CACHE_FAILS = textwrap.dedent("""
    import json, pickle, warnings
    import numpy as np
    import scenarios
    from reach import sample_post_impact_set
    from reach.kernels import device
    real, calls = device.sample_kernel, []

    class Unpicklable:  # a cached kernel whose launch fails as saving it to the disk cache would
        def __getitem__(self, launch):
            def fail(*args):
                raise pickle.PicklingError("cannot pickle")
            return fail

    def flaky(*key, cache=True, schedule=None):
        kernel = real(*key, cache=cache, schedule=schedule)
        cached = device.cached_on_disk(key, schedule)
        calls.append("cached" if cached else "plain")
        return Unpicklable() if cached else kernel

    device.sample_kernel = flaky
    s = scenarios.get("rocking-block")
    kw = dict(strategy="uniform", completeness=False, seed=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gpu = sample_post_impact_set(s.problem, 64, s.h, s.N, backend="cuda", **kw)
    cpu = sample_post_impact_set(s.problem, 64, s.h, s.N, **kw)
    print(json.dumps({"same": bool(np.array_equal(cpu.all_velocities, gpu.all_velocities)), "calls": calls,
                      "warned": any("disk cache" in str(w.message) for w in caught)}))
""")


def test_a_kernel_that_fails_with_the_disk_cache_runs_without_it_under_the_simulator():
    report = _under_the_simulator(CACHE_FAILS)
    assert report["same"] and report["warned"], report
    assert report["calls"][:2] == ["cached", "plain"] and set(report["calls"][2:]) <= {"plain"}, report


OUTPUTS = textwrap.dedent("""
    import json
    import numpy as np
    from reach.sampling.gpu import Gpu
    gpu = Gpu()
    first = gpu.outputs(100, 3)
    first.velocities.copy_to_device(np.arange(300.0).reshape(100, 3))
    smaller = gpu.outputs(40, 3)  # a view of the same arrays: what the first launch wrote is there
    same = bool(np.array_equal(smaller.velocities.copy_to_host(), np.arange(120.0).reshape(40, 3)))
    held = gpu._outputs[0]
    larger = gpu.outputs(300, 3)
    print(json.dumps({"shapes": [list(first.velocities.shape), list(smaller.velocities.shape),
                                 list(larger.kept.shape)], "same": same, "held": [list(held), list(gpu._outputs[0])],
                      "other_nv": list(gpu.outputs(10, 5).velocities.shape)}))
""")


def test_a_gpus_output_arrays_are_kept_between_launches_and_grow_by_powers_of_two():
    report = _under_the_simulator(OUTPUTS)
    assert report["shapes"] == [[100, 3], [40, 3], [300]], report
    assert report["same"], report
    assert report["held"] == [[128, 3], [512, 3]], report
    assert report["other_nv"] == [10, 5], report


def test_forgetting_the_kernels_builds_them_again_from_the_names_as_they_are_then(monkeypatch):
    from reach.kernels import device

    monkeypatch.setattr(device, "_KERNELS", {})
    monkeypatch.setattr(device, "_DEVICE", {})
    kernel = device.sample_kernel(None, None, 10, 2, 3, 7)
    [(key, _)] = device.compiled_kernels()
    assert key == (None, None, 10, 2, 3, 7, True, (), device.schedule_for(10))
    assert (key.n, key.m, key.nv, key.N, key.schedule) == (10, 2, 3, 7, device.schedule_for(10))
    assert device.compiled_kernels()[0][1] is kernel and device.sample_kernel(None, None, 10, 2, 3, 7) is kernel
    device.forget_kernels()
    assert device.compiled_kernels() == []
    assert device.sample_kernel(None, None, 10, 2, 3, 7) is not kernel


class _DeviceLike:
    """An array that refuses an empty slice of an empty array, as numba-cuda's device arrays do ("non-empty slice
    into empty slice", seen on an H200), and records the slices taken."""

    def __init__(self, shape, taken):
        self.shape, self.taken = shape, taken

    def __getitem__(self, rows):
        if self.shape[0] == 0:
            raise RuntimeError("non-empty slice into empty slice")
        lo, hi = rows.start, rows.stop
        self.taken.append((lo, hi))
        return _DeviceLike((hi - lo, *self.shape[1:]), self.taken)


@pytest.mark.parametrize("keep", [0, 5, 40])
def test_a_launch_in_parts_slices_no_empty_device_array_and_gives_each_part_its_kept_paths(keep):
    from reach.kernels.routh import SAMPLE_FIELDS, SampleOutput
    from reach.sampling.gpu import _part_of

    taken = []
    out = SampleOutput(*[_DeviceLike((40, 3) if per_v else (40,), taken) for _, per_v in SAMPLE_FIELDS.values()],
                       paths=_DeviceLike((keep, 9, 3), taken), path_len=_DeviceLike((keep,), taken))
    none = ("no paths", "no lengths")
    parts = [_part_of(out, a, min(40, a + 16), none) for a in range(0, 40, 16)]
    for (a, part) in zip(range(0, 40, 16), parts):
        b = min(40, a + 16)
        assert all(getattr(part, f).shape[0] == b - a for f in SAMPLE_FIELDS)
        kept = max(0, min(b, keep) - a)
        if kept:
            assert part.paths.shape == (kept, 9, 3) and part.path_len.shape == (kept,)
        else:
            assert (part.paths, part.path_len) == none
    assert all(hi > lo for lo, hi in taken)  # no empty slice of any array
