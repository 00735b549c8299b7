"""Sets of post-impact outcomes: how one is built and how complete it is (:mod:`reach.sets.build`)."""
