"""Impact laws beside the set-valued Routh model: the baselines the paper plots against the set.

* :func:`simultaneous` — Anitescu & Potra (eq. 31-33), every distinct outcome;
* :func:`sequential` — one contact at a time, cycling from a chosen first contact;
* :func:`routh_single_contact` — Routh's classical single-contact impact.

A new impact law goes here, as one module with its function and its docstring
math, and is re-exported below.
"""

from reach.laws.routh_single import routh_single_contact
from reach.laws.sequential import SequentialResult, sequential
from reach.laws.simultaneous import anitescu_potra_lcp, simultaneous, velocity_from

__all__ = ["simultaneous", "sequential", "SequentialResult", "routh_single_contact", "anitescu_potra_lcp",
           "velocity_from"]
