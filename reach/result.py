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
from pathlib import Path

import numpy as np

from reach.problem import ImpactProblem

__all__ = ["PostImpactSet"]

FORMAT_VERSION = 1


class PostImpactSet:
    """Outcomes of :func:`reach.sample_post_impact_set`.

    Attributes
    ----------
    problem : ImpactProblem
    settings : dict
        The sampling settings (n_samples, h, max_steps, eps, seed, sequence, ...).
    all_velocities : ndarray, shape (n_samples, nv)
        Final velocity of every sample (kept or not).
    kept : ndarray of bool, shape (n_samples,)
        Whether the sample is non-colliding after the closing step (in the set).
    terminated : ndarray of bool, shape (n_samples,)
        Whether Algorithm 1 ended non-colliding within N steps.
    lcp_solves : ndarray of int, shape (n_samples,)
        LCP solves per sample (closing step included).
    status : ndarray of int, shape (n_samples,)
        0 ok; 1 an LCP solve failed (the sample is not kept).
    residual : ndarray, shape (n_samples,)
        Worst relative complementarity residual over the sample's steps.
    paths : list of ndarray, each (steps + 1, nv)
        Velocity paths of the first ``settings['keep_paths']`` samples.
    metadata : dict
        Run information (timing, versions, problem fingerprint).
    """

    def __init__(self, problem, settings, all_velocities, kept, terminated, lcp_solves, status,
                 residual, paths, metadata):
        self.problem = problem
        self.settings = dict(settings)
        self.all_velocities = all_velocities
        self.kept = kept
        self.terminated = terminated
        self.lcp_solves = lcp_solves
        self.status = status
        self.residual = residual
        self.paths = paths
        self.metadata = dict(metadata)

    @classmethod
    def from_arrays(cls, problem, settings, arrays, paths, *, timing=None):
        """Build a result from the sampler's per-sample arrays and a {index: path} dict."""
        metadata = run_metadata(problem)
        metadata.update(timing or {})
        ordered = [paths[i] for i in sorted(paths)]
        return cls(problem, settings.as_dict(), arrays["velocities"], arrays["kept"], arrays["terminated"],
                   arrays["lcp_solves"], arrays["status"], arrays["residual"], ordered, metadata)

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

    def _tree(self):
        if getattr(self, "_kdtree", None) is None:
            from scipy.spatial import cKDTree

            self._kdtree = cKDTree(self._points())
        return self._kdtree

    def _as_points(self, v):
        v = np.asarray(v, dtype=float)
        if v.shape[-1] != self.problem.nv:
            raise ValueError(f"`v` must have last dimension nv = {self.problem.nv}; got shape {v.shape}.")
        cv = self.problem.contact_velocities(v)
        return cv.reshape(cv.shape[:-2] + (-1,))

    def distance_to(self, v):
        """Distance from velocity ``v`` (nv,) or many (k, nv) to the nearest outcome, in contact-velocity coordinates."""
        if len(self) == 0:
            raise ValueError("the set is empty: no sample ended non-colliding.")
        dist, _ = self._tree().query(self._as_points(v))
        return dist

    def contains(self, v, tol):
        """Whether ``v`` lies within ``tol`` (contact-velocity coordinates) of some outcome."""
        return self.distance_to(v) <= tol

    def hausdorff(self, other):
        """Hausdorff distance to another set of the same problem, in contact-velocity coordinates."""
        if other.problem.fingerprint() != self.problem.fingerprint():
            raise ValueError("`other` was computed for a different problem.")
        a, b = self._points(), other._points()
        return float(max(other._tree().query(a)[0].max(initial=0.0), self._tree().query(b)[0].max(initial=0.0)))

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
        twice = lambda a: np.concatenate([a, a])  # noqa: E731
        metadata = dict(self.metadata, mirrored=True)
        settings = dict(self.settings, n_samples=2 * self.all_velocities.shape[0])
        return PostImpactSet(self.problem, settings,
                             np.concatenate([self.all_velocities, self.all_velocities @ S.T]),
                             twice(self.kept), twice(self.terminated), twice(self.lcp_solves),
                             twice(self.status), twice(self.residual),
                             self.paths + [p @ S.T for p in self.paths], metadata)

    def union(self, other):
        """The outcomes of two runs on the same problem as one set (e.g. uniform and extreme caps)."""
        if other.problem.fingerprint() != self.problem.fingerprint():
            raise ValueError("`other` was computed for a different problem.")
        cat = lambda a, b: np.concatenate([a, b])  # noqa: E731
        settings = dict(self.settings, n_samples=self.all_velocities.shape[0] + other.all_velocities.shape[0],
                        union_of=[self.settings, other.settings])
        return PostImpactSet(self.problem, settings, cat(self.all_velocities, other.all_velocities),
                             cat(self.kept, other.kept), cat(self.terminated, other.terminated),
                             cat(self.lcp_solves, other.lcp_solves), cat(self.status, other.status),
                             cat(self.residual, other.residual), self.paths + other.paths,
                             dict(self.metadata, union=True))

    # ------------------------------------------------------------------ reporting
    def summary(self, *, tol=None):
        """Per-contact outcome fractions and the paper's Table 3 columns.

        A contact *lifts off* if its normal velocity exceeds ``tol``, *slides*
        if it stays (|normal| <= tol) with tangential speed above ``tol``, and
        *sticks* otherwise.  ``tol`` defaults to 1e-6 of the pre-impact
        contact-velocity scale.
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
        return {
            "samples": samples,
            "kept": n,
            "terminated_fraction": float(np.mean(self.terminated)),
            "failed_samples": int(np.count_nonzero(self.status)),
            "lcps_per_sample": solves / samples,
            "time_per_sample": None if wall is None else wall / samples,
            "time_per_lcp": None if wall is None or solves == 0 else wall / solves,
            "worst_residual": float(self.residual.max(initial=0.0)),
            "tolerance": tol,
            "contacts": contacts,
            "adaptive": self.metadata.get("adaptive"),
        }

    def __repr__(self):
        return (f"PostImpactSet({len(self)} of {self.all_velocities.shape[0]} samples kept, "
                f"{self.problem!r})")

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Write the result to one ``.npz`` (arrays plus a JSON metadata member), atomically."""
        path = Path(path)
        if path.suffix.lower() != ".npz":
            raise ValueError(f"`path` must end in .npz; got {str(path)!r}.")
        meta = {"format_version": FORMAT_VERSION, "settings": self.settings, "metadata": self.metadata,
                "problem": self.problem.to_dict()}
        path_lengths = np.array([len(p) for p in self.paths], dtype=np.int64)
        flat_paths = np.concatenate(self.paths) if self.paths else np.zeros((0, self.problem.nv))
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, all_velocities=self.all_velocities, kept=self.kept,
                                terminated=self.terminated, lcp_solves=self.lcp_solves,
                                status=self.status, residual=self.residual, path_lengths=path_lengths,
                                paths=flat_paths, meta=np.array(json.dumps(meta)))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path):
        """Read a result written by :meth:`save`."""
        path = Path(path)
        if not path.exists():
            raise ValueError(f"`path` {str(path)!r} does not exist.")
        try:
            with np.load(path, allow_pickle=False) as npz:
                data = {key: npz[key] for key in npz.files}
            meta = json.loads(str(data["meta"]))
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"`path` {str(path)!r} is not a reach result file: {exc}") from None
        if meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"`path` {str(path)!r} has format version {meta.get('format_version')}, "
                             f"expected {FORMAT_VERSION}.")
        p = meta["problem"]
        problem = ImpactProblem(p["M"], p["Jn"], p["Jt"], p["mu"], p["v"],
                                friction_directions=p["friction_directions"],
                                contact_names=p["contact_names"])
        bounds = np.cumsum(np.concatenate([[0], data["path_lengths"]]))
        paths = [data["paths"][a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        return cls(problem, meta["settings"], data["all_velocities"], data["kept"], data["terminated"],
                   data["lcp_solves"], data["status"], data["residual"], paths, meta["metadata"])


def run_metadata(problem):
    """Versions, machine and problem identity recorded with every result."""
    import numba
    import scipy

    from reach import __version__

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
