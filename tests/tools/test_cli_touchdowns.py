"""``reach trajectory MODEL.xml --controller mod:pd`` and ``reach robust`` on its result (issue 42)."""

from pathlib import Path

import pytest

pytest.importorskip("mujoco", reason="MuJoCo is not installed (pip install 'reach[mujoco]')")

from reach.tools.cli import main  # noqa: E402

MODEL = Path(__file__).parents[2] / "examples" / "quadruped12.xml"
USER = f'''import mujoco
from reach.analysis.robust import requirement
from reach.models.mujoco import load_model

_model = load_model({str(MODEL)!r})
_data = mujoco.MjData(_model)
mujoco.mj_resetDataKeyframe(_model, _data, 0)
STAND = _data.qpos[7:].copy()


def pd(t, qpos, qvel):
    return 60.0 * (STAND - qpos[7:]) - 2.0 * qvel[6:]


calm = requirement(lambda o: abs(o.v[4]) - 0.3, unit="rad/s", name="calm")
'''


def test_a_model_file_goes_through_its_touchdowns_and_robust_checks_the_saved_run(tmp_path, monkeypatch, capsys):
    import contextlib

    import reach.tools.cli_touchdowns as touchdowns

    (tmp_path / "quad_user.py").write_text(USER)
    monkeypatch.chdir(tmp_path)
    watched = []  # a first run says that it compiles, as `reach run` does (it was silent for a minute)
    monkeypatch.setattr(touchdowns, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    assert main(["trajectory", str(MODEL), "--controller", "quad_user:pd", "--impacts", "2", "--budget", "64",
                 "--branches", "2", "--out", "run.npz"]) == 0
    out = capsys.readouterr().out
    assert "2 touchdowns followed" in out and "pitch rate" in out and "wrote run.npz" in out
    assert watched == [{"enabled": True}]
    assert (tmp_path / "run.png").stat().st_size > 10_000  # the figure beside it
    assert main(["robust", "run.npz", "--predicate", "quad_user:calm"]) == 0
    report = capsys.readouterr().out
    assert report.count("\n     1 ") == 1 and "missed" in report and "REPLAY DIFFERS" not in report


def test_a_model_file_without_that_keyframe_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["trajectory", str(MODEL), "--keyframe", "sit", "--impacts", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no keyframe 'sit'" in err and "\n" not in err


def test_a_model_file_run_resumes_only_from_a_checkpoint_and_never_overwrites_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["trajectory", str(MODEL), "--impacts", "1", "--resume", "--out", "run.npz"]) == 2
    assert "no checkpoint at 'run.ckpt.npz'" in capsys.readouterr().err
    (tmp_path / "run.ckpt.npz").write_bytes(b"")
    assert main(["trajectory", str(MODEL), "--impacts", "1", "--out", "run.npz"]) == 2
    assert "holds an interrupted run" in capsys.readouterr().err
