"""Compatibility entry point: ``reach`` console scripts installed by 0.1 call ``reach.cli:main``.

The command line lives in :mod:`reach.tools.cli` (a leaf of the package); this
module only forwards to it, so that an editable install updated with
``git pull`` alone keeps working until ``pip install -e .`` rewrites the script.
"""

import sys


def main(argv=None):
    """Run :func:`reach.tools.cli.main` (imported here, on call: the core never imports the tools)."""
    from reach.tools.cli import main as tools_main

    return tools_main(argv)


if __name__ == "__main__":
    sys.exit(main())
