"""Sets of states through many impacts: flow, impact, sample the set, thin it, flow each state on.

:func:`propagate` starts from one state and, for K impacts:

1. flows every carried state to its next impact (:func:`reach.analysis.flow.flow`,
   the impact located by event detection);
2. builds that impact's :class:`~reach.problem.impact.ImpactProblem` (the stance
   contacts and the ones that hit) and samples its post-impact set with a
   budget of samples (or applies a single-outcome ``law`` instead);
3. pools the outcomes of every branch and carries forward a covering subset
   of them: greedy farthest-point selection in the scaled state metric
   ``max(|dq|_inf / resolution_q, |dv|_inf / resolution)`` until every pooled
   state lies within 1 of a carried one, or ``max_branches`` are carried.

The result, a :class:`Propagation`, holds every impact's outcomes (the set of
states there), which ones were carried, and the lineage of each: the sample
index and caps of every impact on its path, so :meth:`Propagation.replay`
reproduces any carried state bit for bit.  Seeds are derived per (impact,
branch), and the sampler is bit-identical for any number of workers, so the
same seed gives the same propagation.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from reach import sample_post_impact_set
from reach.analysis.flow import flow, stance_from_velocity
from reach.sampling.choice import resolve_choice
from reach.sampling.executors import make_executor
from reach.sets.run import run_sampling
from reach.sets.witness import replay_sample, witness_caps

#: The caps of a lineage step that was not recorded (a set's sample replayed by sampling again).
UNKNOWN_CAPS = "unknown"
#: Stance tolerance (m/s) of the initial state: a touching contact slower than this is in stance.
INITIAL_TOL = 1e-9


def auto_h(problem):
    """A Routh step h for ``problem``: a quarter of ``2 T / |vn|_max`` (see :meth:`PropagationSettings.h_of`)."""
    closing = float(np.max(-problem.normal_velocities(problem.v)))
    return float(0.25 * 2.0 * problem.kinetic_energy(problem.v) / closing)


def stance_tol(problem):
    """Stance tolerance after an impact: 1e-6 of its fastest pre-impact normal speed."""
    return 1e-6 * float(np.max(np.abs(problem.normal_velocities(problem.v))))


__all__ = ["MAX_IMPACTS", "MAX_BRANCHES", "propagate", "auto_h", "Propagation", "ImpactSet", "PropagationSettings",
           "cover", "carry", "sampling_options", "open_checkpoint", "CheckpointError", "impact_problem",
           "save_propagation", "load_propagation", "UNKNOWN_CAPS", "FORMAT"]

#: The ``format`` entry of a file :func:`save_propagation` writes (:func:`load_propagation` reads no other).
FORMAT = "reach-propagation-1"

#: Most impacts a propagation follows.
MAX_IMPACTS = 1000
#: Most states carried from one impact to the next.
MAX_BRANCHES = 4096


@dataclass(frozen=True)
class PropagationSettings:
    """How a propagation samples, thins and flows (see :func:`propagate`)."""

    impacts: int
    budget: int = 2 ** 9
    h: float | None = None
    max_steps: int = 20
    seed: int = 0
    resolution: float = 0.01
    resolution_q: float = 1e-3
    max_branches: int = 16
    t_max: float = 5.0
    law: str = "set"
    completeness: bool = True

    def __post_init__(self):
        if int(self.impacts) != self.impacts or not 1 <= self.impacts <= MAX_IMPACTS:
            raise ValueError(f"`impacts` must be an integer in [1, {MAX_IMPACTS}]; got {self.impacts!r}.")
        if int(self.max_branches) != self.max_branches or not 1 <= self.max_branches <= MAX_BRANCHES:
            raise ValueError(f"`max_branches` must be an integer in [1, {MAX_BRANCHES}]; got {self.max_branches!r}.")
        for name in ("h", "resolution", "resolution_q", "t_max"):
            value = getattr(self, name)
            if value is None and name == "h":
                continue
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"`{name}` must be finite and > 0; got {value!r}.")

    def h_of(self, problem):
        """The Routh step h of an impact: as set, or a quarter of ``2 T / |vn|_max``.

        ``2 T / |vn|_max`` (kinetic energy T) is the normal impulse that would
        dissipate all of T at the fastest closing speed, an upper scale of the
        impulses an impact needs; with N = 20 steps the caps reach five times it.
        """
        return float(self.h) if self.h is not None else auto_h(problem)

    def seed_of(self, impact, branch):
        """The sampling seed of one impact of one branch."""
        return (int(self.seed) * 1_000_003 + 7919 * int(impact) + int(branch)) % (2 ** 62)


@dataclass
class ImpactSet:
    """The states at one impact: where each branch hit, and every outcome.

    Attributes
    ----------
    index : int
        Impact number (1-based).
    parents : ndarray (b,)
        For each branch here, the carried state of the previous impact it
        flowed from (-1 for the initial state).
    t, q, v_pre : ndarray (b,), (b, nq), (b, nv)
        Where and how each branch hit.
    contacts : list of tuple of str
        The contacts of each branch's impact problem.
    branch, sample : ndarray (n,)
        Each outcome's branch and its sample index in that branch's set.
    v : ndarray (n, nv)
        Post-impact velocities.
    carried : ndarray of int
        Indices of the outcomes carried on to the next impact.
    radius : float
        Covering radius of the carried states over all outcomes, in units of
        the resolution (<= 1 when the resolution was met).
    caps : dict of int -> ndarray or None
        Replay caps of each carried outcome (None: drawn from seed and index).
    ended : list of (int, str)
        Carried states of the previous impact that never reached this one, with why.
    completeness : list of dict or None
        Each branch's completeness estimate (:func:`reach.sets.completeness.estimate_completeness`:
        ``outside_2pct``, ``max_fraction``, ... of ``|vn0|``), None where none was made (a law, or
        ``completeness=False``).
    """

    index: int
    parents: np.ndarray
    t: np.ndarray
    q: np.ndarray
    v_pre: np.ndarray
    contacts: list
    branch: np.ndarray
    sample: np.ndarray
    v: np.ndarray
    carried: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    radius: float = 0.0
    caps: dict = field(default_factory=dict)
    ended: list = field(default_factory=list)
    completeness: list = field(default_factory=list)

    def missed(self):
        """The largest of the branches' estimates, ``{"outside_2pct": ..., "max_fraction": ...}``, or None."""
        known = [c for c in self.completeness if c]
        if not known:
            return None
        return {key: max(float(c[key]) for c in known) for key in ("outside_2pct", "max_fraction")}

    def states(self):
        """Post-impact states ``(t, q, v)`` of every outcome (n,), (n, nq), (n, nv)."""
        return self.t[self.branch], self.q[self.branch], self.v


