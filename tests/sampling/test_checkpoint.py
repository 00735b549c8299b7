"""Checkpoints survive a hard kill at any moment: SIGKILL mid-run, then --resume gives the same result."""

import os
import signal
import subprocess
import sys
import time

import numpy as np

from reach import PostImpactSet
from reach.files import atomic_write
from reach.sampling.plan import plan_run

RUN = ["run", "--fixed", "compass-gait", "--samples", "2^17", "--steps", "5", "--n-jobs", "1", "--no-progress", "--no-plot"]


def _cli(args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "reach.tools.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def test_sigkill_mid_run_loses_no_finished_chunk(tmp_path):
    out = tmp_path / "gait.npz"
    ckpt = tmp_path / "gait.ckpt"
    proc = _cli(RUN + ["--out", str(out)])
    deadline = time.time() + 240
    while time.time() < deadline and len(list(ckpt.glob("chunk-*.npz"))) < 2:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = sorted(ckpt.glob("chunk-*.npz"))
    assert len(finished) >= 2, "the run ended before two chunks were written"
    assert not out.exists()
    resumed = _cli(RUN + ["--out", str(out), "--resume"])
    assert resumed.wait(timeout=600) == 0, resumed.stderr.read()
    assert not ckpt.exists()
    fresh = tmp_path / "fresh.npz"
    assert _cli(RUN + ["--out", str(fresh)]).wait(timeout=600) == 0
    a, b = PostImpactSet.load(out), PostImpactSet.load(fresh)
    np.testing.assert_array_equal(a.all_velocities, b.all_velocities)
    np.testing.assert_array_equal(a.kept, b.kept)
    chunks = plan_run(a.settings, 1).chunks  # --n-jobs 1: one worker's plan, run in order
    assert a.metadata["resumed_samples"] >= sum(c for _, c in chunks[:2])  # the two finished


def test_atomic_write_interrupted_leaves_the_old_file(tmp_path):
    path = tmp_path / "x.bin"
    atomic_write(path, lambda fh: fh.write(b"old"))

    def broken(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    try:
        atomic_write(path, broken)
    except KeyboardInterrupt:
        pass
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]
