"""How the kernels are compiled: ``numba.njit`` with :data:`COMPILE`, and without reference counting where nothing is allocated.

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

Functions that allocate are compiled by :func:`counted`, with reference counts.
These are the tables built once per problem and the directed sampler's selection. A counting
function should not call the step in a loop: in a scratch test such a loop cost
4.1 µs a step, against 1.6 µs from an uncounted loop. The loops that call the
step (``run_samples_kernel``, ``replay.solve_steps``) are uncounted kernels.

``_nrt`` is numba's own switch, but it is not part of numba's documented
interface. If a numba release drops it, :func:`kernel` falls back to
:func:`counted`: slower, with the same answers.

Every kernel also uses NumPy's error model (:data:`COMPILE`). Under Python's,
numba tests each float divisor for zero, to raise ``ZeroDivisionError``; the
branch keeps LLVM from vectorizing a loop that divides. The ratio test of
Lemke's method divides each basic value by its entry in the entering column.
Vectorized, the quadruped touchdown's bare revised Lemke took 9.1 µs a step
instead of 11.9, and the default sampler was 1.17× faster per sample on the
disk stack and the quadruped, with the same outcomes bit for bit
(docs/performance.md). No kernel divides by zero on purpose; where one does
by accident, the infinity or NaN fails the step's verification.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import options as _numba_options

__all__ = ["COMPILE", "NO_REFCOUNT", "kernel", "counted", "kernel_array"]

#: Options every kernel is compiled with. ``error_model="numpy"``: a float division by zero gives an
#: infinity or a NaN, as in NumPy, instead of raising ``ZeroDivisionError`` (integer ``//`` and ``%``
#: keep Python's signs, and give 0).  The Python error model tests every divisor, and that branch
#: keeps LLVM from vectorizing a loop that divides (the ratio test's: see the module docstring).
COMPILE = {"cache": True, "error_model": "numpy"}

#: Whether this numba accepts ``_nrt=False`` (compile without reference counting).
NO_REFCOUNT = "_nrt" in vars(_numba_options.DefaultOptions)


def kernel(function=None, **options):
    """``numba.njit`` with :data:`COMPILE`'s options and without reference counting, for kernels that allocate
    nothing and return no array.

    Use it as ``@kernel`` or ``@kernel(inline="always")``; ``options`` go to
    ``numba.njit``.
    """
    return _compile(function, {**COMPILE, **({"_nrt": False} if NO_REFCOUNT else {}), **options})


def counted(function=None, **options):
    """``numba.njit`` with :data:`COMPILE`'s options and reference counting, for kernels that allocate.

    Use it as ``@counted`` or ``@counted(nogil=True)``.
    """
    return _compile(function, {**COMPILE, **options})


def kernel_array(a, dtype=np.float64):
    """A C-contiguous, writable copy of ``a``: what Python code hands a kernel.

    Numba compiles a kernel once for each argument type, and an array's type
    says whether it is read-only.  A problem's arrays are read-only and a
    caller's own are not, so each kernel of the Routh step was compiled
    twice in one test run; a copy gives every caller the same type.
    """
    return np.array(a, dtype=dtype, order="C")


def _compile(function, options):
    if function is None:
        return nb.njit(**options)
    return nb.njit(**options)(function)
