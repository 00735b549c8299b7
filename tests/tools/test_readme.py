"""Every command of the README's "First steps" block runs, as written, with small budgets.

The commands are read from README.md itself, so a step cannot break (or be
edited into something that fails) without this test failing.  Each runs
through :func:`reach.tools.cli.main` in one scratch folder, in order (``reach
robust`` reads what ``reach trajectory`` wrote); budget flags appended to
a command override the README's (argparse keeps an option's last value).
"""

import re
import shlex
from pathlib import Path

import pytest

from reach.tools.cli import main

README = Path(__file__).parents[2] / "README.md"
#: Appended to a subcommand's arguments: small budgets, same code paths.
SMALLER = {"run": ["--samples", "1024", "--no-progress"], "trajectory": ["--budget", "64", "--branches", "3"],
           "sweep": ["--budget", "64", "--n-jobs", "1"], "figures": ["--no-progress"], "simulate": ["--no-progress"]}


def first_steps():
    """The commands of the README's "First steps" code block, comments stripped."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## First steps\s+```bash\n(.*?)```", text, re.S).group(1)
    commands = []
    for line in block.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            commands.append(shlex.split(line))
    return commands


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
        argv = command[1:] + SMALLER.get(command[1], [])
        if command[1] == "--help":
            with pytest.raises(SystemExit) as exit_:
                main(argv)
            assert exit_.value.code == 0
            continue
        code = main(argv)
        out = capsys.readouterr()
        assert code == 0, f"`{' '.join(command)}` exited {code}: {out.err.strip()}"
    assert (tmp_path / "results" / "compass-gait.npz").is_file()
    assert any((tmp_path / "planes").glob("*.png"))
    assert (tmp_path / "results" / "figures" / "table3.md").is_file()


def test_the_speed_up_the_readme_claims_holds_in_every_row_of_table_3():
    # "over N× faster" per sample against the paper's MATLAB code: each row of the committed Table 3
    # (figures/table3.md, measured by `reach figures --refresh`) must bear it out
    claimed = int(re.search(r"over (\d+)× faster \(\[Table 3\]", README.read_text(encoding="utf-8")).group(1))
    table = (README.parent / "figures" / "table3.md").read_text(encoding="utf-8")
    measured = [float(x) for x in re.findall(r"\| ([\d.]+)× \|\s*$", table, re.M)]
    assert len(measured) == 5 and min(measured) > claimed, (claimed, measured)
