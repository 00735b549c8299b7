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

(each argument ``NAME[:key=value...]``: a scenario and keyword arguments of
``sample_post_impact_set``).  Run from the repository root with
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

    own, count, stack = collections.Counter(), collections.Counter(), []

    class Listener(event.Listener):
        def on_start(self, e):
            d = e.data.get("dispatcher")
            stack.append([time.perf_counter(), 0.0, d.py_func.__qualname__ if d is not None else e.kind])

        def on_end(self, e):
            t0, inner, name = stack.pop()
            spent = time.perf_counter() - t0
            own[name] += spent - inner
            count[name] += 1
            if stack:
                stack[-1][1] += spent

    event.register("numba:compile", Listener())
    import scenarios
    from reach import sample_post_impact_set

    c0 = time.process_time()
    for arg in argv or ["rocking-block"]:
        name, *pairs = arg.split(":")
        s = scenarios.get(name)
        sample_post_impact_set(s.problem, 200, s.h, s.N, n_jobs=1, completeness=False,
                               **dict(pair.split("=", 1) for pair in pairs))
    print(f"{' '.join(argv)}: {sum(own.values()):.1f} s compiling, {sum(count.values())} compiles, "
          f"{time.process_time() - c0:.1f} s CPU in all")
    for name, seconds in own.most_common(15):
        print(f"  {seconds:6.1f} s  x{count[name]}  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
