"""The run plan: phases, chunks per phase and per worker, resume gaps, and what it says of itself."""

import numpy as np
import pytest

from reach.sampling.directed import schedule
from reach.sampling.plan import CHUNKS_PER_WORKER, TAPER_FLOOR, plan_run, tapered_chunks
from reach.sampling.settings import SamplingSettings


@pytest.mark.parametrize("start, stop, size", [(0, 65536, 16384), (100, 5000, 4096), (0, 300, 1024), (7, 8, 16),
                                               (0, 262144, 16384)])
def test_tapered_chunks_cover_the_range_and_shrink_at_the_end(start, stop, size):
    chunks = tapered_chunks(start, stop, size)
    assert chunks[0][0] == start and sum(c for _, c in chunks) == stop - start
    assert all(a + c == b for (a, c), (b, _) in zip(chunks, chunks[1:]))  # contiguous, no overlap
    counts = [c for _, c in chunks]
    assert max(counts) <= size and counts == sorted(counts, reverse=True)
    assert all(c >= min(TAPER_FLOOR, size) for c in counts[:-1])
    if stop - start >= 4 * size:
        assert counts[0] == size and counts[-1] <= TAPER_FLOOR  # a phase ends on small chunks


@pytest.mark.parametrize("exponent", [12, 14, 16, 18, 20])
@pytest.mark.parametrize("workers", [1, 2, 16, 64])
@pytest.mark.parametrize("strategy", ["directed", "uniform"])
def test_every_phase_has_at_least_four_chunks_per_worker(exponent, workers, strategy):
    n = 2**exponent
    settings = SamplingSettings(n, 0.3, 5, strategy=strategy)
    plan = plan_run(settings, workers)
    n0, rounds = schedule(n)
    expected = [(0, n)] if strategy == "uniform" else [(0, n0)] + rounds
    assert [(p.start, p.count) for p in plan.phases] == expected
    for phase in plan.phases:
        counts = [c for _, c in phase.chunks]
        assert sum(counts) == phase.count and phase.chunks[0][0] == phase.start
        assert all(a + c == b for (a, c), (b, _) in zip(phase.chunks, phase.chunks[1:]))
        assert max(counts) <= settings.chunk_size
        assert len(counts) >= min(CHUNKS_PER_WORKER * workers, phase.count)  # 4 a worker, or one a sample
        assert counts == sorted(counts, reverse=True)  # a phase ends on its smallest chunks


def test_a_resumed_plan_runs_only_the_gaps_whatever_the_worker_count():
    settings = SamplingSettings(2**14, 0.3, 5)
    done = np.zeros(settings.n_samples, dtype=bool)
    for a, c in plan_run(settings, 16).chunks[::3]:  # a third of the chunks of a 16-worker run finished
        done[a:a + c] = True
    for workers in (1, 2, 16):
        plan = plan_run(settings, workers, done=done)
        todo = np.zeros(settings.n_samples, dtype=bool)
        for a, c in plan.chunks:
            assert not todo[a:a + c].any()
            todo[a:a + c] = True
        np.testing.assert_array_equal(todo, ~done)  # exactly what is not done, once
        assert [(p.start, p.count) for p in plan.phases] == [(p.start, p.count) for p in plan_run(settings, 1).phases]


def test_the_plan_describes_itself():
    text = plan_run(SamplingSettings(2**16, 0.3, 5, seed=3), 16).describe()
    lines = text.splitlines()
    assert lines[0].startswith("65,536 samples (directed sampling, seed 3) on 16 workers")
    assert "same for any plan, worker count or resume" in text
    assert [line.split()[0] for line in lines[3:]] == ["first", "round", "round", "round", "round"]
    assert "    64        4.0            256  drawn from (seed, index)" in lines[3]
    assert lines[4].endswith("chosen from the outcomes before it")


def test_workers_must_be_positive():
    with pytest.raises(ValueError, match="`workers` must be >= 1"):
        plan_run(SamplingSettings(100, 0.3, 5), 0)


@pytest.mark.parametrize("start, stop, size", [(0, 10, 4), (5, 6, 4), (0, 2**21, 2**20), (3, 2**20 + 7, 2**18)])
def test_even_chunks_are_as_few_as_the_size_allows_and_differ_by_one_at_most(start, stop, size):
    from reach.sampling.plan import even_chunks

    chunks = even_chunks(start, stop, size)
    sizes = [c for _, c in chunks]
    assert chunks[0][0] == start and all(a + c == b for (a, c), (b, _) in zip(chunks, chunks[1:]))
    assert sum(sizes) == stop - start and len(chunks) == -(-(stop - start) // size)
    assert max(sizes) <= size and max(sizes) - min(sizes) <= 1


def test_an_untapered_plan_resumes_what_is_left():
    settings = SamplingSettings(10_000, 0.3, 5, strategy="uniform")
    done = np.zeros(10_000, dtype=bool)
    done[2_000:3_000] = True
    plan = plan_run(settings, 1, done=done, chunk_size=4_096, taper=False)
    assert list(plan.chunks) == [(0, 2_000), (3_000, 3_500), (6_500, 3_500)]
