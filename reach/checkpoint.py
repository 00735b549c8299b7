"""Checkpoints of long sampling runs: one directory, a manifest and one file per finished chunk.

Each chunk file is written to a temporary name and renamed into place, so an
interrupted run (Ctrl-C, a killed job) leaves only whole chunk files; the
manifest records the problem fingerprint and the sampling settings, and a
resumed run must match both.  Since every chunk is a pure function of
(problem, settings, start, count), a resumed run gives exactly the result of
an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

__all__ = ["Checkpoint"]

MANIFEST = "manifest.json"
KEYS = ("velocities", "lcp_solves", "terminated", "kept", "status", "residual", "paths", "path_len")


def _atomic_write_bytes(path, writer):
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        writer(fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class Checkpoint:
    """A checkpoint directory for one (problem, settings) run."""

    def __init__(self, path, manifest):
        self.path = Path(path)
        self.manifest = manifest

    @classmethod
    def open(cls, path, problem, settings, *, resume):
        """Create a fresh checkpoint, or reopen one to resume (checked against the run)."""
        path = Path(path)
        manifest = {"problem_fingerprint": problem.fingerprint(), "settings": settings.as_dict(),
                    "format": 1}
        mfile = path / MANIFEST
        if mfile.exists():
            if not resume:
                raise ValueError(f"checkpoint {str(path)!r} exists from an earlier run; resume it "
                                 "(`resume=True`, `reach run ... --resume`) or delete it.")
            try:
                found = json.loads(mfile.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(f"checkpoint {str(path)!r} is corrupt: its manifest is unreadable ({exc}).") from None
            if found.get("problem_fingerprint") != manifest["problem_fingerprint"]:
                raise ValueError(f"checkpoint {str(path)!r} was written for a different problem "
                                 f"({found.get('problem_fingerprint')} != {manifest['problem_fingerprint']}).")
            theirs = found.get("settings", {})
            diff = {k: (theirs.get(k), v) for k, v in manifest["settings"].items() if theirs.get(k) != v}
            if diff:
                detail = ", ".join(f"{k}: checkpoint {a!r} vs now {b!r}" for k, (a, b) in diff.items())
                raise ValueError(f"checkpoint {str(path)!r} was written with other settings ({detail}).")
            return cls(path, found)
        if resume:
            raise ValueError(f"no checkpoint to resume at {str(path)!r}.")
        if path.exists() and any(path.iterdir()):
            raise ValueError(f"checkpoint directory {str(path)!r} exists and is not a checkpoint; "
                             "choose another path.")
        path.mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(mfile, lambda fh: fh.write(json.dumps(manifest, indent=1).encode()))
        return cls(path, manifest)

    def _chunk_file(self, start):
        return self.path / f"chunk-{int(start):012d}.npz"

    def finished_starts(self):
        return sorted(int(p.stem.split("-")[1]) for p in self.path.glob("chunk-*.npz"))

    def load_chunks(self):
        """Read every finished chunk; a damaged file is a clear error."""
        chunks = []
        chunk_size = self.manifest["settings"]["chunk_size"]
        n_samples = self.manifest["settings"]["n_samples"]
        for start in self.finished_starts():
            f = self._chunk_file(start)
            try:
                with np.load(f, allow_pickle=False) as npz:
                    chunk = {key: npz[key] for key in KEYS}
            except Exception as exc:  # noqa: BLE001 - any read failure means a damaged file
                raise ValueError(f"checkpoint chunk {str(f)!r} is corrupt ({exc}); delete that file "
                                 "to recompute its samples.") from None
            expected = min(chunk_size, n_samples - start)
            if len(chunk["lcp_solves"]) != expected or start % chunk_size:
                raise ValueError(f"checkpoint chunk {str(f)!r} does not match the run's chunking.")
            chunk["start"] = start
            chunks.append(chunk)
        return chunks

    def write_chunk(self, chunk):
        f = self._chunk_file(chunk["start"])
        _atomic_write_bytes(f, lambda fh: np.savez(fh, **{key: chunk[key] for key in KEYS}))

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)
