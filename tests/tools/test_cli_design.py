"""``reach sweep``: a table and a plot; one-line errors with exit 2."""

import numpy as np
import pytest

from reach.tools.cli import main


def test_sweep_writes_the_table_and_its_plot(tmp_path, capsys):
    out = tmp_path / "billiards.csv"
    assert main(["sweep", "billiards", "--param", "theta=1.0:2.0:3", "--measure", "xi", "--measure", "diameter",
                 "--budget", "128", "--n-jobs", "1", "--out", str(out)]) == 0
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    assert table.shape == (3, 3)
    np.testing.assert_allclose(table[:, 0], [1.0, 1.5, 2.0])
    assert table[0, 1] > table[1, 1] < table[2, 1]  # xi is smallest near pi/2
    assert out.with_suffix(".png").stat().st_size > 10_000
    printed = capsys.readouterr().out
    assert "smallest xi" in printed and "(xi: Seghete-Murphey xi (elastic orders))" in printed  # what it measures


@pytest.mark.parametrize("argv, words", [
    (["sweep", "nope", "--param", "x=1"], "unknown design"),
    (["sweep", "billiards"], "at least one --param"),
    (["sweep", "billiards", "--param", "theta=1:2"], "NAME=LO:HI:COUNT"),
    (["sweep", "billiards", "--param", "theta=1:2:0"], "NAME=LO:HI:COUNT"),
    (["sweep", "billiards", "--param", "phi=1"], "no parameters"),
    (["sweep", "billiards", "--param", "theta=1", "--measure", "size"], "--measure"),
    (["sweep", "billiards", "--param", "theta=1", "--out", "x.txt"], ".csv"),
])
def test_sweep_bad_input_is_one_line_and_exit_2(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


@pytest.mark.parametrize("flag, bar", [([], True), (["--no-progress"], False)])
def test_sweep_no_progress_leaves_out_the_bar(tmp_path, capsys, monkeypatch, flag, bar):
    import contextlib

    import reach.tools.cli_design as cli_design

    watched = []  # a first run says that it compiles (reach.tools.compiling), but for --no-progress
    monkeypatch.setattr(cli_design, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    assert main(["sweep", "billiards", "--param", "theta=1.0:2.0:2", "--measure", "xi", "--budget", "64",
                 "--n-jobs", "1", "--out", str(tmp_path / "b.csv"), *flag]) == 0
    assert ("sweep:" in capsys.readouterr().err) == bar
    assert watched == [{"enabled": bar}]
