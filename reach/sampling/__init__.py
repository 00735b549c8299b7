"""The sampling engine (paper Algorithm 2): what runs, in which order, and where.

* :mod:`reach.sampling.settings`: :class:`~reach.sampling.settings.SamplingSettings`, a run's validated settings;
* :mod:`reach.sampling.plan`: a run's phases and chunks for a worker count (:func:`~reach.sampling.plan.plan_run`);
* :mod:`reach.sampling.engine`: runs a plan's chunks and gathers the per-sample arrays (:func:`~reach.sampling.engine.run_engine`);
* :mod:`reach.sampling.executors`: where the chunks run, behind one small interface (serial, a local process
  pool, threads, Dask, a GPU, a GPU beside local processes), :mod:`reach.sampling.workers`, the pool and the
  ``n_jobs="auto"`` choice, and :mod:`reach.sampling.sharing`, how a GPU and processes share a phase;
* :mod:`reach.sampling.caps`, :mod:`reach.sampling.directed`, :mod:`reach.sampling.choice`: a sample's caps, the
  directed rounds' children, and which LCP solution a step takes;
* :mod:`reach.sampling.checkpoint`: one file per finished chunk, for resume;
* :mod:`reach.sampling.nearest`: the kd-tree every part of reach builds.

It imports :mod:`reach.problem` and :mod:`reach.kernels`; sets, their completeness and the public entry points
are above it, in :mod:`reach.sets`.
"""
