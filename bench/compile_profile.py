"""Where a cold start's compiling goes: Numba's compile time per kernel, for one scenario, with an empty cache.

A first ``reach run`` compiles the kernels and caches them on disk.  Numba
compiles a kernel once for each set of argument types it meets, and
optimizes each kernel together with every kernel it calls, so a kernel met
with one more type, or one more kernel between the sampler and the step,
costs the step's whole chain again.  This runs ``reach``'s sampler for a few
samples of each named scenario in this process, with ``NUMBA_CACHE_DIR`` set
to an empty folder (set before Numba is imported), and prints Numba's compile
events: each kernel's own time (its callees' compiles taken out), how many
times it was compiled, and the total.

    python bench/compile_profile.py rocking-block
    python bench/compile_profile.py disk-stack:solution_choice=first
    python bench/compile_profile.py quadruped --tree

(each argument ``NAME[:key=value...]``: a scenario and keyword arguments of
``sample_post_impact_set``).  ``--tree`` also prints each compile over half a
second with its callers' compiles around it (inclusive seconds, indented by
depth), and the run's wall time: where a cold start's two chains of the step
are compiled (``reach.sampling.cold_start``; ``bench/cold-start-split.log``).  Run from the repository root with
``PYTHONPATH=.:tests``.  Times are CPU-bound and move with the host's load:
compare two versions back to back.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time


def main(argv):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="reach-compile-")
    from numba.core import event

    tree = "--tree" in argv
    argv = [a for a in argv if a != "--tree"]
    own, count, stack, rows = collections.Counter(), collections.Counter(), [], []

    class Listener(event.Listener):
        def on_start(self, e):
            d = e.data.get("dispatcher")
            stack.append([time.perf_counter(), 0.0, d.py_func.__qualname__ if d is not None else e.kind])

        def on_end(self, e):
            t0, inner, name = stack.pop()
            spent = time.perf_counter() - t0
            own[name] += spent - inner
            count[name] += 1
            rows.append((len(stack), name, spent))
            if stack:
                stack[-1][1] += spent

    event.register("numba:compile", Listener())
    from reach import sample_post_impact_set
    from reach.tools.bench_gpu import problem_case

    c0, w0 = time.process_time(), time.perf_counter()
    for arg in argv or ["rocking-block"]:
        name, *pairs = arg.split(":")
        problem, h, N = problem_case(name)  # a scenario, or "quadruped" (the packaged touchdown)
        sample_post_impact_set(problem, 200, h, N, n_jobs=1, completeness=False,
                               **dict(pair.split("=", 1) for pair in pairs))
    print(f"{' '.join(argv)}: {sum(own.values()):.1f} s compiling, {sum(count.values())} compiles, "
          f"{time.process_time() - c0:.1f} s CPU in all")
    for name, seconds in own.most_common(15):
        print(f"  {seconds:6.1f} s  x{count[name]}  {name}")
    if tree:
        print(f"wall {time.perf_counter() - w0:.1f} s; each compile over 0.5 s, inclusive, callees above their caller:")
        for depth, name, seconds in rows:
            if seconds > 0.5:
                print(f"  {'  ' * depth}{name} {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
