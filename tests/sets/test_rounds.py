"""A run in rounds, interrupted, resumes from its checkpoint to the uninterrupted run's set (reach.sets.rounds)."""

import json

import numpy as np
import pytest

import scenarios
from reach.sampling.checkpoint import Checkpoint
from reach.sets.build import sample_adaptive, sample_to_coverage
from reach.sets import rounds as rounds_module
from reach.sets.rounds import ROUNDS
from reach.tools.summary import print_coverage

BLOCK = scenarios.get("rocking-block")
# a target never met, so the run goes through every round: 256, 512, 1024, 2048 samples (40 chunks each)
RUN = dict(initial=256, max_samples=2048, missed=1e-4, seed=3, with_frontier=False)
PER_SAMPLE = ("all_velocities", "lcp_solves", "terminated", "kept")
WRITE_CHUNK = Checkpoint.write_chunk


@pytest.fixture(autouse=True)
def chunks_of_small_rounds(monkeypatch):
    """These runs' rounds are small: they keep their chunks all the same."""
    monkeypatch.setattr(rounds_module, "CHUNKS_FROM", 0)


def _rounds(result, key):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in result.metadata[key]["rounds"]]


def _interrupt_at(monkeypatch, writes):
    """Ctrl-C as the ``writes``-th chunk of the run is about to be written."""
    count = [0]

    def write_chunk(self, chunk):
        count[0] += 1
        if count[0] == writes:
            raise KeyboardInterrupt
        return WRITE_CHUNK(self, chunk)

    monkeypatch.setattr(Checkpoint, "write_chunk", write_chunk)


@pytest.fixture(scope="module")
def uninterrupted():
    return sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, **RUN)


def test_an_interrupted_coverage_run_resumes_to_the_same_set(tmp_path, monkeypatch, capsys, uninterrupted):
    path = tmp_path / "run.ckpt"
    _interrupt_at(monkeypatch, 90)  # within the third round's set
    with pytest.raises(KeyboardInterrupt):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, **RUN)
    monkeypatch.setattr(Checkpoint, "write_chunk", WRITE_CHUNK)  # no more interruptions
    recorded = json.loads((path / ROUNDS).read_text())["rounds"]
    assert [r["samples"] for r in recorded] == [256, 512]
    assert Checkpoint.found(path / "set-1024") and any((path / "set-1024").glob("chunk-*.npz"))
    assert not (path / "set-256").exists()  # a recorded round's checkpoints go

    resumed = sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, resume=True, **RUN)
    assert resumed.metadata["resumed_samples"] == 0  # (the last round ran whole: 2048 samples)
    for name in PER_SAMPLE:
        assert np.array_equal(getattr(resumed, name), getattr(uninterrupted, name)), name
    assert _rounds(resumed, "coverage") == _rounds(uninterrupted, "coverage")
    assert resumed.metadata["completeness"]["max"] == uninterrupted.metadata["completeness"]["max"]
    assert not path.exists()  # removed once the set is built
    assert (resumed.metadata["coverage"]["resumed_rounds"], uninterrupted.metadata["coverage"]["resumed_rounds"]) \
        == (2, 0)
    print_coverage(resumed.metadata["coverage"])
    assert "(resumed: 2 rounds from the checkpoint)" in capsys.readouterr().out


def test_the_round_under_way_resumes_from_its_chunks(tmp_path, monkeypatch, uninterrupted):
    path = tmp_path / "run.ckpt"
    _interrupt_at(monkeypatch, 130)  # the last round (2048 samples), 10 chunks in
    with pytest.raises(KeyboardInterrupt):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, **RUN)
    monkeypatch.setattr(Checkpoint, "write_chunk", WRITE_CHUNK)  # no more interruptions
    resumed = sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, resume=True,
                                 keep_checkpoint=True, **RUN)
    assert resumed.metadata["resumed_samples"] > 0
    assert np.array_equal(resumed.all_velocities, uninterrupted.all_velocities)
    assert (path / ROUNDS).exists()  # kept, as asked


def test_an_adaptive_run_resumes_too(tmp_path, monkeypatch):
    run = dict(epsilon=1e-6, initial=256, max_samples=1024, seed=1)
    plain = sample_adaptive(BLOCK.problem, BLOCK.h, BLOCK.N, **run)
    _interrupt_at(monkeypatch, 50)
    with pytest.raises(KeyboardInterrupt):
        sample_adaptive(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=tmp_path / "a", **run)
    monkeypatch.setattr(Checkpoint, "write_chunk", WRITE_CHUNK)  # no more interruptions
    resumed = sample_adaptive(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=tmp_path / "a", resume=True, **run)
    assert np.array_equal(resumed.all_velocities, plain.all_velocities)
    assert _rounds(resumed, "adaptive") == _rounds(plain, "adaptive")


def test_a_checkpoint_is_never_reused_silently(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    _interrupt_at(monkeypatch, 50)
    with pytest.raises(KeyboardInterrupt):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, **RUN)
    monkeypatch.setattr(Checkpoint, "write_chunk", WRITE_CHUNK)  # no more interruptions
    with pytest.raises(ValueError, match="exists from an earlier run"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, **RUN)
    with pytest.raises(ValueError, match="another run .*seed: checkpoint 3 vs now 4"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, resume=True, **{**RUN, "seed": 4})
    with pytest.raises(ValueError, match="another run .*kind: checkpoint 'coverage' vs now 'adaptive'"):
        sample_adaptive(BLOCK.problem, BLOCK.h, BLOCK.N, epsilon=0.01, initial=256, max_samples=2048, seed=3,
                        checkpoint=path, resume=True)
    with pytest.raises(ValueError, match="no checkpoint to resume"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=tmp_path / "none", resume=True, **RUN)
    with pytest.raises(ValueError, match="needs a `checkpoint`"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, resume=True, **RUN)


def test_a_fixed_runs_checkpoint_is_not_taken_for_rounds(tmp_path):
    path = tmp_path / "fixed.ckpt"
    path.mkdir()
    (path / "manifest.json").write_text("{}")
    with pytest.raises(ValueError, match="fixed-budget run's"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=path, resume=True, **RUN)


def test_a_run_that_fails_before_it_samples_leaves_no_checkpoint(tmp_path):
    # else the next run would stop on it ("exists from an earlier run"), as a missing GPU once made it
    with pytest.raises(ValueError, match="n_jobs"):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=tmp_path / "run.ckpt", n_jobs=0, **RUN)
    assert not (tmp_path / "run.ckpt").exists()


def test_a_small_round_keeps_no_chunks(tmp_path, monkeypatch):
    # its chunk files would cost a share of what it takes; interrupted, it runs again whole
    monkeypatch.setattr(rounds_module, "CHUNKS_FROM", 1024)
    _interrupt_at(monkeypatch, 1)  # the first chunk written: the 1,024-sample round's
    with pytest.raises(KeyboardInterrupt):
        sample_to_coverage(BLOCK.problem, BLOCK.h, BLOCK.N, checkpoint=tmp_path / "run.ckpt", **RUN)
    recorded = json.loads((tmp_path / "run.ckpt" / ROUNDS).read_text())["rounds"]
    assert [r["samples"] for r in recorded] == [256, 512]
    assert sorted(p.name for p in (tmp_path / "run.ckpt").iterdir()) == [ROUNDS, "set-1024"]
