"""Durable file writes shared by results and checkpoints."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path, writer):
    """Write ``path`` through ``writer(fh)`` to a temporary file, fsync, rename into place, fsync the folder.

    An interruption at any moment leaves either the old file or the new one,
    never a part.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            writer(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return path
    try:
        os.fsync(fd)
    except OSError:
        pass  # not every file system syncs folders
    finally:
        os.close(fd)
    return path
