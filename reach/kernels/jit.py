"""How the kernels are compiled: ``numba.njit(cache=True)``, and without reference counting where nothing is allocated.

Numba counts references to every array a compiled function handles. Taking an
array out of a tuple (``work.x``), taking a row (``V[k]``) and passing a tuple of
arrays to a function each add an atomic increment and its decrement. Numba's
pruning pass removes such pairs in straight code, but not across the branches
of a Routh step (numba issue #2350). On the compass gait, an exact-choice step
written as one function took 1.7 µs with reference counting and 0.9 µs without.
The default sampler became 1.16× (quadruped touchdown) to 1.51× (rocking block)
faster per sample, with the same outcomes bit for bit (docs/performance.md).

A kernel that allocates nothing and returns no array needs no reference counts:
its caller owns every array it touches, for as long as the call lasts.
:func:`kernel` compiles such functions with numba's ``_nrt=False`` option.

Two checks keep this safe:

* Numba refuses to compile an allocation without reference counting. The
  kernels' rule of typed preallocated arrays is therefore checked by the
  compiler.
* ``tests/kernels/test_jit.py`` checks, from the source, that no such kernel
  returns an array it was given. An array returned to a counting caller would
  carry one reference too few.

Functions that allocate keep plain ``numba.njit(cache=True)``. These are the
tables built once per problem and the directed sampler's selection. A counting
function should not call the step in a loop: in a scratch test such a loop cost
4.1 µs a step, against 1.6 µs from an uncounted loop. The loops that call the
step (``run_samples_kernel``, ``replay.solve_steps``) are uncounted kernels.

``_nrt`` is numba's own switch, but it is not part of numba's documented
interface. If a numba release drops it, :func:`kernel` falls back to plain
``numba.njit(cache=True)``: slower, with the same answers.
"""

from __future__ import annotations

import numba as nb
from numba.core import options as _numba_options

__all__ = ["NO_REFCOUNT", "kernel"]

#: Whether this numba accepts ``_nrt=False`` (compile without reference counting).
NO_REFCOUNT = "_nrt" in vars(_numba_options.DefaultOptions)


def kernel(function=None, **options):
    """``numba.njit(cache=True)`` without reference counting, for kernels that allocate nothing and return no array.

    Use it as ``@kernel`` or ``@kernel(inline="always")``; ``options`` go to
    ``numba.njit``.
    """
    options = {"cache": True, **({"_nrt": False} if NO_REFCOUNT else {}), **options}
    if function is None:
        return nb.njit(**options)
    return nb.njit(**options)(function)
