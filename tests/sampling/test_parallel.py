"""Issue 4: parallel and distributed sampling, checkpoints and resume, adaptive stopping, mirroring."""

import gc
import json
import os

import numpy as np
import pytest

import reach.sampling.engine as sampler
import reach.sampling.workers as workers
from helpers import hand_compass_gait, hand_rocking_block
from reach import PostImpactSet, sample_post_impact_set
from reach.sets.build import sample_adaptive
from reach.sampling.plan import plan_run

ARGS = dict(h=0.25, max_steps=5)


@pytest.fixture(scope="module")
def gait():
    return hand_compass_gait()


@pytest.fixture(scope="module")
def serial(gait):
    return sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, **ARGS)


def assert_same(a, b):
    np.testing.assert_array_equal(a.all_velocities, b.all_velocities)
    np.testing.assert_array_equal(a.lcp_solves, b.lcp_solves)
    np.testing.assert_array_equal(a.kept, b.kept)
    assert len(a.paths) == len(b.paths)
    for p, q in zip(a.paths, b.paths):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_parallel_equals_serial_bit_for_bit(gait, serial, backend):
    par = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs=2, backend=backend, **ARGS)
    assert_same(serial, par)
    assert par.metadata["n_jobs"] == 2


def test_auto_runs_a_small_set_on_one_core(gait, serial, monkeypatch):
    monkeypatch.setattr(workers, "STARTED", [])  # as in a fresh process: no workers to reuse
    auto = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs="auto", **ARGS)
    assert_same(serial, auto)
    assert auto.metadata["n_jobs_requested"] == "auto" and auto.metadata["workers"] == 1
    assert 0.0 < auto.metadata["serial_estimate_seconds"] < workers.AUTO_SERIAL_SECONDS


def test_auto_uses_every_core_for_a_long_run(gait, serial, monkeypatch):
    monkeypatch.setattr(workers, "STARTED", [])
    monkeypatch.setattr(workers, "AUTO_SERIAL_SECONDS", 0.0)  # every run counts as long
    auto = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs="auto", **ARGS)
    assert_same(serial, auto)
    assert auto.metadata["workers"] > 1 or (os.cpu_count() or 1) == 1
    assert auto.metadata["serial_estimate_seconds"] > 0.0
    assert workers.STARTED  # and the next "auto" run reuses the workers without a pilot


def test_dask_local_cluster_equals_serial(gait, serial):
    """A LocalCluster of 4 workers (issue 39) gives the serial set bit for bit."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with distributed.LocalCluster(n_workers=4, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            par = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs=4,
                                         backend="dask", **ARGS)
        by_address = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs=4,
                                            backend="dask", scheduler=cluster.scheduler_address, **ARGS)
    assert_same(serial, par)
    assert_same(serial, by_address)


def test_dask_by_address_connects_once_a_run_and_closes(gait, serial, monkeypatch):
    """A run by address used to make a Client for every phase (6 for this set); now one, closed after the run."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    made = []

    class Counting(distributed.Client):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(distributed, "Client", Counting)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        par = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs=2, backend="dask",
                                     scheduler=cluster.scheduler_address, completeness=False, **ARGS)
        gc.collect()
        assert len(made) == 1 and made[0].status == "closed"
    assert_same(serial, par)
    assert par.metadata["chunks"] > 5  # (a directed set: several phases, each a map over the cluster)


def test_dask_without_a_cluster_is_a_clear_error(gait):
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with pytest.raises(ValueError, match="needs a running dask.distributed Client"):
        sample_post_impact_set(gait, 2000, chunk_size=500, n_jobs=2, backend="dask", **ARGS)


def _interrupt_after(n_chunks, real):
    """``execute`` that stops the run (over all its phases) after ``n_chunks`` chunks."""
    done = [0]

    def fake(plan, todo, executor):
        for chunk in real(plan, todo, executor):
            if done[0] == n_chunks:
                raise KeyboardInterrupt
            done[0] += 1
            yield chunk
    return fake


