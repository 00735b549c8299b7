"""Analyses built on the set: baselines to draw with it, step uniqueness, the Zeno block, comparisons.

* :mod:`.baselines` — the simultaneous and sequential resolutions a figure shows;
* :mod:`.uniqueness` — how often steps are non-unique (Assumption 6);
* :mod:`.zeno` — the Zeno rocking block of §4.3 (Fig. 8);
* :mod:`.compare` — the set against compliant contact, MuJoCo, and region checks.

Nothing here draws: the plots of these analyses live in :mod:`reach.plotting`.
"""
