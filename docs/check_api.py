"""Check that the API reference documents every public name of ``reach``.

Public names are those listed in ``__all__`` by ``reach`` and by each of its
modules and subpackages.  A name counts as documented when the built site's
inventory (``objects.inv``) holds it under the module that lists it or under
the module that defines it (a re-export, such as ``reach.ImpactProblem``, is
documented where it is defined).

Usage::

    sphinx-build docs docs/_build/html
    python docs/check_api.py docs/_build/html

Exit status 1, listing the missing names, when any is undocumented.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from pathlib import Path


def modules(package="reach"):
    """``package`` and every module and subpackage below it, imported."""
    root = importlib.import_module(package)
    return [root] + [importlib.import_module(info.name)
                     for info in pkgutil.walk_packages(root.__path__, prefix=package + ".")]


def public_names(package="reach"):
    """``(module, name, object)`` for every name in the ``__all__`` of ``package`` and its modules."""
    for module in modules(package):
        for name in getattr(module, "__all__", ()):
            yield module.__name__, name, getattr(module, name)


def homes(name, obj, package="reach"):
    """Where ``obj`` is defined: its ``__module__``, or, for data, the modules assigning ``name`` at top level."""
    home = getattr(obj, "__module__", None)
    if home is not None and hasattr(obj, "__qualname__"):
        return {f"{home}.{obj.__qualname__}"}
    pattern = re.compile(rf"^{re.escape(name)}\s*(:[^=]*)?=", re.M)
    found = set()
    for module in modules(package):
        source = getattr(module, "__file__", None)
        if source and name in vars(module) and pattern.search(Path(source).read_text()):
            found.add(f"{module.__name__}.{name}")
    return found


def documented(html_dir):
    """Every object name in the inventory of a built site."""
    from sphinx.util.inventory import InventoryFile

    path = Path(html_dir) / "objects.inv"
    with open(path, "rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    names = set()
    for role, entries in inventory.items():
        if role.startswith("py:"):
            names.update(entries)
    return names


def missing(html_dir, package="reach"):
    """The public names the site at ``html_dir`` does not document, as ``module.name`` strings."""
    names = documented(html_dir)
    absent = []
    for module, name, obj in public_names(package):
        candidates = {f"{module}.{name}"} | homes(name, obj, package)
        if not candidates & names:
            absent.append(f"{module}.{name}")
    return sorted(absent)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    html_dir = argv[0] if argv else "docs/_build/html"
    absent = missing(html_dir)
    for name in absent:
        print(f"not in the API reference: {name}")
    print(f"{len(absent)} public names missing" if absent else "every public name is in the API reference")
    return 1 if absent else 0


if __name__ == "__main__":
    sys.exit(main())
