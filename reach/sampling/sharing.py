"""How :class:`reach.sampling.executors.Hybrid` shares a phase between the GPU and local processes.

A phase's chunks wait in a :class:`Line`, taken from either end as runs of
consecutive chunks; :class:`Runs` keeps the runs out on either side, and the
GPU's back-ups of the processes' runs (:meth:`Runs.back_up`), so that a
sample either side delivered first is not delivered again
(:func:`parts_outside`); :func:`joined` makes one item of consecutive ones; a :class:`Clock` keeps the wall seconds that any of
the processes' runs was out, by which their rate is measured.
"""

from __future__ import annotations

import time

from collections import deque

import numpy as np

__all__ = ["Clock", "Runs", "Line", "joined", "parts_outside"]


class Clock:
    """Wall seconds while at least one of a side's runs is out, and the samples out now."""

    def __init__(self):
        self.seconds, self.held, self._out, self._since = 0.0, 0, 0, 0.0

    def start(self, samples):
        """A run of ``samples`` goes out."""
        if self._out == 0:
            self._since = time.perf_counter()
        self._out, self.held = self._out + 1, self.held + samples

    def stop(self, samples):
        """A run of ``samples`` came back (or was dropped)."""
        now = time.perf_counter()
        self.seconds += now - self._since
        self._since, self._out, self.held = now, self._out - 1, self.held - samples

    def elapsed(self):
        """:attr:`seconds`, with the time since the last start or stop if a run is out now."""
        return self.seconds + (time.perf_counter() - self._since if self._out else 0.0)


class Runs:
    """A phase's runs out on either side, by future.  The GPU may run again several of the processes' runs as one
    launch (a back-up); a sample either side delivered is not delivered again."""

    def __init__(self, line, clock):
        self.line, self.clock = line, clock
        self.out = {}  # future -> (side, item), in the order taken
        self.backed = {}  # the processes' future -> the GPU's future that runs it again
        self.members = {}  # a back-up's future -> the processes' futures it runs again, still out
        self.skip = {}  # a back-up's future -> (start, count) of the samples the processes delivered first
        self.taken = {}  # the processes' future -> (when it was taken, the samples they held then, its own too)

    def add(self, future, side, item):
        """A run of ``item`` (``(start, count[, caps])``) went out on ``side`` ("gpu" or "cpu") as ``future``."""
        self.out[future] = (side, item)
        if side == "cpu":
            self.clock.start(int(item[1]))
            self.taken[future] = (time.perf_counter(), self.clock.held)

    def busy(self, side):
        """Whether ``side`` has a run out."""
        return any(s == side for s, _ in self.out.values())

    def back_up(self, submit, worth):
        """Run again on the GPU the processes' runs still out and not yet run again, consecutive ones as one
        launch, where ``worth(samples, taken, held)`` (when the run of them taken last was taken, and the samples
        the processes held then)."""
        held = sorted((item[0], future) for future, (side, item) in self.out.items()
                      if side == "cpu" and future not in self.backed)
        groups = []
        for start, future in held:
            if groups and self.out[groups[-1][-1]][1][0] + self.out[groups[-1][-1]][1][1] == start:
                groups[-1].append(future)
            else:
                groups.append([future])
        for group in groups:
            items = [self.out[f][1] for f in group]
            if not worth(sum(int(item[1]) for item in items), *max(self.taken[f] for f in group)):
                continue
            item = joined(items)
            again = submit(item)
            self.out[again] = ("gpu", item)
            self.members[again], self.skip[again] = set(group), []
            self.backed.update(dict.fromkeys(group, again))

    def finish(self, future):
        """``(side, [the parts of its chunk to deliver], whether a back-up)`` for a run that ended: none of a run
        whose samples the other side delivered first.  The processes' runs that a back-up delivered are cancelled
        and never waited for."""
        side, item = self.out.pop(future)
        chunk = future.result()
        if side == "cpu":
            self.clock.stop(int(item[1]))
            again = self.backed.pop(future, None)
            if again is not None:  # its back-up, still out, is trimmed of it (dropped where nothing is left)
                self.members[again].discard(future)
                self.skip[again].append((int(item[0]), int(item[1])))
            return side, [chunk], False
        if future not in self.members:
            return side, [chunk], False
        for twin in self.members.pop(future):  # the processes' runs it delivered: cancelled, not waited for
            self.backed.pop(twin)
            twin.cancel()
            self.clock.stop(int(self.out.pop(twin)[1][1]))
        return side, parts_outside(chunk, int(item[0]), int(item[1]), self.skip.pop(future)), True


def joined(items):
    """Consecutive items ``(start, count[, caps])``, in order, as one: ``(start, total[, their caps])``."""
    total = sum(int(item[1]) for item in items)
    if len(items[0]) == 2:
        return int(items[0][0]), total
    return int(items[0][0]), total, np.concatenate([item[2] for item in items])


def parts_outside(chunk, start, count, skip):
    """The parts of ``chunk`` (samples ``start .. start + count - 1``) outside the runs ``skip``, each a chunk
    of its own (its per-sample arrays sliced; its seconds with the first part)."""
    cuts, parts, at = sorted(skip), [], start
    for a, n in cuts + [(start + count, 0)]:
        if a > at:
            part = {key: value[at - start:a - start] if isinstance(value, np.ndarray) else value
                    for key, value in chunk.items()}
            part["start"] = at
            if parts:
                part.update({key: 0.0 for key in ("cpu_seconds", "kernel_seconds") if key in part})
            parts.append(part)
        at = max(at, a + n)
    return parts


class Line:
    """A phase's chunks ``(start, count[, caps])`` in order, taken from either end as runs of consecutive ones."""

    def __init__(self, items):
        self.items = deque(items)
        self.left = sum(int(item[1]) for item in self.items)

    def take(self, want, front):
        """One chunk from the ``front`` (or the back), joined by its consecutive neighbours up to ``want``
        samples in all; None when the line is empty."""
        if not self.items:
            return None
        pop = self.items.popleft if front else self.items.pop
        run = [pop()]
        total = int(run[0][1])
        while self.items and total + int(self._next(front)[1]) <= want and self._joins(run[-1], front):
            run.append(pop())
            total += int(run[-1][1])
        self.left -= total
        return joined(run if front else run[::-1])

    def _next(self, front):
        return self.items[0] if front else self.items[-1]

    def _joins(self, last, front):
        """Whether the next chunk on this side continues the run that ends (or, from the back, begins) at ``last``."""
        nxt = self._next(front)
        return nxt[0] == last[0] + last[1] if front else nxt[0] + nxt[1] == last[0]
