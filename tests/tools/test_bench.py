"""`reach bench`: the quick run emits every field, and the jitted and NumPy solvers agree.

Speed is not asserted here (see DEVELOPERS notes); only that the benchmark
runs and that its figures are sane.
"""

from __future__ import annotations

import json
import math

import pytest

import scenarios
from reach.tools.bench import compare_solvers, format_bench
from reach.tools.cli import main


def _numbers(tree, path=""):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _numbers(value, f"{path}.{key}")
    elif isinstance(tree, bool):
        return
    elif isinstance(tree, (int, float)):
        yield path, tree


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    assert main(["bench", "--quick", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_quick_bench_emits_every_field(quick_report):
    rows = quick_report["scenarios"]
    assert list(rows) == scenarios.names()
    fields = ("lcp_us", "pivots_per_lcp", "numpy_lcp_us", "speedup_vs_numpy", "samples_per_s_1core",
              "samples_per_s_all", "parallel_efficiency", "lcps_per_sample", "us_per_sample",
              "us_per_lcp_in_sampling", "paper_lcps_per_sample", "paper_ms_per_sample", "paper_ms_per_lcp")
    for name, row in rows.items():
        for field in fields:
            assert field in row, (name, field)
    for section, keys in {"startup": ("cold_compile_s", "warm_total_s", "warm_import_s", "warm_first_sample_s"),
                          "memory": ("peak_rss_mb", "samples"), "compass_2_20": ("wall_s", "cores")}.items():
        for key in keys:
            assert key in quick_report[section], (section, key)
    assert set(quick_report["targets_met"]) == set(quick_report["targets"])
    for path, value in _numbers({k: quick_report[k] for k in ("scenarios", "startup", "memory", "compass_2_20")}):
        assert math.isfinite(value), path
    for name, row in rows.items():
        # the derived columns follow from the measured ones
        assert row["us_per_sample"] == pytest.approx(1e6 / row["samples_per_s_1core"])
        assert row["us_per_lcp_in_sampling"] == pytest.approx(row["us_per_sample"] / row["lcps_per_sample"])
        assert row["speedup_vs_numpy"] == pytest.approx(row["numpy_lcp_us"] / row["lcp_us"])
        # physics: every sample takes at least one step, every solve at least one pivot
        assert row["lcps_per_sample"] >= 1 and row["pivots_per_lcp"] >= 1, name
        assert 0 < row["parallel_efficiency"] <= 1.5, name
    for name, row in quick_report["parallel"].items():
        # the speed-up is the ratio of the two medians; both runs did the same work
        assert row["speedup"] == pytest.approx(row["wall_1_s"] / row["wall_all_s"]), name
        assert row["samples"] == 2**14 and row["workers"] >= 1, name
        assert row["kernel_cpu_1_s"] > 0 and row["kernel_cpu_all_s"] > 0, name
        assert len(row["speedup_pairs"]) == 1 and 0 <= row["selection_wall_all_s"] < row["wall_all_s"], name
    startup = quick_report["startup"]
    assert 0 < startup["warm_import_s"] <= startup["warm_total_s"]
    assert startup["cold_compile_s"] is None  # the cold start is measured in full mode only


def test_quick_bench_solvers_agree_on_its_inputs(quick_report):
    for name, row in quick_report["scenarios"].items():
        agreement = row["agreement"]
        assert agreement["status_agree"], name
        # a first try may fail verification in both (RAMone, mu = 1e5: the sampler then retries)
        assert agreement["jit_solved"] == agreement["numpy_solved"] >= 0.95 * agreement["steps"] > 0, name
        assert agreement["max_rel_diff"] <= 1e-9, name


def test_format_bench_is_a_table(quick_report):
    text = format_bench(quick_report)
    for name in scenarios.names():
        assert f"| {name} |" in text
    assert "Targets (issue 7)" in text
    assert "Parallel speed-up" in text and "slowest parallel speed-up" in text


@pytest.mark.parametrize("name", scenarios.names())
def test_jitted_and_numpy_solvers_return_the_same_velocities(name):
    agreement = compare_solvers(scenarios.get(name), count=150, seed=3)
    assert agreement["steps"] == 150
    assert agreement["status_agree"]
    assert agreement["jit_solved"] == agreement["numpy_solved"] >= 140
    assert agreement["max_rel_diff"] <= 1e-9


def test_set_against_one_simulation_reports_both_and_the_verdicts():
    pytest.importorskip("mujoco")
    from reach.tools.bench_simulators import SET_TARGETS, format_set_vs_simulation, set_vs_simulation

    report = set_vs_simulation(repeats=1, samples=512)
    assert set(report) == set(SET_TARGETS)
    for kind, r in report.items():
        assert r["simulation_ended"] and r["simulation_steps"] > 10  # the impact ran to its end
        assert r["set_samples"] == 512 and 0 < r["set_kept"] <= 512
        assert r["set_over_simulation"] == pytest.approx(r["set_cpu_s"] / r["simulation_cpu_s"])
        assert all(math.isfinite(v) and v >= 0 for _, v in _numbers(r))
    text = format_set_vs_simulation(report)
    assert text.count("\n- [") == 2 and text.count("issue 14") == 2


def test_parallel_report_shows_the_pairs_spread_and_the_target():
    from reach.tools.bench_parallel import format_parallel, target

    row = dict(samples=2**20, workers=2, wall_1_s=1.9, wall_all_s=1.0, speedup=1.9, speedup_pairs=[1.62, 1.9, 1.91],
               kernel_cpu_1_s=1.6, kernel_cpu_all_s=1.6, parent_cpu_all_s=0.3, selection_wall_all_s=0.15,
               load_average_1min=0.5, case="compass-gait")
    slow = {**row, "speedup": 1.5, "speedup_pairs": [1.5], "case": "disk-stack", "samples": 2**18}
    odd = {**row, "workers": 3}
    text = format_parallel({"compass-gait 2^20": row, "disk-stack 2^18": slow, "three": odd})
    assert "| 1.90× (1.62–1.91) |" in text and "| 0.15 s |" in text
    assert f"[met] compass-gait 2^20: 1.90× on 2 workers (≥ {target('compass-gait', 2**20, 2)}×, issue 39)" in text
    assert "| 1.50× |" in text and "[MISSED] disk-stack 2^18: 1.50×" in text  # one pair: no spread
    assert "[no target] three" in text
    assert target("quadruped", 2**16, 16) == 8.0 and target("disk-stack", 2**18, 16) == 12.0


def test_reach_bench_says_when_a_first_run_compiles(tmp_path, monkeypatch, capsys):
    import contextlib

    import reach.tools.cli_bench as cli_bench

    watched = []
    monkeypatch.setattr(cli_bench, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    monkeypatch.setattr(cli_bench, "_measure", lambda args: ({"quick": args.quick}, "measured"))
    assert main(["bench", "--quick", "--json", str(tmp_path / "b.json")]) == 0
    assert watched == [{}] and "measured" in capsys.readouterr().out
    assert json.loads((tmp_path / "b.json").read_text()) == {"quick": True}
