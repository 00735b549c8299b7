"""Keep Numba's on-disk cache consistent with the kernel sources.

Numba keys each cached kernel on the source file that defines it, not on the
files of the jitted functions it calls and inlines: after an upgrade that
changes ``lcp.py`` but not ``routh.py``, the cached Routh kernels
would still run the old Lemke code.  At import we hash every module that holds
kernels; if the hash differs from the one recorded next to the cache, the
package's cached kernels are deleted and recompiled on first use.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

STAMP = "reach-kernels.sha256"


def kernels_digest():
    """SHA-256 (hex) of every module of this package: the kernels inline each other."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_fresh_cache():
    """Delete stale cached kernels of this package (best effort; never raises)."""
    try:
        here = Path(__file__).resolve().parent
        cache = here / "__pycache__"
        stamp = cache / STAMP
        current = kernels_digest()
        if stamp.exists() and stamp.read_text().strip() == current:
            return
        if cache.is_dir():
            for pattern in ("*.nbi", "*.nbc"):
                for f in cache.glob(pattern):
                    f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(current)
    except OSError:
        pass  # a read-only install: Numba then does not write a cache there either