def cover(points, radius_cells, max_points):
    """Greedy farthest-point selection: indices whose ``radius_cells``-balls (inf-norm) cover ``points``.

    Stops when the farthest point is within 1 cell, or at ``max_points``.
    Returns ``(indices, covering radius)``.
    """
    points = np.asarray(points, dtype=float) / radius_cells
    chosen = [0]
    dist = np.max(np.abs(points - points[0]), axis=1)
    while len(chosen) < max_points and dist.max() > 1.0:
        j = int(np.argmax(dist))
        chosen.append(j)
        dist = np.minimum(dist, np.max(np.abs(points - points[j]), axis=1))
    return np.array(chosen), float(dist.max())


class Propagation:
    """The impacts of a propagation (see the module docstring)."""

    def __init__(self, system, q0, v0, settings, impacts, guard=None):
        self.system, self.q0, self.v0 = system, np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
        self.settings, self.impacts, self.guard = settings, impacts, guard

    def lineage(self, k, j):
        """``[(impact, branch, sample, caps), ...]`` from the first impact to outcome j of impact k."""
        chain = []
        while k >= 1:
            record = self.impacts[k - 1]
            b = int(record.branch[j])
            chain.append((k, b, int(record.sample[j]), record.caps.get(int(j), UNKNOWN_CAPS)))
            parent = int(record.parents[b])
            if parent < 0:
                break
            j, k = int(self.impacts[k - 2].carried[parent]), k - 1
        return chain[::-1]

    def replay(self, k, j):
        """Flow and impact again along the lineage of outcome j of impact k: its post-impact ``(t, q, v)``."""
        if not 1 <= k <= len(self.impacts) or not 0 <= j < len(self.impacts[k - 1].v):
            raise ValueError(f"no outcome {j} at impact {k}.")
        t, q, v, tol = 0.0, self.q0, self.v0, INITIAL_TOL
        for impact, branch, sample, caps in self.lineage(k, j):
            stance = stance_from_velocity(self.system, q, v, tol=tol)
            ended = flow(self.system, t, q, v, stance, t_max=t + self.settings.t_max, guard=self.guard)
            problem = impact_problem(self.system, ended)
            settings = self._sampling(impact, branch, problem)
            t, q, tol = ended.t, ended.q, stance_tol(problem)
            if getattr(self, "law", None) is not None:
                v = np.atleast_2d(np.asarray(self.law(problem), dtype=float))[sample]
            else:
                if isinstance(caps, str):  # not carried: sample its set again (same seed, same set) for its caps
                    caps = witness_caps(run_sampling(problem, settings, warn=False, keep_caps=True), sample)
                v = replay_sample(problem, settings, sample, caps)[0]
        return t, q, v

    def contact_state(self, k, b, v):
        """``(names, contact velocities (p, 2), touching (p,))`` of velocity v at branch b of impact k."""
        record = self.impacts[k - 1]
        geometry = self.system.contacts(record.q[b])
        cv = np.column_stack([geometry.Jn @ v, geometry.Jt[:, 0] @ v])
        return geometry.names, cv, np.array([name in record.contacts[b] for name in geometry.names])

    def _sampling(self, impact, branch, problem):
        from reach.sampling.settings import SamplingSettings
        s = self.settings
        h = s.h_of(problem)
        return SamplingSettings(n_samples=s.budget, h=h, max_steps=s.max_steps, seed=s.seed_of(impact, branch),
                                solution_choice=resolve_choice(problem, "auto", h, s.max_steps), keep_paths=0)

    def __repr__(self):
        sizes = [len(r.v) for r in self.impacts]
        return f"Propagation({len(self.impacts)} impacts, outcomes per impact {sizes})"


