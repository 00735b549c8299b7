#!/usr/bin/env bash
# The device checks of issues 39 and 40, as one command for a machine with a GPU and 16 cores
# (the `device` tool runs it on a copy of the checkout: no install, numba-cuda already there).
#   bash bench/device.sh          # writes $OUT/gpu.json, $OUT/parallel.json, $OUT/log and $OUT/warm.log
# Each part has its own time limit, so that a slow one still leaves the other's numbers.
set -uo pipefail
OUT=${OUT:-results/device}
mkdir -p "$OUT"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
warm() {  # compile (and cache on disk) the CPU kernels that both benches use, while the GPU compiles its own
  python3 -W ignore -c '
import time, scenarios
from reach import sample_post_impact_set
from reach.examples import quadruped_touchdown
t = time.perf_counter()
g = scenarios.get("compass-gait")
for p, h, N in ((g.problem, g.h, g.N), (quadruped_touchdown(), 1.0, 10)):
    sample_post_impact_set(p, 512, h, N, n_jobs=1, completeness=False)
    sample_post_impact_set(p, 512, h, N, n_jobs=1, completeness=False, strategy="uniform",
                           solution_choice="random", keep_paths=0)
print(f"CPU kernels compiled in {time.perf_counter() - t:.0f} s")'
}
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import os, numba, numpy; print("numba", numba.__version__, "numpy", numpy.__version__, "cores", os.cpu_count())'
  warm > "$OUT/warm.log" 2>&1 &
  timeout 320 python3 -W ignore::RuntimeWarning -c 'import sys; from reach.tools.cli import main; sys.exit(main(sys.argv[1:]))' \
    bench --gpu --json "$OUT/gpu.json" || echo "reach bench --gpu ended with $?"
  wait
  cat "$OUT/warm.log"
  date -u
  timeout 140 python3 -W ignore -c 'import sys; from reach.tools.cli import main; sys.exit(main(sys.argv[1:]))' bench --parallel --json "$OUT/parallel.json" || echo "reach bench --parallel ended with $?"
  date -u
} 2>&1 | tee "$OUT/log"
