import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("MPLBACKEND", "Agg")

# The kernel-cache guard (reach.kernels.cache.ensure_fresh_cache) runs on import: here it runs once, in the
# process that starts pytest-xdist's workers, before they start, so that no worker clears what another compiled.
importlib.import_module("reach.kernels")