def impact_problem(system, ended):
    """The impact problem where a flow ended on an impact: its stance contacts and those that hit."""
    names = system.contact_names
    chosen = sorted(set(ended.stance) | set(ended.impacting))
    mu = system.mu[chosen]
    return system.model.impact_problem(ended.q, ended.v, mu, contacts=[names[c] for c in chosen],
                                       check_active=False)


def _impact(settings, law, k, b, problem, where):
    """Outcomes of one branch's impact: ``(velocities, sample indices, the sampled set or None)``."""
    import warnings

    if law is not None:
        V = np.atleast_2d(np.asarray(law(problem), dtype=float))
        return V, np.arange(len(V)), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a thin set is reported by the propagation itself
        result = sample_post_impact_set(problem, settings.budget, settings.h_of(problem), settings.max_steps,
                                        seed=settings.seed_of(k, b), completeness=settings.completeness,
                                        keep_caps=True, **where)
    index = np.flatnonzero(result.kept)
    return result.all_velocities[index], index, result


def _flow_branches(system, settings, carried, guard):
    """Flow every carried state to its next impact: (branches that hit, ended states)."""
    hits, ended = [], []
    for p, (t, q, v, tol) in enumerate(carried):
        stance = stance_from_velocity(system, q, v, tol=tol)
        res = flow(system, t, q, v, stance, t_max=t + settings.t_max, guard=guard)
        if res.kind == "impact":
            hits.append((p, res))
        else:
            ended.append((p, res.kind))
    return hits, ended


