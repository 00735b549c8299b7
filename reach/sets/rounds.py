"""The checkpoint of a run in rounds (:func:`reach.sets.build.sample_to_coverage`): the rounds it has finished, and
the round under way, so that an interrupted run goes on where it stopped.

A coverage-driven run doubles its budget round after round, each round a fresh
set and its held-out search.  Its checkpoint is one directory:

* ``rounds.json``: the run's key (the problem's fingerprint, the settings but
  for the budget, the stopping rule) and the record of every round that
  finished without meeting it;
* ``set-<n>/`` and ``held-<n>/``: the fixed-budget checkpoints
  (:mod:`reach.sampling.checkpoint`) of the ``n``-sample round's set and of
  its held-out search, removed once the round is recorded; only for rounds of
  :data:`CHUNKS_FROM` samples or more.

A resumed run skips the recorded rounds and resumes the round under way from
its chunks.  Each round is a pure function of its settings, so the result is
the uninterrupted run's, bit for bit (only the rounds' ``seconds`` tell).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reach.sampling.checkpoint import Checkpoint, claim_folder, write_record

__all__ = ["RoundsCheckpoint", "ROUNDS", "FORMAT", "CHUNKS_FROM"]

#: The file that records a run's key and its finished rounds.
ROUNDS = "rounds.json"
#: Its format; another is refused.
FORMAT = 1
#: Rounds of fewer samples keep no chunks: an interrupted one runs again whole.  A chunk file costs about 3 ms to
#: write (fsync included), and a round has tens of chunks whatever its size: in the disk stack's coverage run (one
#: core, under cProfile) writing every round's 594 took 1.7 s of 54 s, and its rounds under 2^16 samples take
#: seconds.  With this rule the run took 43.5 s against 42.4 s without checkpoints (medians of 3, alternating;
#: ``bench/rounds-checkpoint.log``).
CHUNKS_FROM = 2**16


class RoundsCheckpoint:
    """The checkpoint directory of one run in rounds (see the module).

    Attributes
    ----------
    path : Path
    key : dict
        What the run is: a resumed run must have the same.
    rounds : list of dict
        The records of the finished rounds, in order.
    resumed : int
        How many of them were found when it was opened.
    """

    def __init__(self, path, key, rounds):
        self.path, self.key, self.rounds = Path(path), key, list(rounds)
        self.resumed = len(self.rounds)

    @classmethod
    def open(cls, path, key, *, resume):
        """A new checkpoint at ``path``, or (``resume``) the one there, checked against ``key`` (a JSON-ready dict)."""
        path, key = Path(path), json.loads(json.dumps(key))
        if Checkpoint.found(path):
            raise ValueError(f"checkpoint {str(path)!r} is a fixed-budget run's (`reach run --fixed`); resume it "
                             "with --fixed and its --samples, or delete it.")
        if claim_folder(path, ROUNDS, resume=resume):
            return cls(path, key, cls._check(path, path / ROUNDS, key))
        checkpoint = cls(path, key, [])
        checkpoint._write()
        return checkpoint

    @staticmethod
    def _check(path, found, key):
        """The recorded rounds of the checkpoint file ``found``, if it was written for ``key``."""
        try:
            data = json.loads(found.read_text())
            theirs, rounds = data["key"], list(data["rounds"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"checkpoint {str(path)!r} is corrupt: {ROUNDS} is unreadable ({exc}).") from None
        if data.get("format") != FORMAT:
            raise ValueError(f"checkpoint {str(path)!r} has another format; delete it and run again.")
        differ = [f"{name}: checkpoint {theirs.get(name)!r} vs now {value!r}" for name, value in key.items()
                  if theirs.get(name) != value]
        if differ:
            raise ValueError(f"checkpoint {str(path)!r} was written for another run ({'; '.join(differ)}).")
        return rounds

    def _write(self):
        write_record(self.path, ROUNDS, json.dumps({"format": FORMAT, "key": self.key, "rounds": self.rounds},
                                                   indent=1))

    def part(self, kind, n_samples):
        """Options that checkpoint the ``n_samples``-sample round's ``kind`` (``"set"`` or ``"held"``) run:
        ``checkpoint``, ``resume`` (where one was started) and ``keep_checkpoint``; none for a round of fewer than
        :data:`CHUNKS_FROM` samples."""
        if n_samples < CHUNKS_FROM:
            return {}
        folder = self.path / f"{kind}-{int(n_samples)}"
        return {"checkpoint": folder, "resume": Checkpoint.found(folder), "keep_checkpoint": True}

    def finished(self, record):
        """Record a round that did not end the run, and drop its runs' checkpoints."""
        self.rounds.append(record)
        self._write()
        for kind in ("set", "held"):
            shutil.rmtree(self.path / f"{kind}-{int(record['samples'])}", ignore_errors=True)

    def discard_if_empty(self):
        """Delete the checkpoint if it holds no work (no round recorded, no chunk written): what a run that fails
        before it samples leaves would otherwise stop the next run."""
        if not self.rounds and not any(self.path.glob("*/chunk-*.npz")):
            self.remove()

    def remove(self):
        """Delete the checkpoint."""
        shutil.rmtree(self.path, ignore_errors=True)
