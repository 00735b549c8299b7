"""Sphinx configuration of reach's documentation (``pip install -e '.[docs]'``; ``sphinx-build -W docs docs/_build``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `scenarios` sits beside `reach`

from reach.version import __version__  # noqa: E402

project = "reach"
author = "the reach developers"
copyright = "2026, the reach developers"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py.md5", "auto_examples/*.zip"]
myst_heading_anchors = 3
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples" / "gallery"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "within_subsection_order": "FileNameSortKey",
}
os.environ.setdefault("MPLBACKEND", "Agg")

html_theme = "pydata_sphinx_theme"
html_title = f"reach {version}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
