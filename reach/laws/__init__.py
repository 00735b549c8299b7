"""Impact laws beside the set-valued Routh model: the baselines the paper plots against the set.

* :func:`simultaneous` — Anitescu & Potra (eq. 31-33), every distinct outcome;
* :func:`sequential` — one contact at a time, cycling from a chosen first contact;
* :func:`routh_single_contact` — Routh's classical single-contact impact;
* :func:`propagative` — Seghete & Murphey's propagative law, every reflection order;
* :func:`stewart_trinkle_step` — one step of Stewart & Trinkle's time-stepper (and
  :func:`simulate` in :mod:`reach.laws.trajectory`).

A new impact law goes here, as one module with its function and its docstring
math, and is re-exported below.
"""

from reach.laws.routh_single import routh_single_contact
from reach.laws.sequential import SequentialResult, sequential
from reach.laws.propagative import PropagativeResult, indeterminacy, plastic_projection, propagative
from reach.laws.simultaneous import anitescu_potra_lcp, simultaneous, velocity_from
from reach.laws.stewart_trinkle import SteppingSettings, stewart_trinkle_step
from reach.laws.trajectory import Trajectory, simulate

__all__ = ["simultaneous", "sequential", "SequentialResult", "routh_single_contact", "anitescu_potra_lcp",
           "velocity_from", "propagative", "PropagativeResult", "indeterminacy", "plastic_projection",
           "stewart_trinkle_step", "SteppingSettings", "simulate", "Trajectory"]