def _interrupted_run(gait, ckpt, monkeypatch, chunks):
    """A serial run of the ``serial`` fixture's settings stopped after ``chunks`` chunks, checkpointed at ``ckpt``."""
    real = sampler.execute
    monkeypatch.setattr(sampler, "execute", _interrupt_after(chunks, real))
    with pytest.raises(KeyboardInterrupt):
        sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, checkpoint=ckpt, **ARGS)
    monkeypatch.setattr(sampler, "execute", real)


def test_interrupted_run_resumes_to_the_uninterrupted_result(gait, serial, tmp_path, monkeypatch):
    ckpt = tmp_path / "run.ckpt"
    _interrupted_run(gait, ckpt, monkeypatch, 3)
    # the checkpoint is valid: a manifest and three whole chunk files, no temporaries
    assert json.loads((ckpt / "manifest.json").read_text())["settings"]["n_samples"] == 5000
    assert len(list(ckpt.glob("chunk-*.npz"))) == 3
    assert not list(ckpt.glob("*.tmp"))
    with pytest.raises(ValueError, match="exists from an earlier run; resume it"):
        sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, checkpoint=ckpt, **ARGS)
    with pytest.raises(ValueError, match=r"other settings \(seed: checkpoint 0 vs now 1"):
        sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, checkpoint=ckpt, resume=True,
                               seed=1, **ARGS)
    resumed = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, checkpoint=ckpt,
                                     resume=True, **ARGS)
    assert resumed.metadata["resumed_samples"] == sum(c for _, c in plan_run(resumed.settings, 1).chunks[:3])
    assert_same(serial, resumed)
    assert not ckpt.exists()  # removed once the run completed


def test_a_run_interrupted_on_one_worker_resumes_on_two_to_the_same_set(gait, serial, tmp_path, monkeypatch):
    """The plan differs with the worker count (4 chunks a worker a phase); the set and the resume do not."""
    ckpt = tmp_path / "w.ckpt"
    _interrupted_run(gait, ckpt, monkeypatch, 5)
    resumed = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, checkpoint=ckpt, resume=True,
                                     n_jobs=2, **ARGS)
    assert resumed.metadata["resumed_samples"] == sum(c for _, c in plan_run(resumed.settings, 1).chunks[:5])
    assert resumed.metadata["workers"] == 2 and resumed.metadata["chunks"] > len(plan_run(resumed.settings, 1).chunks)
    assert_same(serial, resumed)


def test_corrupt_or_foreign_checkpoint_is_refused(gait, tmp_path, monkeypatch):
    ckpt = tmp_path / "c.ckpt"
    real = sampler.execute
    monkeypatch.setattr(sampler, "execute", _interrupt_after(2, real))
    with pytest.raises(KeyboardInterrupt):
        sample_post_impact_set(gait, 3000, chunk_size=500, checkpoint=ckpt, **ARGS)
    monkeypatch.setattr(sampler, "execute", real)
    with pytest.raises(ValueError, match="written for a different problem"):
        sample_post_impact_set(hand_rocking_block(), 3000, chunk_size=500, checkpoint=ckpt, resume=True, **ARGS)
    first = sorted(ckpt.glob("chunk-*.npz"))[0]
    first.write_bytes(b"not an npz file")
    with pytest.raises(ValueError, match="is corrupt"):
        sample_post_impact_set(gait, 3000, chunk_size=500, checkpoint=ckpt, resume=True, **ARGS)
    with pytest.raises(ValueError, match="no checkpoint to resume"):
        sample_post_impact_set(gait, 3000, chunk_size=500, checkpoint=tmp_path / "none", resume=True, **ARGS)


def test_a_chunk_from_another_run_is_refused(gait, tmp_path, monkeypatch):
    """Chunks carry their run's fingerprint: one copied in from a seed-1 run is not used for seed 0."""
    real = sampler.execute
    for seed in (0, 1):
        monkeypatch.setattr(sampler, "execute", _interrupt_after(2, real))
        with pytest.raises(KeyboardInterrupt):
            sample_post_impact_set(gait, 3000, chunk_size=500, checkpoint=tmp_path / f"s{seed}", seed=seed, **ARGS)
    monkeypatch.setattr(sampler, "execute", real)
    foreign = sorted((tmp_path / "s1").glob("chunk-*.npz"))[0]
    target = tmp_path / "s0" / foreign.name
    target.write_bytes(foreign.read_bytes())
    with pytest.raises(ValueError, match="belongs to another run"):
        sample_post_impact_set(gait, 3000, chunk_size=500, checkpoint=tmp_path / "s0", resume=True, **ARGS)


