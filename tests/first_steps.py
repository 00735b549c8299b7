"""The commands of the README's "First steps" block, as the tests run them: with small budgets, same code paths.

Read from README.md itself, so a step cannot break (or be edited into
something that fails) without a test failing.  ``tests/tools/test_readme.py``
runs every step but one in order; ``reach figures --quick``, the longest by
far (about 85 s of a two-core host's CI), is run once, as written, by the
fixture of ``tests/tools/test_figures.py``, whose tests then check every file
it wrote.
"""

import re
import shlex
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"
#: Appended to a subcommand's arguments: small budgets, same code paths (argparse keeps an option's last value).
SMALLER = {"run": ["--samples", "1024", "--no-progress"], "trajectory": ["--budget", "64", "--branches", "3"],
           "sweep": ["--budget", "64", "--n-jobs", "1"], "figures": ["--no-progress"], "simulate": ["--no-progress"]}
#: The step that ``tests/tools/test_figures.py`` runs for the README's test.
RUN_BY_THE_FIGURES_TESTS = "figures"


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


def arguments(command):
    """What a first step passes to :func:`reach.tools.cli.main`: its arguments, then :data:`SMALLER`'s."""
    return command[1:] + SMALLER.get(command[1], [])


def the_step(subcommand):
    """The one first step of ``subcommand``."""
    steps = [c for c in first_steps() if c[1] == subcommand]
    assert len(steps) == 1, steps
    return steps[0]
