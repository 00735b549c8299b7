"""``reach bench --gpu``'s report: the Lemke layouts' table (the numbers come from a device; here, the layout)."""

from helpers import under_the_simulator

from reach.kernels.warp import LAYOUTS
from reach.tools.bench_gpu import format_gpu, format_layouts, launch_summary


def _row(rates):
    layouts = {k: {"lcps_per_s": rate, "identical": 4096, "kernel_s": 1.0, "first_launch_s": 0.1}
               for k, rate in zip(LAYOUTS, rates)}
    return {"case": "quadruped", "lcp_size": 44, "lcps": 2**18, "distinct": 4096, "pivots_mean": 27.1,
            "cpu_lcps_per_s_core": 95_000.0, **layouts,
            "warp_over_thread": max(rates[2:]) / max(rates[:2])}


def test_the_layouts_table_has_a_column_a_layout_and_names_a_failed_case():
    table = format_layouts({"quadruped": _row((1.0e6, 1.5e6, 3.0e6, 4.5e6)), "disk-stack": {"case": "disk-stack",
                                                                                       "error": "CudaAPIError: no"}})
    head, rule, quad, failed = table.splitlines()[2:6]
    assert all(k in head for k in LAYOUTS) and head.count("|") == rule.count("|") == quad.count("|")
    assert "| 1,000,000 | 1,500,000 | 3,000,000 | 4,500,000 | 3.00× | 4096, 4096, 4096, 4096 of 4096 |" in quad
    assert "failed: CudaAPIError: no" in failed and failed.count("|") == head.count("|")


def test_the_gpu_report_puts_the_layouts_under_their_own_table():
    text = format_gpu({"lemke-layouts": {"quadruped": _row((1.0e6, 0.5e6, 2.0e6, 1.5e6))}})
    assert "Lemke's method alone" in text and "2.00×" in text
    assert "| lemke-layouts |" not in text  # not a row of the samples table


def test_the_end_to_end_line_says_where_the_seconds_went():
    parts = {"kernel_s": 8.0, "transfer_s": 0.5, "selection_s": 2.0, "host_other_s": 5.2, "main_run_s": 12.0,
             "after_main_run_s": 3.7}
    text = format_gpu({"end-to-end": {"samples": 2**20, "wall_s": [15.7, 15.9], "median_wall_s": 15.8,
                                      "held_out": {"outside_2pct": 0.004}, "target_s": 1.0, "parts": parts}})
    assert "2^20 samples with its held-out estimate, 15.80 s wall (median of 2; target ≤ 1 s" in text
    assert "kernel 8.00, transfer 0.50, selection 2.00, host other 5.20, main run 12.00, after main run 3.70" in text


def test_the_end_to_end_parts_split_the_estimate_into_its_own_parts():
    from reach.tools.bench_gpu import _end_to_end_parts

    metadata = {"wall_seconds": 6.0, "selection_seconds": 1.0,
                "completeness": {"max": 0.1, "seconds": {"held_out": 0.5, "distances": 0.25, "climb": 1.5}}}
    parts = _end_to_end_parts(9.0, metadata, {"kernel": 4.0, "transfer": 0.5, "setup": 0.25})
    assert parts["after_main_run_s"] == 3.0 and parts["host_other_s"] == 3.25 and parts["setup_s"] == 0.25
    assert (parts["estimate_held_out_s"], parts["estimate_distances_s"], parts["estimate_climb_s"]) == (0.5, 0.25, 1.5)


def test_the_gpu_beside_processes_is_measured_and_a_failure_is_recorded(monkeypatch):
    import scenarios
    from reach.sampling import executors
    from helpers import CpuDevice
    from reach.tools.bench_gpu import _beside_processes

    s = scenarios.get("box-wall")
    common = dict(completeness=False, solution_choice="random", keep_paths=0)
    monkeypatch.setattr(executors, "make_executor", lambda n_jobs, backend: executors.Hybrid(1, device=CpuDevice()))
    row = _beside_processes(s.problem, 2**12, s.h, s.N, common, warm=512)
    assert row["processes"] == 1 and row["samples_per_s"] > 0 and 0 < row["gpu_share"] <= 1, row
    assert 0 <= row["backup_share"] <= row["gpu_share"], row  # what the GPU ran in the processes' place
    assert row["delivered_per_s"]["gpu"] > 0, row  # samples per wall second of its launches, as delivered
    assert row["launch_model"][1] > 0 and row["launches"] == {"launches": 0}  # a stand-in: no launches recorded

    def no_gpu(n_jobs, backend):
        raise ValueError("no CUDA GPU here")

    monkeypatch.setattr(executors, "make_executor", no_gpu)
    assert _beside_processes(s.problem, 2**12, s.h, s.N, common)["error"] == "ValueError: no CUDA GPU here"


def test_the_end_to_end_line_gives_the_gpu_beside_processes_or_why_not():
    e2e = {"samples": 2**20, "wall_s": [10.0, 10.2], "median_wall_s": 10.1, "held_out": {}, "target_s": 1.0}
    text = format_gpu({"end-to-end": dict(e2e, beside_processes={"processes": 15, "wall_s": [5.0], "median_wall_s": 5.0})})
    assert "With 15 processes beside the GPU (cuda+cpu): 5.00 s wall." in text
    text = format_gpu({"end-to-end": dict(e2e, beside_processes={"error": "BrokenProcessPool: gone"})})
    assert "beside the GPU (cuda+cpu): failed: BrokenProcessPool: gone" in text


