"""Keep Numba's on-disk cache consistent with the kernel sources.

Numba keys each cached kernel on the source file that defines it, not on the
files of the jitted functions it calls and inlines: after an upgrade that
changes ``lcp.py`` but not ``routh.py``, the cached Routh kernels
would still run the old Lemke code.  At import we hash every module that holds
kernels; if the hash differs from the one recorded next to the cache, the
package's cached kernels are deleted and recompiled on first use.

Two processes may start cold at once: the stamp is written whole (a
temporary file renamed over it), and only files older than a process's own
look at the stamp are deleted, so one process never deletes what another
has just compiled from the same sources.  That look is timed by the cache
folder's own clock (the temporary stamp's modification time), and a file dated
more than :data:`FUTURE_SLACK` seconds after it is deleted too: a clock set
back since it was written would otherwise keep a stale kernel for good.

The cache is wherever Numba puts it (:func:`cache_folder`): next to the
package, in ``NUMBA_CACHE_DIR`` when that is set, or in a folder of the user's
when the package's own is read-only.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

__all__ = ["STAMP", "kernels_digest", "cache_folder", "holds", "ensure_fresh_cache"]

#: The file, beside the cached kernels, that records the digest (:func:`kernels_digest`) they were compiled from.
STAMP = "reach-kernels.sha256"
#: Seconds after a process's look at the stamp within which another process may have written a cached kernel.
#: A file dated later was written under a clock that has since been set back: it is deleted as stale.
FUTURE_SLACK = 600.0


def kernels_digest():
    """SHA-256 (hex) of every module of this package: the kernels inline each other."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _anchor():
    """A function defined in this package's folder, for Numba's cache locators (:func:`cache_folder`)."""


def cache_folder():
    """The folder where Numba caches this package's kernels, found as Numba finds it.

    Numba picks the first of its cache locators that applies to a function's source file:
    ``NUMBA_CACHE_DIR`` when set, else the ``__pycache__`` next to it when writable, else a folder of the
    user's.  Every kernel module lies in this package's folder, so any function of it has theirs.
    """
    from numba.core.caching import FunctionCache

    try:
        return Path(FunctionCache(_anchor)._cache_path)
    except (AttributeError, RuntimeError, OSError):  # Numba's own locators changed, or none applies
        return Path(__file__).resolve().parent / "__pycache__"


def holds(name, folder=None):
    """Whether Numba's cache (in ``folder``, default :func:`cache_folder`) holds the kernel ``name`` for some argument
    types: ``"module.function"``, as Numba names its index files (``routh.run_samples_kernel``)."""
    return any((cache_folder() if folder is None else Path(folder)).glob(f"{name}-*.nbi"))


def ensure_fresh_cache(folder=None):
    """Delete stale cached kernels of this package from ``folder`` (default :func:`cache_folder`); best effort,
    never raises.  Only files written before this call are deleted (another process may be compiling beside it),
    and those dated more than :data:`FUTURE_SLACK` after it; the stamp is replaced whole."""
    try:
        cache = cache_folder() if folder is None else Path(folder)
        stamp = cache / STAMP
        looked = time.time()
        current = kernels_digest()
        if stamp.exists() and stamp.read_text().strip() == current:
            return
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache / f"{STAMP}.{os.getpid()}.tmp"
        partial.write_text(current)
        looked += partial.stat().st_mtime - time.time()  # in the folder's clock (a network disk's may differ)
        for pattern in ("*.nbi", "*.nbc"):
            for f in cache.glob(pattern):
                _delete_if_stale(f, looked)
        os.replace(partial, stamp)
    except OSError:
        pass  # a read-only install: Numba then does not write a cache there either


def _delete_if_stale(path, moment):
    """Delete ``path`` if it was last written before ``moment`` (seconds since the epoch), or dated too far after
    it to have been written since (:data:`FUTURE_SLACK`)."""
    try:
        written = path.stat().st_mtime
        if written < moment or written > moment + FUTURE_SLACK:
            path.unlink()
    except FileNotFoundError:
        pass  # another process deleted it first
