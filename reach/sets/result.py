"""`PostImpactSet`: the sampled post-impact velocity set and what users do with it.

Distances (``contains``, ``distance_to``, ``hausdorff``) are measured in
contact-velocity coordinates — per contact the normal and tangential
velocities, flattened to a vector of length ``m (1 + d)`` — which do not depend
on how the generalized velocity is parameterized.
"""

from __future__ import annotations

import json
import os
import platform
from concurrent.futures import Future, ThreadPoolExecutor
from enum import IntEnum
from pathlib import Path

import numpy as np

from reach.files import atomic_write, read_npz
from reach.kernels.routh import SAMPLE_FIELDS
from reach.problem.impact import ImpactProblem
from reach.sampling.settings import SamplingSettings
from reach.version import __version__

__all__ = ["PostImpactSet", "SetStatus", "SamplingWarning"]

FORMAT_VERSION = 2
#: Below this fraction of kept samples a set is flagged (status FEW_KEPT).
FEW_KEPT_FRACTION = 0.5
#: :meth:`PostImpactSet.distance_beyond`'s first query may stop at a neighbour up to ``1 + APPROXIMATE_EPS`` times as
#: far as the nearest (an upper bound on the distance, cheap to find for a far point).
APPROXIMATE_EPS = 1.0


class SamplingWarning(RuntimeWarning):
    """A set was computed but is empty or thin: its message says what to change."""


class SetStatus(IntEnum):
    """How a sampling run went (``PostImpactSet.status``); ``success`` unless EMPTY."""

    OK = 0
    """Every sample's steps verified and most samples ended non-colliding."""
    FAILED_SAMPLES = 1
    """Some samples hit a step no solver could verify; they are counted and left out of the set."""
    FEW_KEPT = 2
    """Fewer than half of the samples ended non-colliding: the set may be truncated."""
    EMPTY = 3
    """No sample ended non-colliding: the set is empty."""


def assess(kept, status, settings):
    """The :class:`SetStatus` and a message naming what to change, from the per-sample arrays."""
    n = len(kept)
    n_kept = int(np.count_nonzero(kept))
    failed = int(np.count_nonzero(status))
    knobs = (f"h = {settings.h:g}, N = {settings.max_steps}: raise `max_steps` (N, --steps) or `h` "
             f"(--h) so that trajectories end non-colliding")
    if n_kept == 0:
        return SetStatus.EMPTY, f"the set is empty: none of {n:,d} samples ended non-colliding with {knobs}."
    if n_kept < FEW_KEPT_FRACTION * n:
        return SetStatus.FEW_KEPT, (f"only {n_kept:,d} of {n:,d} samples ({n_kept / n:.1%}) ended "
                                    f"non-colliding with {knobs}; the set may be truncated.")
    if failed:
        return SetStatus.FAILED_SAMPLES, (f"{failed:,d} of {n:,d} samples hit a step no solver could verify; "
                                          f"they are left out of the set ({n_kept:,d} outcomes kept).")
    return SetStatus.OK, f"{n_kept:,d} of {n:,d} samples ended non-colliding; every step verified."


