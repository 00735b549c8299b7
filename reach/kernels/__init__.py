"""Jitted kernels: contiguous arrays, scalars and named tuples in, status codes out.

Nothing here imports the rest of the package.  Modules: :mod:`.lcp` (Lemke),
:mod:`.verify` (residuals and refinement), :mod:`.enumeration` (basis
enumeration), :mod:`.routh` (the Routh step and Algorithms 1-2), :mod:`.rng`
(counter-based random numbers), :mod:`.sobol` (scrambled Sobol points),
:mod:`.replay` (recording and replaying steps for the bench), :mod:`.select`
(row-wise selection for directed sampling).

Importing the package first checks Numba's on-disk cache against the kernel
sources (:mod:`.cache`).
"""

from reach.kernels.cache import ensure_fresh_cache

ensure_fresh_cache()