def propagate(system, q0, v0, *, settings=None, law=None, guard=None, n_jobs=1, executor=None, progress=False,
              checkpoint=None, resume=False, **fields):
    """The sets of states at K successive impacts from ``(q0, v0)`` (see the module docstring).

    Parameters
    ----------
    system : PlanarDynamics
        The system, with its controller as its applied force.
    q0, v0 : array_like
        The initial state (a state just after an impact, or any state in flight).
    settings : PropagationSettings, optional
        How to sample, thin and flow; any of its fields given by name
        (``**fields``: ``impacts=4, budget=512, ...``) overrides it.  ``impacts``
        is required one way or the other.
    impacts : int
        K.
    budget, h, max_steps : int, float, int
        Samples per branch per impact, and the Routh step size and length (h
        default: :meth:`PropagationSettings.h_of`).
    resolution, resolution_q : float
        Thinning scales of velocities (m/s or rad/s) and configurations.
    max_branches : int
        Most states carried from one impact to the next.
    completeness : bool
        Estimate how complete every impact's set is (the held-out search of
        :mod:`reach.sets.completeness`, 1/8 more samples; default True), so
        that a robustness check that finds nothing says how much it could
        have missed (:func:`reach.analysis.robust.check`).
    law : callable, optional
        ``law(problem) -> (k, nv)`` outcomes instead of the sampled set (e.g.
        a classical single-outcome impact law).
    guard : callable, optional
        ``guard(q, v, name)``: whether a contact reaching the ground is an impact (see :func:`flow`).
    n_jobs : int
        Sampler workers; the result does not depend on it.
    executor : reach.sampling.executors.Executor or str, optional
        Where each impact's samples run, instead of ``n_jobs`` local workers:
        an executor, or a backend's name (``"cuda"``: this machine's GPU).
    checkpoint : str or Path, optional
        Save the propagation here after every impact (atomically); with
        ``resume=True`` continue from it (it must come from the same start and
        settings), giving the same result as an uninterrupted run.

    Returns
    -------
    Propagation
    """
    settings = _settings(settings, fields, law)
    where = sampling_options(n_jobs, executor)
    out = Propagation(system, q0, v0, settings, [], guard=guard)
    out.law = law
    carried = [(0.0, out.q0, out.v0, INITIAL_TOL)]
    if checkpoint is not None and open_checkpoint(out, checkpoint, resume, law=out.law, guard=out.guard):
        carried = _carried(system, out.impacts[-1])
    from tqdm.auto import tqdm
    for k in tqdm(range(len(out.impacts) + 1, settings.impacts + 1), disable=not progress, desc="impacts",
                  unit="impact", leave=False):
        hits, ended = _flow_branches(system, settings, carried, guard)
        if not hits:
            out.ended = ended
            break
        rows, sets = [], []
        for parent, res in hits:
            problem = impact_problem(system, res)
            V, index, result = _impact(settings, law, k, len(rows), problem, where)
            if len(V) == 0:
                ended.append((parent, "empty set"))  # no sample ended non-colliding: said, never dropped silently
                continue
            rows.append((parent, res, problem, V, index))
            sets.append(result)
        if not rows:
            out.ended = ended
            break
        record = _record(k, rows, ended)
        record.completeness = [None if s is None else s.metadata.get("completeness") for s in sets]
        carry(record, settings, sets)
        out.impacts.append(record)
        carried = _carried(system, record)
        if checkpoint is not None:
            save_propagation(out, checkpoint, meta={"checkpoint": True})
    return out


def sampling_options(n_jobs, executor):
    """How every impact's set is sampled: ``n_jobs`` local workers, or ``executor`` (a backend's name such as
    ``"cuda"`` is made into one executor here, once, so that a GPU's kernels serve every impact)."""
    if executor is None:
        return {"n_jobs": n_jobs}
    return {"executor": make_executor(backend=executor) if isinstance(executor, str) else executor}


def carry(record, settings, sets):
    """Choose the outcomes of ``record`` carried to the next impact (a cover at the settings' resolution) and
    keep their replay caps (``sets``: each branch's sampled set, or None under a law)."""
    states = np.hstack([record.q[record.branch] / settings.resolution_q, record.v / settings.resolution])
    record.carried, record.radius = cover(states, 1.0, settings.max_branches)
    for j in record.carried:
        b, sample = int(record.branch[j]), int(record.sample[j])
        record.caps[int(j)] = None if sets[b] is None else witness_caps(sets[b], sample)


def _carried(system, record):
    """The states carried on from an impact: ``(t, q, v, stance tolerance)``."""
    tols = []
    for b, q in enumerate(record.q):
        geometry = system.contacts(q)
        rows = [geometry.names.index(name) for name in record.contacts[b]]
        tols.append(1e-6 * float(np.max(np.abs(geometry.Jn[rows] @ record.v_pre[b]))))
    return [(record.t[record.branch[j]], record.q[record.branch[j]], record.v[j], tols[record.branch[j]])
            for j in record.carried]


def _settings(settings, fields, law):
    """:func:`propagate`'s settings: ``settings`` (or the defaults) with ``fields`` over it; unknown names refused."""
    names = {f.name for f in dataclasses.fields(PropagationSettings)} - {"law"}
    unknown = sorted(set(fields) - names)
    if unknown:
        raise TypeError(f"propagate() got unknown settings {unknown}; PropagationSettings has {sorted(names)}.")
    base = {} if settings is None else {k: getattr(settings, k) for k in names}
    chosen = {**base, **fields}
    if "impacts" not in chosen:
        raise TypeError("propagate() needs `impacts` (or a `settings` with them).")
    return PropagationSettings(**chosen, law="set" if law is None else getattr(law, "__name__", "law"))


