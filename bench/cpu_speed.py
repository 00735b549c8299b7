"""One core's CPU seconds for uniform sets of three problems, as JSON: to compare two trees, alternately.

    git worktree add /tmp/old 3b71c9e
    for i in 1 2 3 4 5; do
      (cd /tmp/old && PYTHONPATH=/tmp/old python /path/to/bench/cpu_speed.py)
      PYTHONPATH=. python bench/cpu_speed.py
    done

(after one untimed run of each, which compiles).  Log: ``bench/cpu-speed.log``.
"""
import sys, time, json
import numpy as np
from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case
out = {}
for label, n in (("quadruped", 2**15), ("disk-stack", 2**16), ("rocking-block", 2**18)):
    p, h, N = problem_case(label)
    for strategy in ("uniform",):
        r = sample_post_impact_set(p, n, h, N, n_jobs=1, strategy=strategy, completeness=False, keep_paths=0)
        out[f"{label} {strategy}"] = r.metadata["cpu_seconds"]
print(json.dumps(out))
