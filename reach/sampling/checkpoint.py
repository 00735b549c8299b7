"""Checkpoints of long sampling runs: one directory, a manifest and one file per finished chunk.

Each chunk file is written to a temporary name, fsynced and renamed into
place (:func:`reach.files.atomic_write`), so an interrupted run (Ctrl-C, a
killed job, a full disk) leaves only whole chunk files.  The manifest records
the problem fingerprint and the sampling settings, and every chunk carries
the run's fingerprint: a resumed run must match the manifest, and a chunk
from another run is refused.  Since every chunk is a pure function of
(problem, settings, start, count), a resumed run gives exactly the result of
an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from reach.files import atomic_write, read_npz
from reach.kernels.routh import SAMPLE_FIELDS

__all__ = ["Checkpoint", "run_fingerprint", "claim_folder", "write_record"]

MANIFEST = "manifest.json"
FORMAT = 2
#: What a chunk file holds: the per-sample fields and the stored paths.
CHUNK_KEYS = tuple(SAMPLE_FIELDS) + ("paths", "path_len")


def run_fingerprint(problem, settings):
    """A hash of (problem, settings): what a chunk must have been computed for."""
    text = json.dumps({"problem": problem.fingerprint(), "settings": settings.as_dict()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def claim_folder(path, record, *, resume):
    """The refusals every kind of checkpoint shares: True where ``path`` holds ``record`` (its file) to resume, False
    where the folder is new or empty; an existing checkpoint without ``resume``, ``resume`` without one, or a folder
    of other files is a ValueError."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"checkpoint {str(path)!r} is a file, not a directory; choose another path.")
    if (path / record).exists():
        if not resume:
            raise ValueError(f"checkpoint {str(path)!r} exists from an earlier run; resume it "
                             "(`resume=True`, `reach run ... --resume`) or delete it.")
        return True
    if resume:
        raise ValueError(f"no checkpoint to resume at {str(path)!r}.")
    if path.exists() and any(path.iterdir()):
        raise ValueError(f"checkpoint directory {str(path)!r} exists and is not a checkpoint; "
                         "choose another path.")
    return False


def write_record(path, record, text):
    """Write a checkpoint's ``record`` file (JSON ``text``) atomically, making its folder; a ValueError if it cannot."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        atomic_write(path / record, lambda fh: fh.write(text.encode()))
    except OSError as exc:
        raise ValueError(f"checkpoint {str(path)!r} cannot be written: {exc.strerror or exc}.") from None


class Checkpoint:
    """A checkpoint directory for one (problem, settings) run."""

    def __init__(self, path, manifest, fingerprint, n_samples):
        self.path = Path(path)
        self.manifest = manifest
        self.fingerprint = fingerprint
        self.n_samples = int(n_samples)

    @staticmethod
    def found(path):
        """Whether ``path`` holds a checkpoint (its manifest)."""
        return (Path(path) / MANIFEST).is_file()

    @classmethod
    def open(cls, path, problem, settings, *, resume):
        """Create a fresh checkpoint, or reopen one to resume (checked against the run)."""
        path = Path(path)
        fingerprint = run_fingerprint(problem, settings)
        manifest = {"problem_fingerprint": problem.fingerprint(), "settings": settings.as_dict(),
                    "run_fingerprint": fingerprint, "format": FORMAT}
        if claim_folder(path, MANIFEST, resume=resume):
            cls._check_manifest(path, path / MANIFEST, manifest)
        else:
            write_record(path, MANIFEST, json.dumps(manifest, indent=1))
        return cls(path, manifest, fingerprint, settings.n_samples)

    @staticmethod
    def _check_manifest(path, mfile, manifest):
        try:
            found = json.loads(mfile.read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"checkpoint {str(path)!r} is corrupt: its manifest is unreadable ({exc}).") from None
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            raise ValueError(f"checkpoint {str(path)!r} has another format; delete it and run again.")
        if found.get("problem_fingerprint") != manifest["problem_fingerprint"]:
            raise ValueError(f"checkpoint {str(path)!r} was written for a different problem "
                             f"({found.get('problem_fingerprint')} != {manifest['problem_fingerprint']}).")
        theirs = found.get("settings") or {}
        diff = {k: (theirs.get(k), v) for k, v in manifest["settings"].items() if theirs.get(k) != v}
        if diff:
            detail = ", ".join(f"{k}: checkpoint {a!r} vs now {b!r}" for k, (a, b) in diff.items())
            raise ValueError(f"checkpoint {str(path)!r} was written with other settings ({detail}).")

    def _chunk_file(self, start):
        return self.path / f"chunk-{int(start):012d}.npz"

    def finished_starts(self):
        return sorted(int(p.stem.split("-")[1]) for p in self.path.glob("chunk-*.npz"))

    def load_chunks(self):
        """Read every finished chunk; a damaged or foreign file, or one that overlaps another, is a clear error.

        Chunks may come from a plan for another worker count (:func:`reach.sampling.plan.plan_run`): what a
        chunk holds depends only on its samples' indices, so any non-overlapping chunks of the run are valid.
        """
        chunks = []
        seen = np.zeros(self.n_samples, dtype=bool)
        for start in self.finished_starts():
            f = self._chunk_file(start)
            try:
                data = read_npz(f)
                chunk = {key: data[key] for key in CHUNK_KEYS}
                owner = str(data["run_fingerprint"])
            except (ValueError, KeyError) as exc:
                raise ValueError(f"checkpoint chunk {str(f)!r} is corrupt ({exc}); delete that file "
                                 "to recompute its samples.") from None
            if owner != self.fingerprint:
                raise ValueError(f"checkpoint chunk {str(f)!r} belongs to another run (fingerprint {owner} "
                                 f"!= {self.fingerprint}); delete that file to recompute its samples.")
            stop = start + len(chunk["lcp_solves"])
            if stop > self.n_samples or seen[start:stop].any():
                raise ValueError(f"checkpoint chunk {str(f)!r} lies outside the run or overlaps another chunk; "
                                 "delete that file to recompute its samples.")
            seen[start:stop] = True
            chunk["start"] = start
            chunks.append(chunk)
        return chunks

    def write_chunk(self, chunk):
        """Write one finished chunk, durably, tagged with the run's fingerprint."""
        atomic_write(self._chunk_file(chunk["start"]),
                     lambda fh: np.savez(fh, run_fingerprint=np.array(self.fingerprint),
                                         **{key: chunk[key] for key in CHUNK_KEYS}))

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)
