"""Durable file writes shared by results and checkpoints."""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

__all__ = ["atomic_write", "read_npz"]


def read_npz(path):
    """Every array of the ``.npz`` archive ``path``, as a dict; a ValueError for anything else.

    An empty, truncated or corrupt file, a single ``.npy`` array renamed
    ``.npz``, or an unreadable path all give a ValueError naming the file.
    """
    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise ValueError("it holds one array, not named arrays")
        with npz:
            return {key: npz[key] for key in npz.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as exc:
        # numpy's message for a file that is not an archive advises loading it unsafely (pickle): never pass that on
        why = "a text file such as a CSV, or a corrupt file" if "pickle" in str(exc) else exc
        raise ValueError(f"{str(path)!r} is not a readable .npz archive ({why}).") from None


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
