"""How a sampling run is laid out and where its work runs: the run plan (:mod:`reach.sampling.plan`)."""
