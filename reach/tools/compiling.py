"""A first run compiles the kernels: say so, and show the time going by until Numba has cached them.

Numba compiles a kernel on its first call and caches it where its locators
say (:func:`reach.kernels.cache.cache_folder`: ``reach/kernels/__pycache__``,
or ``NUMBA_CACHE_DIR`` when set); later runs load it.  Compiling takes about a
minute (35-93 s for ``reach run rocking-block`` on 2-core hosts, as the README
says, with Lemke's method's kernels compiled in a second process meanwhile:
:mod:`reach.sampling.cold_start`), so on a loaded or slow machine a first run
can sit silent for minutes.  :func:`compile_progress` prints what is happening and
ticks a clock (on stderr) until the sampling kernel's cache file appears.  It
says nothing during its first tick, so a command that stops at once (a bad
argument, found before any kernel runs) prints its one line and no more.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

__all__ = ["kernels_cold", "compile_progress", "NOTICE"]

#: What a first run prints before it compiles.
NOTICE = ("reach: compiling the sampling kernels (first run only; cached after). It takes about a minute, "
          "and longer on a loaded or slower machine.")


def kernels_cold(folder=None):
    """Whether Numba's cache (in ``folder``, default :func:`reach.kernels.cache.cache_folder`) holds no sampling
    kernel yet."""
    from reach.kernels.cache import holds

    return not holds("routh.run_samples_kernel", folder)


@contextmanager
def compile_progress(*, enabled=True, cold=kernels_cold, tick=1.0):
    """Around a first run: after one ``tick`` still cold, the notice, then a clock on stderr until ``cold()`` turns
    false or the block ends."""
    if not enabled or not cold():
        yield
        return
    from tqdm.auto import tqdm

    stop = threading.Event()

    def clock():
        if stop.wait(tick) or not cold():
            return
        print(NOTICE, file=sys.stderr, flush=True)
        with tqdm(desc="compiling", bar_format="{desc}: {elapsed} elapsed", file=sys.stderr, leave=False) as bar:
            while not stop.wait(tick) and cold():
                bar.refresh()  # the elapsed time moves on each refresh

    thread = threading.Thread(target=clock, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5 * tick)
