"""The Python blocks of the README and the docs: each parses, and every name it imports exists.

They are read from the Markdown itself, so a rename in the library cannot
leave a page showing code that no longer imports.  The README's block (a
user's own robot, through MuJoCo) also runs, as written, from the
repository's root; the guide's blocks run longer (a propagation through four
impacts takes minutes on two cores), so only their imports are checked.
"""

import ast
import importlib
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def python_blocks():
    """``(page:index, source)`` of every fenced ``python`` block of the README and the docs."""
    blocks = []
    for page in PAGES:
        for i, match in enumerate(re.finditer(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"),
                                              re.S | re.M)):
            blocks.append((f"{page.relative_to(ROOT)}:{i}", match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_the_blocks_are_found():
    pages = {name.split(":")[0] for name, _ in BLOCKS}
    assert "README.md" in pages and len(BLOCKS) >= 5


@pytest.mark.parametrize("name, source", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_a_blocks_imports_exist(name, source):
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
        elif isinstance(node, ast.ImportFrom):
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name):  # a submodule not imported by its package yet
                    importlib.import_module(f"{node.module}.{alias.name}")


def test_the_readmes_block_runs_as_written(monkeypatch, capsys, tmp_path):
    pytest.importorskip("mujoco", reason="the README's block loads a MuJoCo model")
    source = dict(BLOCKS)["README.md:0"]
    assert "sample_post_impact_set" in source
    block = tmp_path / "block.py"
    block.write_text(source, encoding="utf-8")
    monkeypatch.chdir(ROOT)  # the block's model path is relative to the repository's root
    result = runpy.run_path(str(block), run_name="__readme__")["result"]
    assert len(result) > 0 and np.isfinite(result.velocities).all()
    out = capsys.readouterr().out
    assert "every step verified" in out and "lift_off" in out
