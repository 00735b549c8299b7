"""Sets of post-impact outcomes: the record, how one is built, and how complete it is.

* :mod:`reach.sets.result`: :class:`~reach.sets.result.PostImpactSet`, its queries and its files;
* :mod:`reach.sets.run`: one engine run made into a set;
* :mod:`reach.sets.completeness`: the held-out estimate of how much of the set is missing;
* :mod:`reach.sets.witness`: a sample's caps, to replay it alone;
* :mod:`reach.sets.rounds`: the checkpoint of a run in rounds;
* :mod:`reach.sets.build`: the entry points, :func:`~reach.sets.build.sample_post_impact_set`,
  :func:`~reach.sets.build.sample_to_coverage` and :func:`~reach.sets.build.sample_adaptive`.
"""