class PostImpactSet:
    """Outcomes of :func:`reach.sample_post_impact_set`.

    Attributes
    ----------
    success : bool
        False only when the set is empty.
    status : SetStatus
        How the run went (an IntEnum; ``status.name``, and :attr:`message` in words).
    message : str
        What happened, with the numbers, and what to change when the set is thin.
    problem : ImpactProblem
    settings : SamplingSettings
        The sampling settings that produced the set.
    all_velocities : ndarray, shape (n_samples, nv)
        Final velocity of every sample (kept or not).
    kept : ndarray of bool, shape (n_samples,)
        Whether the sample is non-colliding after the closing step (in the set).
    terminated : ndarray of bool, shape (n_samples,)
        Whether Algorithm 1 ended non-colliding within N steps.
    lcp_solves : ndarray of int, shape (n_samples,)
        LCP solves per sample (closing step included).
    sample_status : ndarray of int, shape (n_samples,)
        0 ok; 1 a step's LCP failed verification (the sample is not kept).
    residual : ndarray, shape (n_samples,)
        Worst relative complementarity residual over the sample's steps.
    paths : list of ndarray, each (steps + 1, nv)
        Velocity paths of the first ``settings.keep_paths`` samples.
    metadata : dict
        Run information (timing, versions, problem fingerprint).
    """

    def __init__(self, problem, settings, arrays, paths, metadata):
        self.problem = problem
        self.settings = settings
        self.all_velocities = arrays["velocities"]
        self.kept = arrays["kept"]
        self.terminated = arrays["terminated"]
        self.lcp_solves = arrays["lcp_solves"]
        self.sample_status = arrays["status"]
        self.residual = arrays["residual"]
        self.paths = paths
        self.metadata = dict(metadata)
        self.status, self.message = assess(self.kept, self.sample_status, settings)
        self._nearest = None

    @property
    def success(self):
        """False only when the set is empty (see :attr:`status`)."""
        return self.status != SetStatus.EMPTY

    @property
    def arrays(self):
        """The per-sample arrays by field name (:data:`reach.kernels.routh.SAMPLE_FIELDS`)."""
        return {"velocities": self.all_velocities, "kept": self.kept, "terminated": self.terminated,
                "lcp_solves": self.lcp_solves, "status": self.sample_status, "residual": self.residual}

    @classmethod
    def from_arrays(cls, problem, settings, arrays, paths, *, timing=None):
        """Build a result from the sampler's per-sample arrays and a {index: path} dict."""
        metadata = run_metadata(problem)
        metadata.update(timing or {})
        ordered = [paths[i] for i in sorted(paths)]
        return cls(problem, settings, {name: arrays[name] for name in SAMPLE_FIELDS}, ordered, metadata)

    # ------------------------------------------------------------------ views
    @property
    def velocities(self):
        """Post-impact velocities of the kept samples: shape (n_kept, nv)."""
        return self.all_velocities[self.kept]

    def __len__(self):
        return int(np.count_nonzero(self.kept))

    def contact_velocities(self, *, include_dropped=False):
        """Contact-frame velocities of the outcomes: shape (n, m, 1 + d) [normal, tangent(s)]."""
        V = self.all_velocities if include_dropped else self.velocities
        return self.problem.contact_velocities(V)

    def _points(self):
        cv = self.contact_velocities()
        return cv.reshape(cv.shape[0], -1)

    def _index(self):
        if isinstance(self._nearest, Future):
            self._nearest = self._nearest.result()
        if self._nearest is None:
            self._nearest = _build_index(self)
        return self._nearest

    def index_in_background(self):
        """Start building the nearest-neighbour index of the outcomes (a :class:`~reach.sampling.nearest.Forest`)
        on a thread of its own; the next distance query waits for it.

        Before a held-out search, so that the build runs while the search
        does (a 2^20-sample quadruped set's index took 1.05 s on one core as one tree).
        The index is the one a query would build: the same distances, bit for bit.
        """
        if self._nearest is None and len(self):
            pool = ThreadPoolExecutor(1)
            self._nearest = pool.submit(_build_index, self)
            pool.shutdown(wait=False)

    def _as_points(self, v):
        v = np.asarray(v, dtype=float)
        if v.shape[-1] != self.problem.nv:
            raise ValueError(f"`v` must have last dimension nv = {self.problem.nv}; got shape {v.shape}.")
        cv = self.problem.contact_velocities(v)
        return cv.reshape(cv.shape[:-2] + (-1,))

    def distance_to(self, v, *, workers=1):
        """Distance from velocity ``v`` (nv,) or many (k, nv) to the nearest outcome, in contact-velocity coordinates.

        ``workers``: threads that share the nearest-neighbour queries (-1:
        every core); each distance is exact, the same for any number.
        """
        if len(self) == 0:
            raise ValueError("the set is empty: no sample ended non-colliding.")
        return self._index().distances(self._as_points(v), workers=workers)

    def distance_beyond(self, v, floor, *, workers=1):
        """:meth:`distance_to` of each of ``v`` (k, nv) that lies at least ``floor`` from the set; ``-inf`` for
        the others (they lie nearer than ``floor``).

        A search for the farthest outcomes (:mod:`reach.sets.farthest`) needs
        the exact distance of those alone.  A point far from every outcome
        costs a kd-tree the most: it must rule out every cell its ball meets.
        So each point is first queried for a neighbour at most
        ``1 + APPROXIMATE_EPS`` times as far as the nearest (scipy's ``eps``),
        whose distance bounds the point's from above, and only the points whose
        bound reaches ``floor`` are queried exactly: the same distances, bit
        for bit, where they are at least ``floor``.  On the climb of a
        2^20-sample quadruped set (random choice), where all but 0.2-1.2 % of
        each round's children lie nearer than its parents, the queries took
        1.5-1.8 s instead of 10.1-10.4 s on two threads
        (``bench/climb-queries.log``).
        """
        points = np.atleast_2d(self._as_points(v))
        tree = self._index()
        bound = tree.upper_bounds(points, eps=APPROXIMATE_EPS, floor=floor, workers=workers)
        out = np.full(len(points), -np.inf)
        near = bound < floor
        if not near.all():
            out[~near] = tree.distances(points[~near], workers=workers)
        out[out < floor] = -np.inf  # what the bound let through but lies nearer: -inf, whatever the bound
        return out

    def contains(self, v, tol):
        """Whether ``v`` lies within ``tol`` (contact-velocity coordinates) of some outcome."""
        return self.distance_to(v) <= tol

    def hausdorff(self, other):
        """Hausdorff distance to another set of the same problem, in contact-velocity coordinates."""
        if other.problem.fingerprint() != self.problem.fingerprint():
            raise ValueError("`other` was computed for a different problem.")
        a, b = self._points(), other._points()
        return float(max(other._index().distances(a).max(initial=0.0), self._index().distances(b).max(initial=0.0)))

    def mirror(self, S):
        """The set doubled by a symmetry: every outcome ``v`` plus its image ``S @ v``.

        ``S`` (nv, nv) must map the pre-impact velocity to itself and preserve
        kinetic energy (``S^T M S = M``); scenarios with a mirror symmetry
        carry it as ``scenario.mirror``.  The paper doubled its samples so.
        """
        S = np.asarray(S, dtype=float)
        nv = self.problem.nv
        if S.shape != (nv, nv):
            raise ValueError(f"`S` must have shape ({nv}, {nv}); got {S.shape}.")
        scale = float(np.max(np.abs(self.problem.v)))
        if np.max(np.abs(S @ self.problem.v - self.problem.v)) > 1e-9 * scale:
            raise ValueError("`S` does not map the pre-impact velocity to itself: not a symmetry of this impact.")
        if np.max(np.abs(S.T @ self.problem.M @ S - self.problem.M)) > 1e-9 * np.max(np.abs(self.problem.M)):
            raise ValueError("`S` does not preserve kinetic energy (S^T M S != M).")
        arrays = self.arrays
        arrays = {name: np.concatenate([a, a @ S.T if name == "velocities" else a]) for name, a in arrays.items()}
        settings = self.settings.replace(n_samples=len(self.kept) * 2,
                                         keep_paths=min(2 * len(self.paths), 2 * len(self.kept)))
        return PostImpactSet(self.problem, settings, arrays, self.paths + [p @ S.T for p in self.paths],
                             dict(self.metadata, mirrored=True))

    def union(self, other):
        """The outcomes of two runs on the same problem as one set (e.g. uniform and extreme caps).

        The union's settings are this set's with the summed sample count; both
        runs' settings are listed in ``metadata["union_of"]``.
        """
        if other.problem.fingerprint() != self.problem.fingerprint():
            raise ValueError("`other` was computed for a different problem.")
        mine, theirs = self.arrays, other.arrays
        arrays = {name: np.concatenate([mine[name], theirs[name]]) for name in mine}
        n = len(self.kept) + len(other.kept)
        settings = self.settings.replace(n_samples=n, keep_paths=min(n, len(self.paths) + len(other.paths)))
        sources = self.metadata.get("union_of", [self.settings.as_dict()])
        sources = sources + other.metadata.get("union_of", [other.settings.as_dict()])
        return PostImpactSet(self.problem, settings, arrays, self.paths + other.paths,
                             dict(self.metadata, union=True, union_of=sources))

    # ------------------------------------------------------------------ reporting
    def summary(self, *, tol=None):
        """Per-contact outcome fractions and the paper's Table 3 columns.

        A contact *lifts off* if its normal velocity exceeds ``tol``, *slides*
        if it stays (``|normal|`` <= tol) with tangential speed above ``tol``, and
        *sticks* otherwise.  The fractions are over the samples, so they
        describe where the sampler put them, not how likely an outcome is:
        directed sampling (the default) spends three quarters of them in rounds
        at the set's edges and sparse parts.
        The set has no probabilities; for the paper's uniform-cap fractions use
        ``strategy="uniform", caps="uniform"``.  ``tol`` defaults to 1e-6 of the pre-impact
        contact-velocity scale.

        Times: ``time_per_sample`` and ``time_per_lcp`` are the run's wall clock
        over all workers (start-up included, as the paper's Table 3 counts it)
        divided by the samples and the LCP solves; ``kernel_time_per_sample`` is
        one core's time in the sampling kernels per sample (no start-up, no
        parallelism), the figure to compare machines and problems by.
        """
        cv = self.contact_velocities()
        scale = float(np.max(np.abs(self.problem.contact_velocities(self.problem.v))))
        tol = 1e-6 * scale if tol is None else float(tol)
        n = cv.shape[0]
        contacts = {}
        for i, name in enumerate(self.problem.contact_names):
            normal = cv[:, i, 0]
            tangential = np.linalg.norm(cv[:, i, 1:], axis=-1)
            lift = normal > tol
            slide = ~lift & (tangential > tol)
            contacts[name] = {
                "lift_off": float(np.mean(lift)) if n else float("nan"),
                "slide": float(np.mean(slide)) if n else float("nan"),
                "stick": float(np.mean(~lift & ~slide)) if n else float("nan"),
            }
        samples = int(self.all_velocities.shape[0])
        solves = int(self.lcp_solves.sum())
        wall = self.metadata.get("wall_seconds")
        kernel = self.metadata.get("kernel_seconds")
        return {
            "success": bool(self.success),
            "status": self.status.name,
            "message": self.message,
            "samples": samples,
            "kept": n,
            "terminated_fraction": float(np.mean(self.terminated)) if samples else float("nan"),
            "failed_samples": int(np.count_nonzero(self.sample_status)),
            "lcps_per_sample": solves / max(samples, 1),
            "time_per_sample": None if wall is None or not samples else wall / samples,
            "time_per_lcp": None if wall is None or solves == 0 else wall / solves,
            "kernel_time_per_sample": None if kernel is None or not samples else kernel / samples,
            "worst_residual": float(self.residual.max(initial=0.0)),
            "tolerance": tol,
            "contacts": contacts,
            "adaptive": self.metadata.get("adaptive"),
            "completeness": self.metadata.get("completeness"),
            "uniqueness": self.metadata.get("uniqueness"),
            "auto_choice": self.metadata.get("auto_choice"),
        }

    def __repr__(self):
        return (f"PostImpactSet({len(self)} of {self.all_velocities.shape[0]} samples kept, "
                f"status {self.status.name}, {self.problem!r})")

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Write the result to one ``.npz`` (arrays plus a JSON metadata member), atomically and durably.

        The file is written under a temporary name, fsynced and renamed into
        place: an interruption leaves the old file (or none), never a part.
        """
        path = Path(path)
        if path.suffix.lower() != ".npz":
            raise ValueError(f"`path` must end in .npz; got {str(path)!r}.")
        if path.is_dir():
            raise ValueError(f"`path` {str(path)!r} is a directory.")
        if not path.parent.is_dir():
            raise ValueError(f"`path` {str(path)!r}: the folder {str(path.parent)!r} does not exist.")
        meta = {"format_version": FORMAT_VERSION, "settings": self.settings.as_dict(), "metadata": self.metadata,
                "problem": self.problem.to_dict()}
        path_lengths = np.array([len(p) for p in self.paths], dtype=np.int64)
        flat_paths = np.concatenate(self.paths) if self.paths else np.zeros((0, self.problem.nv))
        arrays = {("all_velocities" if k == "velocities" else k): v for k, v in self.arrays.items()}

        def write(fh):
            np.savez_compressed(fh, **arrays, path_lengths=path_lengths, paths=flat_paths,
                                meta=np.array(json.dumps(meta)))

        try:
            return atomic_write(path, write)
        except OSError as exc:
            raise ValueError(f"`path` {str(path)!r} cannot be written: {exc.strerror or exc}.") from None

    @classmethod
    def load(cls, path):
        """Read a result written by :meth:`save`; a damaged or inconsistent file is a ValueError."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"`path` {str(path)!r} is not a file.")
        try:
            data = read_npz(path)
            meta = json.loads(str(data["meta"]))
            version = meta.get("format_version") if isinstance(meta, dict) else None
            if version != FORMAT_VERSION:
                raise ValueError(f"format version {version}, expected {FORMAT_VERSION}")
            settings = SamplingSettings.from_dict(meta["settings"])
            p = meta["problem"]
            problem = ImpactProblem(p["M"], p["Jn"], p["Jt"], p["mu"], p["v"],
                                    friction_directions=p["friction_directions"],
                                    contact_names=p["contact_names"])
            arrays = {name: data["all_velocities" if name == "velocities" else name] for name in SAMPLE_FIELDS}
            lengths, flat = data["path_lengths"], data["paths"]
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            raise ValueError(f"`path` {str(path)!r} is not a reach result file ({type(exc).__name__}: "
                             f"{exc}).") from None
        _check_loaded(path, problem, settings, arrays, lengths, flat)
        bounds = np.cumsum(np.concatenate([[0], lengths]))
        paths = [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        return cls(problem, settings, arrays, paths, meta.get("metadata") or {})


def _check_loaded(path, problem, settings, arrays, lengths, flat):
    """Shapes, dtypes and path bookkeeping of a loaded result agree with each other and the problem."""
    n, nv = settings.n_samples, problem.nv
    for name, (dtype, per_v) in SAMPLE_FIELDS.items():
        a = arrays[name]
        shape = (n, nv) if per_v else (n,)
        if a.shape != shape or a.dtype != dtype:
            raise ValueError(f"`path` {str(path)!r} is inconsistent: `{name}` has shape {a.shape} and dtype "
                             f"{a.dtype}, expected {shape} and {np.dtype(dtype)}.")
    if not np.all(np.isfinite(arrays["velocities"][arrays["kept"]])):
        raise ValueError(f"`path` {str(path)!r} is inconsistent: kept velocities are not finite.")
    if (lengths.ndim != 1 or lengths.dtype.kind not in "iu" or np.any(lengths < 1) or len(lengths) > n
            or flat.ndim != 2 or flat.shape[1] != nv or int(lengths.sum()) != flat.shape[0]):
        raise ValueError(f"`path` {str(path)!r} is inconsistent: the stored paths do not add up "
                         f"({int(lengths.sum()) if lengths.size else 0} rows listed, {flat.shape[0]} stored).")


def run_metadata(problem):
    """Versions, machine and problem identity recorded with every result."""
    import numba
    import scipy

    return {
        "problem_fingerprint": problem.fingerprint(),
        "reach_version": __version__,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "numba_version": numba.__version__,
        "python_version": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }


def _build_index(result):
    from reach.sampling.nearest import Forest

    return Forest(result._points())