def test_adaptive_stopping_meets_its_bound_and_matches_a_fixed_run():
    p = hand_rocking_block()
    eps = 0.01 * abs(p.v[1])
    r = sample_adaptive(p, 0.3, 10, epsilon=eps, confidence=0.95, initial=1024)
    info = r.metadata["adaptive"]
    assert info["met"] and info["rounds"][-1]["upper_bound"] < 0.05
    n = r.all_velocities.shape[0]
    assert n == info["rounds"][-1]["samples"]
    fixed = sample_post_impact_set(p, n, 0.3, 10)
    np.testing.assert_array_equal(r.all_velocities, fixed.all_velocities)
    # an impossible target hits the cap and says so
    capped = sample_adaptive(p, 0.3, 10, epsilon=1e-9, confidence=0.99, initial=512, max_samples=2048)
    assert not capped.metadata["adaptive"]["met"]
    assert capped.all_velocities.shape[0] == 2048


def test_mirror_doubles_the_set_symmetrically(tmp_path):
    p = hand_rocking_block()
    r = sample_post_impact_set(p, 2000, 0.3, 10)
    S = np.diag([-1.0, 1.0, -1.0])
    m = r.mirror(S)
    assert len(m) == 2 * len(r)
    cv = m.contact_velocities()
    # contact A of an outcome equals contact B of its mirror image
    np.testing.assert_allclose(cv[len(r):, 0, 0], cv[:len(r), 1, 0], atol=1e-15)
    with pytest.raises(ValueError, match="not a symmetry"):
        r.mirror(np.diag([1.0, -1.0, 1.0]))
    back = PostImpactSet.load(m.save(tmp_path / "m.npz"))
    assert back.metadata["mirrored"] is True and len(back) == len(m)


def test_bad_parallel_arguments(gait):
    with pytest.raises(ValueError, match="`backend` must be one of"):
        sample_post_impact_set(gait, 10, backend="mpi", **ARGS)
    with pytest.raises(ValueError, match="`n_jobs` must be a positive integer, -1 or"):
        sample_post_impact_set(gait, 10, n_jobs=0, **ARGS)
    with pytest.raises(ValueError, match="`resume=True` needs a `checkpoint` directory."):
        sample_post_impact_set(gait, 10, resume=True, **ARGS)


def test_union_of_two_runs(tmp_path):
    p = hand_rocking_block()
    a = sample_post_impact_set(p, 500, 0.3, 10)
    b = sample_post_impact_set(p, 300, 0.3, 10, caps="extremes")
    u = a.union(b)
    assert len(u) == len(a) + len(b)
    assert np.all(u.distance_to(a.velocities) == 0) and np.all(u.distance_to(b.velocities) == 0)
    back = PostImpactSet.load(u.save(tmp_path / "u.npz"))
    assert len(back) == len(u)
    with pytest.raises(ValueError, match="different problem"):
        a.union(sample_post_impact_set(hand_compass_gait(), 10, 0.25, 5))


# ----------------------------------------------------------------------------- the local worker pool
def test_the_pool_returns_every_result_and_is_kept_for_the_next_run():
    import operator

    out = sorted(workers.on_pool(operator.add, [(i, 10) for i in range(20)], 2))
    assert out == [i + 10 for i in range(20)]
    pool = workers._POOL["executor"]
    assert sorted(workers.on_pool(operator.mul, [(2, 3), (4, 5)], 2)) == [6, 20]
    assert workers._POOL["executor"] is pool  # reused: its workers start once a process
    assert list(workers.on_pool(operator.add, [(1, 1)], 1)) == [2]  # another worker count: a new pool
    assert workers._POOL["workers"] == 1


