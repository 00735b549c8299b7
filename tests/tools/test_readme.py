"""Every command of the README's "First steps" block runs, as written, with small budgets.

The commands are read from README.md itself (:mod:`first_steps`).  Each runs
through :func:`reach.tools.cli.main` in one scratch folder, in order (``reach
robust`` reads what ``reach trajectory`` wrote); budget flags appended to
a command override the README's (argparse keeps an option's last value).
``reach figures --quick`` is run once, by the fixture of
``tests/tools/test_figures.py``, whose tests check what it wrote.
"""

import re

import pytest

from first_steps import README, RUN_BY_THE_FIGURES_TESTS, arguments, first_steps
from reach.tools.cli import main


def test_the_block_is_found_and_is_all_reach_commands():
    commands = first_steps()
    assert len(commands) >= 8
    assert all(c[0] == "reach" for c in commands)
    assert {c[1] for c in commands} >= {"list", "run", "plot", "simulate", "trajectory", "robust", "sweep",
                                         "figures", "--help"}


def test_every_first_step_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(README.parent / "examples")  # the commands run from the repository's root
    for command in first_steps():
        if command[1] == RUN_BY_THE_FIGURES_TESTS:
            continue  # run once, as written, by tests/tools/test_figures.py's fixture
        if command[1] == "--help":
            with pytest.raises(SystemExit) as exit_:
                main(command[1:])
            assert exit_.value.code == 0
            continue
        code = main(arguments(command))
        out = capsys.readouterr()
        assert code == 0, f"`{' '.join(command)}` exited {code}: {out.err.strip()}"
    assert (tmp_path / "results" / "compass-gait.npz").is_file()
    assert any((tmp_path / "planes").glob("*.png"))


def test_the_speed_up_the_readme_claims_holds_in_every_row_of_table_3():
    # "over N× faster" per sample against the paper's MATLAB code: each row of the committed Table 3
    # (figures/table3.md, measured by `reach figures --refresh`) must bear it out
    claimed = int(re.search(r"over (\d+)× faster \(\[Table 3\]", README.read_text(encoding="utf-8")).group(1))
    table = (README.parent / "figures" / "table3.md").read_text(encoding="utf-8")
    measured = [float(x) for x in re.findall(r"\| ([\d.]+)× \|\s*$", table, re.M)]
    assert len(measured) == 5 and min(measured) > claimed, (claimed, measured)
