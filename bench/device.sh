#!/usr/bin/env bash
# The device checks of issues 39 and 40, as one command for a machine with a GPU and 16 cores
# (the `device` tool runs it on a copy of the checkout: no install, numba-cuda already there).
#   bash bench/device.sh          # writes $OUT/gpu.json, $OUT/parallel.json and $OUT/log
set -uo pipefail
OUT=${OUT:-results/device}
mkdir -p "$OUT"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
reach() { python3 -c 'import sys; from reach.tools.cli import main; sys.exit(main(sys.argv[1:]))' "$@"; }
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import numba, numpy; print("numba", numba.__version__, "numpy", numpy.__version__)'
  reach bench --gpu --json "$OUT/gpu.json"
  reach bench --parallel --json "$OUT/parallel.json"
} 2>&1 | tee "$OUT/log"
