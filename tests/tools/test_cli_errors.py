"""Bad input a new user met, each with its exit code and message (issue: "errors that say what went wrong").

Exit 2: bad command-line input, one line.  Exit 1: a function of the user's
(controller, predicate, cost) that raised or answered wrongly, named, without
the word "internal".
"""

import textwrap

import numpy as np
import pytest

from reach.tools.cli import main

USER_CODE = textwrap.dedent('''
    import numpy as np

    def boom(t, q, v):
        raise ZeroDivisionError("my bug")

    def two_args(t, q):
        return np.zeros(3)

    def nan_force(t, q, v):
        return np.full(3, np.nan)

    def short_force(t, q, v):
        return np.zeros(2)

    def says_none(outcome):
        return None

    def raises(outcome):
        raise KeyError("no such contact")

    def fine(outcome):
        return bool(outcome.v[1] > -10.0)
''')


@pytest.fixture()
def user_folder(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text(USER_CODE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def trajectory_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("through") / "block.npz"
    assert main(["trajectory", "rocking-block", "--impacts", "1", "--budget", "32", "--branches", "2",
                 "--out", str(out), "--no-plot"]) == 0
    return out


def _run(capsys, argv):
    """(exit code, the message: stderr's last line; a progress bar may stand above it)."""
    code = main(argv)
    err = capsys.readouterr().err.strip()
    return code, err.splitlines()[-1] if err else ""


@pytest.mark.parametrize("flag, limit", [("--impacts", "1,000"), ("--branches", "4,096")])
def test_trajectory_limits_are_the_apis_and_checked_at_the_cli(capsys, flag, limit):
    code, err = _run(capsys, ["trajectory", "rocking-block", flag, "5000"])
    assert code == 2
    assert f"between 1 and {limit}" in err and "internal" not in err


@pytest.mark.parametrize("function, expected", [
    ("boom", "--controller mine:boom raised ZeroDivisionError: my bug"),
    ("two_args", "--controller mine:two_args raised TypeError"),
    ("nan_force", "--controller mine:nan_force returned NaN or inf at t = "),
    ("short_force", "--controller mine:short_force returned shape (2,); the system has 3 velocities"),
])
def test_a_controller_that_fails_is_named_with_its_error(user_folder, capsys, function, expected):
    code, err = _run(capsys, ["trajectory", "rocking-block", "--impacts", "1", "--budget", "16",
                              "--controller", f"mine:{function}", "--no-plot"])
    assert code == 1
    assert expected in err and "internal" not in err


@pytest.mark.parametrize("function, expected", [
    ("says_none", "--predicate mine:says_none returned None (NoneType); a predicate must return True"),
    ("raises", "--predicate mine:raises raised KeyError: 'no such contact'"),
])
def test_a_predicate_that_fails_is_named_and_none_is_refused(user_folder, trajectory_file, capsys, function,
                                                             expected):
    code, err = _run(capsys, ["robust", str(trajectory_file), "--predicate", f"mine:{function}", "--no-replay"])
    assert code == 1
    assert expected in err and "internal" not in err


def test_robust_names_the_unit_of_its_distance_column(user_folder, trajectory_file, capsys):
    assert main(["robust", str(trajectory_file), "--predicate", "mine:fine", "--no-replay"]) == 0
    out = capsys.readouterr().out
    assert "distance" in out and "in cells of the propagation's resolution (0.01 m/s or rad/s, 0.001 m or rad)" in out


def test_the_api_refuses_a_predicate_that_answers_none(trajectory_file):
    import scenarios
    from reach.analysis.propagate import load_propagation
    from reach.analysis.robust import check

    example = scenarios.lookup("rocking-block", "trajectory")
    propagation, _ = load_propagation(trajectory_file, example.system, guard=example.guard)
    with pytest.raises(TypeError, match="returned None"):
        check(propagation, lambda outcome: None, replay=False)


@pytest.mark.parametrize("argv", [["run", "rocking-block", "--resume", "--out", "{tmp}/r.npz"],
                                  ["trajectory", "rocking-block", "--resume", "--out", "{tmp}/t.npz"]])
def test_resume_without_a_checkpoint_is_refused(tmp_path, capsys, argv):
    code, err = _run(capsys, [a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and "--resume: no checkpoint at" in err and "nothing to resume" in err
    assert not any(tmp_path.iterdir())  # nothing ran


def test_a_repeated_param_is_refused(capsys):
    code, err = _run(capsys, ["sweep", "compass-gait", "--param", "stance_deg=70", "--param", "stance_deg=80"])
    assert code == 2 and "--param stance_deg given more than once" in err


def test_infeasible_sweep_points_are_never_the_best(tmp_path, capsys):
    code = main(["sweep", "compass-gait", "--param", "stance_deg=95:120:3", "--budget", "16", "--n-jobs", "1",
                 "--out", str(tmp_path / "s.csv")])
    out = capsys.readouterr().out
    assert code == 0
    assert "smallest diameter: none (no point is feasible)" in out and "at stance_deg" not in out


@pytest.mark.parametrize("content", [b"a,b\n1,2\n", b"PK\x03\x04 not a zip at all"])
def test_a_csv_or_corrupt_npz_never_suggests_unsafe_loading(tmp_path, capsys, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    for argv in (["plot", str(path)], ["robust", str(path), "--predicate", "reach.examples.requirements:"
                                                                             "speed_within_1pct"]):
        code, err = _run(capsys, argv)
        assert code == 2 and "is not a readable .npz archive" in err
        assert "pickle" not in err


def test_a_run_past_t_end_says_so(tmp_path, capsys):
    assert main(["simulate", "spinning-rod", "--dt", "0.7", "--t-end", "1", "--out", str(tmp_path / "r.npz"),
                 "--no-plot", "--no-progress"]) == 0
    assert "the run ends at t = 1.4 s, past --t-end 1 s" in capsys.readouterr().out


def test_rimless_wheel_refuses_a_massless_hub_and_a_wheel_that_cannot_roll():
    from scenarios import rimless_wheel

    with pytest.raises(ValueError, match="`inertia` must be finite and > 0"):
        rimless_wheel.build_model(inertia=0)
    with pytest.raises(ValueError, match=r"no steady rolling: omega\* = 0.8921 rad/s .* needs 1.249 rad/s"):
        rimless_wheel.steady_speed(spokes=6, slope=0.12)
    # where it can roll, omega* clears the spoke and is the classical footfall map's fixed point
    omega = rimless_wheel.steady_speed()
    assert omega > rimless_wheel.vault_speed()
    c = rimless_wheel.restitution()
    assert np.isclose(omega, 1.0990223877231007)
    assert 0 < c < 1


def test_output_piped_into_a_reader_that_stops_is_not_an_error():
    """`reach list | head -1`: the reader closes the pipe before reach writes; no "internal error"."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-m", "reach.tools.cli", "list"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdout.close()  # the reader is gone before reach has written a line
    err = child.stderr.read()
    assert child.wait(timeout=300) == 0
    assert "internal error" not in err and "BrokenPipeError" not in err
