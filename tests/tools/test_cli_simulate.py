"""``reach simulate``: a trajectory saved as .npz with a plot, and one-line errors with exit 2."""

import numpy as np
import pytest

from reach.laws.trajectory import Trajectory
from reach.tools.cli import main


def test_simulate_writes_the_trajectory_and_its_plot(tmp_path, capsys):
    out = tmp_path / "rod.npz"
    assert main(["simulate", "spinning-rod", "--dt", "0.01", "--t-end", "0.6", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "end2|table" in text and "worst LCP residual" in text
    trajectory = Trajectory.load(out)
    assert len(trajectory) == 60 and trajectory.h == 0.01
    assert np.any(trajectory.normal > 0)
    assert out.with_suffix(".png").stat().st_size > 10_000


@pytest.mark.parametrize("argv, words", [
    (["simulate", "nope"], "unknown simulation"),
    (["simulate", "four-balls", "--dt", "0"], "--dt"),
    (["simulate", "four-balls", "--dt", "abc"], "--dt"),
    (["simulate", "spinning-rod", "--dt", "1e-9"], "steps"),
    (["simulate", "spinning-rod", "--dt", "0.1", "--t-end", "0.01"], "shorter than one step"),
    (["simulate", "spinning-rod", "--out", "x.txt"], ".npz"),
])
def test_simulate_bad_input_is_one_line_and_exit_2(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
