"""``reach trajectory`` and ``reach robust``: a propagation saved and checked; one-line errors with exit 2."""

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
    monkeypatch.chdir(tmp_path)
    assert main(["robust", str(saved), "--predicate", "requirements:a_sticks"]) == 0
    out = capsys.readouterr().out
    assert "replayed bit for bit" in out and "REPLAY DIFFERS" not in out


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