class CheckpointError(ValueError):
    """A propagation's checkpoint that cannot be used: one exists and would be overwritten, or it belongs to
    another run."""


def open_checkpoint(out, checkpoint, resume, **load):
    """Restore ``out.impacts`` from ``checkpoint`` when resuming (True if any were), or make sure a fresh run
    will not overwrite one.  ``load``: :func:`load_propagation`'s options for ``out.system``."""
    from pathlib import Path

    path = Path(checkpoint)
    if not resume:
        if path.exists():
            raise CheckpointError(f"checkpoint {str(path)!r} exists; pass resume=True to continue it, or remove it.")
        return False
    if not path.exists():
        return False
    loaded, _ = load_propagation(path, out.system, **load)
    if loaded.settings != out.settings or not (np.array_equal(loaded.q0, out.q0) and np.array_equal(loaded.v0, out.v0)):
        raise CheckpointError(f"checkpoint {str(path)!r} was written by a propagation with another start or settings.")
    out.impacts = loaded.impacts
    return bool(out.impacts)


def _record(k, rows, ended):
    parents = np.array([p for p, *_ in rows])
    branch = np.concatenate([np.full(len(V), b) for b, (*_, V, _) in enumerate(rows)])
    return ImpactSet(index=k, parents=parents, t=np.array([res.t for _, res, *_ in rows]),
                     q=np.array([res.q for _, res, *_ in rows]), v_pre=np.array([res.v for _, res, *_ in rows]),
                     contacts=[tuple(pr.contact_names) for _, _, pr, *_ in rows], branch=branch,
                     sample=np.concatenate([index for *_, index in rows]),
                     v=np.vstack([V for *_, V, _ in rows]), ended=list(ended))


def save_propagation(propagation, path, *, meta=None):
    """Write a propagation to ``path`` (.npz): settings, initial state, every impact's arrays, carried caps."""
    import json

    from reach.files import atomic_write

    arrays = {"q0": propagation.q0, "v0": propagation.v0,
              "settings": np.array(json.dumps(propagation.settings.__dict__)),
              "meta": np.array(json.dumps(meta or {})), "format": np.array(FORMAT)}
    for r in propagation.impacts:
        p = f"impact{r.index}_"
        for name in ("parents", "t", "q", "v_pre", "branch", "sample", "v", "carried"):
            arrays[p + name] = getattr(r, name)
        arrays[p + "radius"] = np.array(r.radius)
        arrays[p + "contacts"] = np.array(json.dumps([list(c) for c in r.contacts]))
        arrays[p + "ended"] = np.array(json.dumps(r.ended))
        arrays[p + "completeness"] = np.array(json.dumps(r.completeness))
        for j, caps in r.caps.items():
            if caps is not None:
                arrays[f"{p}caps{j}"] = caps
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))
    return path


def load_propagation(path, system, *, law=None, guard=None):
    """Read a propagation saved by :func:`save_propagation`; ``(propagation, meta)``."""
    import json

    from reach.files import read_npz

    data = read_npz(path)
    if str(data.get("format", "")) != FORMAT:
        raise ValueError(f"{str(path)!r} is not a reach propagation.")
    settings = PropagationSettings(**json.loads(str(data["settings"])))
    impacts, k = [], 1
    while f"impact{k}_t" in data:
        p = f"impact{k}_"
        record = ImpactSet(index=k, contacts=[tuple(c) for c in json.loads(str(data[p + "contacts"]))],
                           ended=[tuple(e) for e in json.loads(str(data[p + "ended"]))],
                           radius=float(data[p + "radius"]),
                           completeness=json.loads(str(data.get(p + "completeness", "[]"))),
                           **{name: data[p + name] for name in ("parents", "t", "q", "v_pre", "branch", "sample",
                                                                "v", "carried")})
        record.caps = {int(j): data.get(f"{p}caps{int(j)}") for j in record.carried}
        impacts.append(record)
        k += 1
    out = Propagation(system, data["q0"], data["v0"], settings, impacts, guard=guard)
    out.law = law
    return out, json.loads(str(data["meta"]))
