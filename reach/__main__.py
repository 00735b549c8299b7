"""``python -m reach``: the same command line as ``reach`` (:func:`reach.tools.cli.main`)."""

from reach.tools.cli import main

raise SystemExit(main())