SCHEDULES = """
import json, warnings
warnings.simplefilter("ignore", RuntimeWarning)
import reach.kernels.device as device
device.THREADS_PER_BLOCK = 8
from reach.tools.bench_gpu import _schedules, problem_case
problem, h, N = problem_case("rocking-block")
found = _schedules(problem, 48, h, N, dict(completeness=False, solution_choice="random", keep_paths=0))
print(json.dumps({"found": found, "default": device.SCHEDULE}))
"""


def test_both_schedules_are_timed_and_give_the_same_set_under_the_simulator():
    report = under_the_simulator(SCHEDULES, timeout=600)
    found = report["found"]
    assert found["identical random"] and found["identical first"], found
    assert all(found[f"{s} {c}"]["kernel_samples_per_s"] > 0 for s in ("thread", "queue") for c in ("random", "first"))
    assert report["default"] is None  # restored: schedule_for picks by the LCP's size


def test_the_report_gives_each_schedules_kernel_rate_and_their_ratio():
    rates = lambda k: {"samples_per_s": k / 2, "kernel_samples_per_s": k}  # noqa: E731
    case = {"case": "quadruped", "lcp_size": 44, "device": "cuda", "compile_s": 0.1, "gpu_samples": 2**20,
            "gpu_samples_per_s": 1.0, "directed_samples_per_s": 1.0, "cpu_samples_per_s_core": 1.0,
            "speedup_vs_core": 1.0, "identical": {"kept": True}, "max_relative_gap": 0.0,
            "first_choice": {"samples": 2**20, "samples_per_s": 1.0, "kernel_samples_per_s": 1.0}, "tuned": {},
            "schedules": {"thread random": rates(100.0), "queue random": rates(180.0), "identical random": True,
                          "thread first": rates(200.0), "queue first": rates(300.0), "identical first": False}}
    text = format_gpu({"quadruped": case})
    assert "random: a thread a sample 100, queue 180 (1.80×, the same set)" in text
    assert "first: a thread a sample 200, queue 300 (1.50×, SETS DIFFER)" in text
    case["directed_beside_processes"] = {"processes": 15, "samples_per_s": 2.5e6, "gpu_share": 0.97,
                                         "backup_share": 0.02, "delivered_per_s": {"gpu": 2.6e6, "cpu": 1.2e5}}
    assert "the GPU beside 15 processes (cuda+cpu): 2,500,000 samples/s, the GPU ran 97% (2% of them in the " \
           "processes' place); delivered gpu 2,600,000/s, cpu 120,000/s" in format_gpu({"quadruped": case})
    case["directed_beside_processes"].update(launches=launch_summary([(1024, 0.09), (196_608, 0.76), (7168, 0.16)]),
                                             launch_model=(0.0865, 291_916.0))
    assert "cpu 120,000/s; 3 launches of 1,024–196,608 samples (median 7,168), 1.01 s of kernel, fitted 86 ms + " \
           "samples / 291,916/s a launch" in format_gpu({"quadruped": case})


def test_kernel_resources_names_each_kernel_of_the_lcp_size_by_its_key(monkeypatch):
    from reach.kernels import device
    from reach.tools.bench_gpu import kernel_resources

    class Compiled:
        def get_regs_per_thread(self):
            return {"sig": 80}

        def get_local_mem_per_thread(self):
            return 2048

    keys = [device.KernelKey(None, None, 44, 4, 18, None, False, (("max_registers", 80),), "thread"),
            device.KernelKey(True, None, 44, 4, 18, 7, True, (), "queue"),
            device.KernelKey(None, None, 10, 2, 3, None, True, (), "thread")]
    monkeypatch.setattr(device, "_KERNELS", {key: (Compiled(), False) for key in keys})
    found = kernel_resources(44)
    assert found == {"(None, None) caps host, (('max_registers', 80),)": {"registers": 80, "local_bytes": 2048},
                     "(True, None) caps drawn, tableau, queue": {"registers": 80, "local_bytes": 2048}}


def test_a_runs_launches_are_summed_up_with_the_small_ones_apart():
    from reach.tools.bench_gpu import SMALL_LAUNCH

    summary = launch_summary([(100, 0.5), (4 * SMALL_LAUNCH, 1.0), (SMALL_LAUNCH - 1, 0.25), (SMALL_LAUNCH, 0.125)])
    assert summary == {"launches": 4, "samples_min": 100, "samples_median": SMALL_LAUNCH - 0.5,
                       "samples_max": 4 * SMALL_LAUNCH, "kernel_s": 1.875, "small": 2,
                       "small_samples": 100 + SMALL_LAUNCH - 1, "small_kernel_s": 0.75}
    assert launch_summary([]) == {"launches": 0}
    e2e = {"samples": 2**20, "wall_s": [4.7], "median_wall_s": 4.7, "held_out": {}, "target_s": 1.0,
           "launches": summary}
    assert ("Its launches (the last run): 4, of 100–131,072 samples (median 32,768), 1.88 s of kernel; 2 under "
            "32,768 samples (32,867 samples) took 0.75 s of it.") in format_gpu({"end-to-end": e2e})
