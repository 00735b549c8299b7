"""How a sampling run is laid out and where its work runs.

* :mod:`reach.sampling.plan`: a run's phases and chunks for a worker count (:func:`~reach.sampling.plan.plan_run`);
* :mod:`reach.sampling.executors`: where the chunks run, behind one small interface (serial, a local process
  pool, threads, Dask).
"""
