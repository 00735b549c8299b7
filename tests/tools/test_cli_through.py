"""``reach trajectory`` and ``reach robust``: a propagation saved and checked; one-line errors with exit 2."""

import numpy as np
import pytest

from reach.tools.cli import main


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("through") / "block.npz"
    assert main(["trajectory", "rocking-block", "--impacts", "2", "--budget", "256", "--branches", "3",
                 "--out", str(out)]) == 0
    return out


def test_trajectory_writes_the_result_and_its_plot(saved, capsys):
    assert saved.exists() and saved.with_suffix(".png").stat().st_size > 10_000


def test_robust_reports_violations_with_replayed_witnesses(saved, tmp_path, monkeypatch, capsys):
    (tmp_path / "requirements.py").write_text(
        "def a_sticks(outcome):\n"
        "    return bool(abs(outcome.contact('block.bottom_left|floor')).max() < 1e-6)\n")
    import contextlib

    import reach.tools.cli_through as cli_through

    monkeypatch.chdir(tmp_path)
    watched = []  # a first run's replay compiles the sampling kernel, and says so
    monkeypatch.setattr(cli_through, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    assert main(["robust", str(saved), "--predicate", "requirements:a_sticks"]) == 0
    out = capsys.readouterr().out
    assert "replayed bit for bit" in out and "REPLAY DIFFERS" not in out
    assert main(["robust", str(saved), "--predicate", "requirements:a_sticks", "--no-replay"]) == 0
    assert watched == [{"enabled": True}, {"enabled": False}]  # without a replay, nothing compiles


@pytest.mark.parametrize("moved, says", [(1e-14, "replayed to 1e-14 of the state, not bit for bit: rounding"),
                                          (1e-3, "REPLAY DIFFERS by 1.0e-03 of the state")])
def test_robust_tells_a_replay_that_lands_within_rounding_from_one_that_differs(saved, tmp_path, monkeypatch, capsys,
                                                                               moved, says):
    # A run saved on another CPU replays to that CPU's rounding (the flows between impacts are NumPy's): to
    # 6e-16-2e-15 of the state for compass-walker --impacts 3 saved under another OpenBLAS kernel, not bit for bit.
    from reach.analysis.propagate import Propagation

    replay = Propagation.replay

    def elsewhere(self, k, j):
        t, q, v = replay(self, k, j)
        return t, q, v + moved * np.abs(v).max() * (np.arange(len(v)) == 0)

    monkeypatch.setattr(Propagation, "replay", elsewhere)
    (tmp_path / "replay_req.py").write_text("def slow(outcome):\n    return bool(abs(outcome.v[-1]) < 0.05)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["robust", str(saved), "--predicate", "replay_req:slow"]) == 0
    out = capsys.readouterr().out
    assert says in out and "replayed bit for bit" not in out


def test_the_guide_s_table_and_reach_robust_give_the_same_replay_verdict():
    from reach.analysis.robust import ROUNDING, Report
    from reach.tools.through_figures import _replayed

    report = Report(impact=1, outcomes=10, violating=1, extent=0.1, worst=3, worst_value=1.0, witness=[],
                    replayed=None)
    words = {}
    for replayed, gap in ((True, 0.0), (False, 2e-15), (False, ROUNDING), (False, 10 * ROUNDING), (False, None)):
        r = report._replace(replayed=replayed, replay_gap=gap)
        words[gap] = (r.replay_verdict(), _replayed(r))
    assert report.replay_verdict() is None
    assert words == {0.0: ("bit for bit", "bit for bit"), 2e-15: ("rounding", "to 2e-15 (rounding)"),
                     ROUNDING: ("rounding", "to 1e-09 (rounding)"), 10 * ROUNDING: ("differs", "DIFFERS"),
                     None: ("differs", "DIFFERS")}


def test_robust_shows_each_sets_completeness_and_warns_where_it_or_the_cover_falls_short():
    from reach.analysis.robust import Report
    from reach.tools.cli_through import format_reports

    fine = Report(1, 100, 0, 0.0, None, None, [], None, missed={"outside_2pct": 0.0, "max_fraction": 0.01},
                  cover_radius=0.8)
    thin = Report(2, 100, 0, 0.0, None, None, [], None, missed={"outside_2pct": 0.031, "max_fraction": 0.07},
                  cover_radius=2.5)
    out = format_reports([fine, thin], predicate=lambda o: True, cost=None)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("impact"))
    assert "missed" in header and " 3.1% " in out
    warnings = [line for line in out.splitlines() if line.startswith("warning")]
    assert len(warnings) == 2 and all("impact 2" in w for w in warnings)
    assert "misses 3.1%" in warnings[0] and "2.50 cells" in warnings[1]


def test_robust_reports_a_measured_requirements_largest_violation_with_its_unit(saved, tmp_path, monkeypatch,
                                                                                capsys):
    (tmp_path / "spin.py").write_text(
        "from reach.analysis.robust import requirement\n"
        "slow = requirement(lambda o: abs(o.v[2]) - 0.05, unit='rad/s', name='slow')\n")
    monkeypatch.chdir(tmp_path)
    assert main(["robust", str(saved), "--predicate", "spin:slow", "--no-replay"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.lstrip().startswith("impact"))
    assert "violation" in header and "distance" in header
    assert "the violator that violates most, by the requirement's own measure (violation: in rad/s)" in out


@pytest.mark.parametrize("argv, words", [
    (["trajectory", "nope"], "unknown multi-impact example"),
    (["trajectory", "rocking-block", "--impacts", "0"], "--impacts"),
    (["trajectory", "rocking-block", "--controller", "nomodule"], "MODULE:FUNCTION"),
    (["trajectory", "rocking-block", "--controller", "nomodule:f"], "cannot import"),
    (["robust", "missing.npz", "--predicate", "x:y"], "cannot import"),
    (["robust", "missing.npz"], "--predicate"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_robust_refuses_a_file_that_is_not_a_propagation(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "req.py").write_text("def ok(outcome):\n    return True\n")
    (tmp_path / "bad.npz").write_bytes(b"junk")
    assert main(["robust", "bad.npz", "--predicate", "req:ok"]) == 2
    assert "not a readable" in capsys.readouterr().err


def test_trajectory_refuses_to_overwrite_an_interrupted_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.ckpt.npz").write_bytes(b"partial")
    assert main(["trajectory", "rocking-block", "--impacts", "1", "--out", "run.npz"]) == 2
    assert "--resume" in capsys.readouterr().err


@pytest.mark.parametrize("flag, bar", [([], True), (["--no-progress"], False)])
def test_trajectory_no_progress_leaves_out_the_bar(tmp_path, capsys, flag, bar):
    assert main(["trajectory", "rocking-block", "--impacts", "1", "--budget", "64", "--branches", "1", "--no-plot",
                 "--out", str(tmp_path / "r.npz"), *flag]) == 0
    assert ("impacts:" in capsys.readouterr().err) == bar
