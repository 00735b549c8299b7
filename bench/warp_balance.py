"""How busy a GPU warp's 32 lanes are, from the CPU's LCP solves a sample: a thread a sample against a queue.

A warp runs as long as its slowest thread.  With a thread a sample (the GPU
kernel's ``"thread"`` schedule), a warp of 32 consecutive samples takes as many
Routh steps as the sample that takes the most, while the others' lanes wait.
This counts, on uniform sets computed on the CPU (the GPU's samples are these,
bit for bit), the busy share of the lanes: the LCP solves done over 32 times
the solves of the warp's longest sample, summed over warps.  Then it models the
``"queue"`` schedule (:func:`reach.kernels.device.queue_source`): ``LANES``
threads take samples from a shared counter in turn and run one step each turn,
a warp's lanes together; a lane that ends a sample takes the next at once, so
a warp waits only at the end of the queue.  Both count a step as one LCP solve.
A step's own pivots vary too, under either schedule: the last column is the
busy share of 32 lanes that each run one of the case's recorded LCPs
(:func:`reach.tools.bench_gpu.recorded_lcps`, drawn at random, 20,000 groups),
Lemke's pivot loop running until the longest ends.  Speed is a device's to
measure (``reach bench --gpu`` times both schedules).

    PYTHONPATH=.:tests python bench/warp_balance.py

Log: ``bench/warp-balance.log``.
"""

import numpy as np

from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case

CASES = (("rocking-block", 2**16), ("disk-stack", 2**16), ("quadruped", 2**14))
#: Threads of the modelled queue kernel (64 warps): each holds about samples / LANES samples in turn.
LANES = 2**11


def thread_a_sample(solves):
    """Busy share of the lanes when warp ``w`` runs samples ``32 w .. 32 w + 31``, one a thread."""
    warps = solves[: len(solves) // 32 * 32].reshape(-1, 32)
    return warps.sum() / (32 * warps.max(axis=1).sum())


def queue(solves, lanes=LANES):
    """Busy share of the lanes when ``lanes`` threads take the samples from a counter, a step a turn."""
    left = np.zeros(lanes, dtype=np.int64)  # steps left of each lane's sample (0: it holds none)
    taken, turns = 0, np.zeros(lanes // 32, dtype=np.int64)
    while True:
        for lane in np.flatnonzero(left == 0):  # lanes without a sample take the next ones, in lane order
            if taken < len(solves):
                left[lane], taken = solves[taken], taken + 1
        busy = left > 0
        if not busy.any():
            break
        turns += busy.reshape(-1, 32).any(axis=1)  # a warp takes a turn while any of its lanes has a step
        left[busy] -= 1
    return solves.sum() / (32 * turns.sum())


def pivots(label, count=4096, groups=20000):
    """Busy share of 32 lanes each running one of ``label``'s recorded LCPs, in Lemke's pivot loop together;
    and the mean pivots a solve."""
    from reach.kernels.lcp import make_work
    from reach.kernels.warp import cpu_lemke_batch
    from reach.tools.bench_gpu import recorded_lcps

    lcp, Q, D, opts = recorded_lcps(label, count)
    K, n = Q.shape
    status, counts = np.zeros(K, np.int64), np.zeros(K, np.int64)
    cpu_lemke_batch(lcp.MsT, Q, D, opts, make_work(n), np.zeros(n), status, counts, np.zeros((K, n)),
                    np.zeros((K, n), np.int64))
    drawn = counts[np.random.default_rng(0).integers(0, K, size=(groups, 32))]
    return drawn.mean() / drawn.max(axis=1).mean(), counts.mean()


def main():
    print(f"# busy share of a warp's lanes, by LCP solves a sample (uniform sets, random choice, the CPU's); "
          f"queue: {LANES} threads")
    print(f"{'case':14s} {'samples':>8s} {'solves mean':>11s} {'max':>4s} {'a thread a sample':>17s} {'queue':>6s} "
          f"{'ratio':>6s} {'pivots mean':>11s} {'32 solves':>9s}")
    for label, n in CASES:
        problem, h, N = problem_case(label)
        result = sample_post_impact_set(problem, n, h, N, strategy="uniform", solution_choice="random",
                                        completeness=False, keep_paths=0, n_jobs=2)
        solves = np.asarray(result.lcp_solves, dtype=np.int64)
        a, b = thread_a_sample(solves), queue(solves)
        c, mean = pivots(label)
        print(f"{label:14s} {n:8d} {solves.mean():11.2f} {solves.max():4d} {a:17.2f} {b:6.2f} {b / a:5.2f}× "
              f"{mean:11.2f} {c:9.2f}", flush=True)


if __name__ == "__main__":
    main()
