"""``python -m reach``: the same command line as ``reach`` (:func:`reach.tools.cli.main`)."""

from reach.tools.cli import main

if __name__ == "__main__":  # not on import (the docs' check imports every module)
    raise SystemExit(main())