def test_a_failing_task_or_a_dead_worker_raises_and_the_next_run_works():
    import operator
    from concurrent.futures.process import BrokenProcessPool

    with pytest.raises(ZeroDivisionError):
        list(workers.on_pool(operator.truediv, [(1.0, 2.0), (1.0, 0.0), (3.0, 4.0)], 2))
    assert workers._POOL["executor"].submit(sum, [1, 2]).result() == 3  # the pool is idle and usable
    with pytest.raises(BrokenProcessPool):  # loky's TerminatedWorkerError is one
        list(workers.on_pool(os._exit, [(3,)], 2))
    assert sorted(workers.on_pool(operator.add, [(1, 2), (3, 4)], 2)) == [3, 7]
    # a consumer that stops early cancels what is left, and the pool stays usable
    stream = workers.on_pool(operator.add, [(i, i) for i in range(50)], 2)
    next(stream)
    stream.close()
    assert workers._POOL["executor"].submit(sum, [3, 4]).result() == 7
    assert sorted(workers.on_pool(operator.sub, [(5, 1)], 2)) == [4]


def test_a_large_plan_goes_to_the_workers_as_a_file_and_gives_the_same_set(gait, serial, monkeypatch, tmp_path):
    """Above SHIP_BYTES the plan is written once and read once per worker (exact choice on five contacts: 16 MB)."""
    import gc
    import pickle

    small = sampler.Plan(gait, serial.settings)
    assert workers.ship(small) is small and workers.ship(small) is small  # below SHIP_BYTES: sent as itself
    monkeypatch.setattr(workers, "SHIP_BYTES", 0)  # every plan counts as large
    par = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, n_jobs=2, **ARGS)
    assert_same(serial, par)
    plan = sampler.Plan(gait, serial.settings)
    path = workers.ship(plan)
    assert isinstance(path, str) and workers.ship(plan) == path  # written once
    with open(path, "rb") as f:
        assert pickle.load(f).settings == plan.settings
    chunk = workers.run_shipped(sampler.run_chunk, path, 0, 10)
    np.testing.assert_array_equal(chunk["velocities"], serial.all_velocities[:10])
    del plan
    gc.collect()
    assert not os.path.exists(path)  # the file goes with the plan


def test_an_executor_object_gives_the_same_set(gait, serial):
    from reach.sampling.executors import LocalPool, Serial, Threads

    for executor in (Serial(), LocalPool(2), Threads(2)):
        result = sample_post_impact_set(gait, 5000, chunk_size=700, keep_paths=50, executor=executor, **ARGS)
        assert_same(serial, result)
        assert result.metadata["executor"] == executor.describe() and result.metadata["workers"] == executor.workers


def test_the_entry_point_takes_settings_and_refuses_unknown_options(gait, serial):
    from reach.sampling.executors import Serial
    from reach.sampling.settings import SamplingSettings

    # n_samples, h and N come from the arguments (and eps follows h); the rest from the settings
    base = SamplingSettings(5000, 1.0, 1, chunk_size=700, keep_paths=50, solution_choice=serial.settings.solution_choice)
    again = sample_post_impact_set(gait, 5000, settings=base, **ARGS)
    assert_same(serial, again)
    assert again.settings == serial.settings
    with pytest.raises(TypeError, match=r"unknown options \['n_job'\]"):
        sample_post_impact_set(gait, 100, n_job=2, **ARGS)
    with pytest.raises(TypeError, match="give an `executor` or `n_jobs`/`backend`/`scheduler`, not both"):
        sample_post_impact_set(gait, 100, executor=Serial(), n_jobs=2, **ARGS)


def test_a_run_in_one_chunk_keeps_the_chunks_arrays_and_is_the_set_of_many(gait):
    from reach.sampling.engine import Accumulator, Plan

    many = sample_post_impact_set(gait, 5000, chunk_size=700, strategy="uniform", **ARGS)  # tapered chunks
    assert many.metadata["chunks"] > 8
    chunk = sampler.run_chunk(Plan(gait, many.settings), 0, 5000)
    acc = Accumulator(gait, many.settings)
    acc.add(chunk)
    assert all(acc.arrays[name] is chunk[name] for name in ("velocities", "kept", "lcp_solves"))
    for name, a in many.arrays.items():
        np.testing.assert_array_equal(acc.arrays[name], a)
