"""The `reach` command as a user meets it: help, run, list, bad input, resume."""

import subprocess
import sys

import numpy as np
import pytest

from helpers import hand_rocking_block
from reach import PostImpactSet
from reach.tools.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "reach.tools.cli", *args], capture_output=True, text=True, timeout=300)


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0
    for cmd in ("run", "list", "show", "plot", "figures", "bench"):
        assert cmd in out.stdout


def test_list_names_every_scenario(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    for name in ("rocking-block", "box-wall", "compass-gait", "ramone", "disk-stack"):
        assert name in text


def test_run_scenario_quick_writes_a_loadable_result(tmp_path, capsys):
    out = tmp_path / "block.npz"
    assert main(["run", "rocking-block", "--quick", "--no-progress", "--n-jobs", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "LCPs per sample" in text and "saved" in text
    result = PostImpactSet.load(out)
    assert len(result) > 4000
    assert not (tmp_path / "block.ckpt").exists()


def test_run_problem_file(tmp_path, capsys):
    path = hand_rocking_block().save(tmp_path / "mine.json")
    assert main(["run", "--problem", str(path), "--h", "0.3", "--steps", "10", "--samples", "2^10",
                 "--no-progress", "--n-jobs", "1", "--out", str(tmp_path / "mine.npz")]) == 0
    assert PostImpactSet.load(tmp_path / "mine.npz").all_velocities.shape == (1024, 3)


@pytest.mark.parametrize("args, message", [
    (["run", "nope"], "unknown scenario 'nope'"),
    (["run"], "give a scenario name or --problem FILE"),
    (["run", "--problem", "missing.npz", "--h", "1", "--steps", "2"], "does not exist"),
    (["run", "--problem", "x.json"], "needs --h and --steps"),
])
def test_bad_input_exits_with_a_message(args, message):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert message in str(exc.value)


def test_bad_sample_count_is_an_argparse_error():
    out = run("run", "rocking-block", "--samples", "abc")
    assert out.returncode == 2
    assert "expected a positive integer, got 'abc'" in out.stderr


def test_existing_checkpoint_needs_resume(tmp_path):
    out = tmp_path / "r.npz"
    ckpt = tmp_path / "r.ckpt"
    ckpt.mkdir()
    (ckpt / "manifest.json").write_text("{}")
    with pytest.raises(SystemExit) as exc:
        main(["run", "rocking-block", "--quick", "--no-progress", "--out", str(out)])
    assert "--resume" in str(exc.value) or "resume it" in str(exc.value)
    np.testing.assert_equal(out.exists(), False)
