"""Sampling the post-impact set (paper Algorithm 2) — the Python layer over :mod:`reach.routh`.

:func:`sample_post_impact_set` draws the per-step caps ``p`` from a scrambled
Sobol sequence (as the published code did) or from counter-based uniforms
over ``[0, 1]^(m N)``, cuts the index range into chunks, runs the jitted
kernel on each chunk and gathers a :class:`reach.result.PostImpactSet`.
Points are keyed by their global sample index, so the same seed gives the
same set whatever the chunking.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from reach.routh import CHOICE_FIRST, CHOICE_RANDOM, RouthKernelData, run_samples_kernel, uniform_block

__all__ = ["SamplingSettings", "sample_post_impact_set", "draw_caps"]

SEQUENCES = ("sobol", "uniform")
SOLUTION_CHOICES = {"random": CHOICE_RANDOM, "first": CHOICE_FIRST}


class SamplingSettings:
    """The algorithm's settings (paper Algorithm 2), validated.

    Parameters
    ----------
    n_samples : int
        Trajectory count (the paper's M).
    h : float
        Step size: per-step normal-impulse caps are ``h p``, ``p`` in ``[0, 1]^m``.
    max_steps : int
        Trajectory length N.
    eps : float, optional
        Approximation radius epsilon; the closing step caps every contact's
        impulse at ``eps / (3 psi)``.  Default ``h / 10``.
    seed : int
        Seed of the sequence and of the random solution choice.
    sequence : {"sobol", "uniform"}
    solution_choice : {"random", "first"}
        How a step whose LCP has several distinct solutions is resolved
        (see :mod:`reach.routh`).
    keep_paths : int
        Store the velocity paths of the first ``keep_paths`` samples.
    chunk_size : int
        Samples per kernel call.
    """

    def __init__(self, n_samples, h, max_steps, *, eps=None, seed=0, sequence="sobol",
                 solution_choice="random", keep_paths=0, chunk_size=16384):
        if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 1:
            raise ValueError(f"`n_samples` must be a positive integer; got {n_samples!r}.")
        if not np.isfinite(h) or h <= 0:
            raise ValueError(f"`h` must be a positive number; got {h!r}.")
        if isinstance(max_steps, bool) or int(max_steps) != max_steps or max_steps < 1:
            raise ValueError(f"`max_steps` must be a positive integer; got {max_steps!r}.")
        eps = h / 10.0 if eps is None else eps
        if not np.isfinite(eps) or eps <= 0:
            raise ValueError(f"`eps` must be a positive number; got {eps!r}.")
        if sequence not in SEQUENCES:
            raise ValueError(f"`sequence` must be one of {SEQUENCES}; got {sequence!r}.")
        if solution_choice not in SOLUTION_CHOICES:
            raise ValueError(f"`solution_choice` must be one of {tuple(SOLUTION_CHOICES)}; got {solution_choice!r}.")
        if int(keep_paths) != keep_paths or keep_paths < 0:
            raise ValueError(f"`keep_paths` must be a non-negative integer; got {keep_paths!r}.")
        if int(seed) != seed or seed < 0:
            raise ValueError(f"`seed` must be a non-negative integer; got {seed!r}.")
        self.n_samples = int(n_samples)
        self.h = float(h)
        self.max_steps = int(max_steps)
        self.eps = float(eps)
        self.seed = int(seed)
        self.sequence = sequence
        self.solution_choice = solution_choice
        self.keep_paths = int(min(keep_paths, n_samples))
        self.chunk_size = int(chunk_size)

    def as_dict(self):
        return {key: getattr(self, key) for key in
                ("n_samples", "h", "max_steps", "eps", "seed", "sequence", "solution_choice", "keep_paths")}


def draw_caps(m, N, start, count, *, seed=0, sequence="sobol"):
    """The normalized caps ``p`` for samples ``start .. start + count - 1``: shape (count, N, m)."""
    dim = m * N
    if sequence == "sobol":
        from scipy.stats import qmc

        engine = qmc.Sobol(d=dim, scramble=True, seed=seed)
        if start:
            engine.fast_forward(int(start))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # balance warning for non-powers of 2
            P = engine.random(count)
    else:
        P = np.empty((count, dim))
        uniform_block(seed, 0, start, P)
    return np.ascontiguousarray(P.reshape(count, N, m))


def run_chunk(data, settings, start, count):
    """Run samples ``start .. start + count - 1``; returns a dict of per-sample arrays."""
    problem = data.problem
    P = draw_caps(problem.m, settings.max_steps, start, count, seed=settings.seed,
                  sequence=settings.sequence)
    nv = problem.nv
    out = {
        "velocities": np.empty((count, nv)),
        "lcp_solves": np.empty(count, dtype=np.int64),
        "terminated": np.empty(count, dtype=bool),
        "kept": np.empty(count, dtype=bool),
        "status": np.empty(count, dtype=np.int64),
        "residual": np.empty(count),
    }
    K = max(0, min(settings.keep_paths - start, count))
    paths = np.full((K, settings.max_steps + 2, nv), np.nan)
    path_len = np.zeros(K, dtype=np.int64)
    eps_lambda = settings.eps / (3.0 * problem.psi)
    run_samples_kernel(data.W, data.Ws, data.row_scale, data.col_scale, data.Jbar, data.Minv_JbarT,
                       data.Jn, data.v0, P, settings.h, eps_lambda, problem.colliding_tol,
                       SOLUTION_CHOICES[settings.solution_choice], settings.seed, start,
                       data.max_pivots, out["velocities"], out["lcp_solves"], out["terminated"],
                       out["kept"], out["status"], out["residual"], paths, path_len)
    out["paths"] = paths
    out["path_len"] = path_len
    return out


def sample_post_impact_set(problem, n_samples, h, max_steps, *, eps=None, seed=0, sequence="sobol",
                           solution_choice="random", keep_paths=0, chunk_size=16384, progress=False):
    """Approximate the post-impact velocity set of ``problem`` (paper Algorithm 2).

    Parameters
    ----------
    problem : ImpactProblem
    n_samples : int
        Number of trajectories M.
    h : float
        Step size (cap on each contact's normal impulse per step).
    max_steps : int
        Trajectory length N.
    eps, seed, sequence, solution_choice, keep_paths, chunk_size
        See :class:`SamplingSettings`.
    progress : bool
        Show a progress bar (tqdm) over chunks.

    Returns
    -------
    PostImpactSet
        ``.velocities`` holds the kept (non-colliding) outcomes; per-sample
        arrays (``.all_velocities``, ``.lcp_solves``, ``.terminated``,
        ``.kept``) cover every sample.

    Examples
    --------
    >>> import numpy as np
    >>> from reach import ImpactProblem, sample_post_impact_set
    >>> block = ImpactProblem(np.diag([1, 1, 5 / 12]), [[0, 1, -0.5], [0, 1, 0.5]],
    ...                       [[1, 0, 1], [1, 0, 1]], 1.0, [0, -0.4429, 0])
    >>> result = sample_post_impact_set(block, 256, h=0.3, max_steps=10)
    >>> bool(np.all(result.contact_velocities()[:, :, 0] >= -1e-9))
    True
    """
    from reach.result import PostImpactSet

    settings = SamplingSettings(n_samples, h, max_steps, eps=eps, seed=seed, sequence=sequence,
                                solution_choice=solution_choice, keep_paths=keep_paths,
                                chunk_size=chunk_size)
    data = RouthKernelData(problem)
    starts = list(range(0, settings.n_samples, settings.chunk_size))
    run_chunk(data, settings, 0, 1)  # compile (or load from cache) outside the timing
    wall0, cpu0 = time.perf_counter(), time.process_time()
    chunks = []
    iterator = starts
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(starts, desc="sampling", unit="chunk", leave=False)
    for start in iterator:
        count = min(settings.chunk_size, settings.n_samples - start)
        chunks.append(run_chunk(data, settings, start, count))
    timing = {"wall_seconds": time.perf_counter() - wall0, "cpu_seconds": time.process_time() - cpu0}
    return PostImpactSet.from_chunks(problem, settings, chunks, timing=timing)
