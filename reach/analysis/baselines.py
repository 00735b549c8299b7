"""The baseline resolutions drawn with a set: simultaneous outcomes and sequential paths (paper §2.2.2)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reach import laws

__all__ = ["Baselines"]


@dataclass
class Baselines:
    """The baseline resolutions drawn with a set (paper section 2.2.2).

    Attributes
    ----------
    simultaneous : ndarray, shape (k, nv)
        Every distinct Anitescu-Potra outcome (:func:`reach.laws.simultaneous`).
    sequential : dict of str -> ndarray (k + 1, nv)
        Sequential resolution paths keyed by the first contact's name.
    stepper : ndarray, shape (k, nv)
        Outcomes of a time-stepper (:mod:`reach.analysis.landing`), if given.
    stepper_label : str
        Their legend label.
    propagative : ndarray, shape (k, nv)
        Outcomes of Seghete & Murphey's propagative law (:mod:`reach.laws.propagative`), if given.
    propagative_label : str
    """

    simultaneous: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    sequential: dict = field(default_factory=dict)
    stepper: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    stepper_label: str = "time-stepper"
    propagative: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    propagative_label: str = "propagative (Seghete-Murphey)"

    @classmethod
    def compute(cls, problem, *, sequential="auto", simultaneous=True):
        """Compute the baselines of ``problem``.

        Parameters
        ----------
        sequential : "auto", sequence of contact names/indices, or None
            Starting contacts of the sequential resolutions.  ``"auto"``
            means every contact when ``m <= 2`` (the paper's A-first and
            B-first) and none otherwise (the paper shows none for the disk
            stack, where cycling sequential impacts do not terminate).
        simultaneous : bool
        """
        sim = laws.simultaneous(problem) if simultaneous else np.zeros((0, problem.nv))
        if sequential == "auto":
            sequential = list(range(problem.m)) if problem.m <= 2 else []
        seq = {}
        for first in sequential or []:
            res = laws.sequential(problem, first)
            name = first if isinstance(first, str) else problem.contact_names[int(first)]
            seq[name] = res.path
        return cls(np.asarray(sim, dtype=float), seq)
