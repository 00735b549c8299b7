#!/usr/bin/env bash
# The device checks of issue 40 (and, with PARTS=parallel, issue 39's 16 cores), as one command for a
# machine with a GPU and 16 cores (the `device` tool runs it on a copy of the checkout: no install,
# numba-cuda already there).  `reach bench --gpu` also runs each case's directed set, and the end-to-end
# case, with every core but one beside the GPU (backend cuda+cpu).
#   bash bench/device.sh     # (REACH_GPU_FUSED=1: the fused build, reach.kernels.device.FUSED) writes $OUT/gpu.json, $OUT/log, $OUT/compile.log, $OUT/warm.log (and parallel.json)
#   PARTS=lemke bash bench/device.sh   # only Lemke's layouts (reach.kernels.warp) on each case's recorded LCPs, with random
#                                      # choice's covering vectors and with ones (first choice's; bench/lemke_first.py),
#                                      # about four minutes: $OUT/lemke.json
#   PARTS=caps bash bench/device.sh    # bench/register_caps.py: every case at each register cap, about five minutes:
#                                      # $OUT/register-caps.json, $OUT/log-caps
#   PARTS=host bash bench/device.sh    # only the host side of a 2^20 quadruped set on the 16 cores, about four
#                                      # minutes with the CPU kernels' cold compile (less after the default part):
#                                      # $OUT/host-parts.log, host-side.json, log-host
#   PARTS=bisect bash bench/device.sh  # bench/kernel_bisect.py: the kernel with one stage left out at a time (the
#                                      # rocking block and the quadruped, first and random choice), about three
#                                      # minutes: $OUT/bisect.json, $OUT/log-bisect, $OUT/compile-bisect.log.  After the
#                                      # default part, in the same call: bash bench/device.sh; PARTS=bisect bash bench/device.sh
#   PARTS=hybrid bash bench/device.sh  # bench/hybrid_device.py: cuda+cpu against the GPU alone, each case's directed
#                                      # 2^20 set, with .old/executors.py's Hybrid too where that copy was carried,
#                                      # about three minutes: $OUT/hybrid.json, $OUT/log-hybrid, $OUT/compile.log
#   PARTS=e2e bash bench/device.sh     # bench/gpu_directed_host.py --real --profile: the end-to-end run (2^20 quadruped
#                                      # samples and the estimate) on the GPU, where its host seconds go, about two
#                                      # minutes after the default part in the same call (its compiled kernels):
#                                      # $OUT/e2e-profile.log, $OUT/log-e2e
#   PARTS=forest bash bench/device.sh  # bench/forest_index.py: a 2^20 quadruped set's one kd-tree against the forest
#                                      # of reach.sampling.nearest, on 16 threads and on one, about two minutes with
#                                      # the CPU kernels' cold compile: $OUT/forest-16.json, forest-1.json, log-forest
#   PARTS=parts bash bench/device.sh  # bench/download_parts.py: a uniform 2^22 rocking-block set launched in parts
#                                      # (its downloads behind the later parts' kernels) against one launch, random
#                                      # and first choice, about a minute after the default part (its compiled
#                                      # kernel): $OUT/parts.json, $OUT/log-parts
#   PARTS=coverage bash bench/device.sh  # bench/gpu_coverage.py --real: the coverage-driven run (`reach run NAME --gpu`,
#                                      # doubling from 4,096 samples) of the quadruped and the disk stack on the GPU
#                                      # alone (its held-out searches beside it, and on it as before), beside 15
#                                      # processes and on 16 processes alone, every launch recorded,
#                                      # about four minutes on a fresh machine: $OUT/coverage-*.json, $OUT/log-coverage
# First, one process a kernel compiles each case's two GPU kernels (caps drawn on the device, and caps
# from the host for a directed run's later rounds), its two Lemke kernels (a thread and a warp an LCP,
# reach.kernels.warp) and the variants of the bench's TUNING_SWEEP, all at the same time, and Numba caches
# them on disk (reach.kernels.device.kernel_file); then `reach bench --gpu` loads them, so its "compile"
# column is the load from the disk cache in a new process.  Each part has its own time limit.
set -uo pipefail
OUT=${OUT:-results/device}
PARTS=${PARTS:-gpu}
mkdir -p "$OUT"
LOG="$OUT/log"
case $PARTS in bisect | e2e | host | lemke | caps | hybrid | coverage | parts | forest) LOG="$OUT/log-$PARTS" ;; esac  # beside the default part's, in one call
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
REACH=(python3 -W ignore::RuntimeWarning -c 'import sys; from reach.tools.cli import main; sys.exit(main(sys.argv[1:]))')
warm() {  # compile (and cache on disk) the CPU kernels that the bench's CPU baseline uses
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
compile_gpu() {  # $1: a case of reach.tools.bench_gpu, $2: drawn or host (where the caps come from), $3: the
                 # index of a TUNING_SWEEP variant to compile with (or -1: none), $4: the schedule (thread or
                 # queue; none given, the case's default, reach.kernels.device.schedule_for); that GPU kernel,
                 # compiled and cached on disk
  python3 -W ignore -c '
import sys, time
import numpy as np
from reach.kernels import device
from reach.sampling.engine import Plan
from reach.sampling.gpu import Gpu
from reach.sampling.settings import SamplingSettings
from reach.tools.bench_gpu import TUNING_SWEEP, problem_case
label, caps, variant = sys.argv[1], sys.argv[2], int(sys.argv[3])
device.SCHEDULE = sys.argv[4] if len(sys.argv) > 4 else None
problem, h, N = problem_case(label)
plan = Plan(problem, SamplingSettings(64, h, N, strategy="uniform", solution_choice="random"))
device.JIT_OPTIONS = TUNING_SWEEP[variant] if variant >= 0 else None
t = time.perf_counter()
P = np.full((64, N, problem.m), 0.5) if caps == "host" else None
Gpu().run(plan, P, 0, 0, N + 2, count=64)
options = device.jit_options(problem.lcp_size) or "no options"
print(f"{label}: GPU kernel ({device.schedule_for(problem.lcp_size)}, caps {caps}, {options}) compiled in {time.perf_counter() - t:.1f} s", flush=True)' "$@"
}
compile_lemke() {  # $1: a case of reach.tools.bench_gpu, $2: a layout of reach.kernels.warp.LAYOUTS; that Lemke kernel (reach.kernels.warp), cached on disk
  python3 -W ignore -c '
import sys, time
import numpy as np
from reach.kernels.lcp import DEFAULT_OPTIONS
from reach.kernels.warp import run_lemke
from reach.tools.bench_gpu import problem_case
label, layout = sys.argv[1], sys.argv[2]
n = problem_case(label)[0].lcp_size
t = time.perf_counter()
run_lemke(layout, np.eye(n), -np.ones((1, n)), np.ones((1, n)), DEFAULT_OPTIONS)
print(f"{label}: Lemke kernel, {layout} an LCP, compiled in {time.perf_counter() - t:.1f} s", flush=True)' "$1" "$2"
}
compile_directed() {  # the CPU kernels (warm) and the GPU kernels a directed set of each case named needs, at once
  warm > "$OUT/warm.log" 2>&1 &
  for c in "$@"; do
    timeout 150 bash -c "$(declare -f compile_gpu); compile_gpu $c host -1" >> "$OUT/compile.log" 2>&1 &
    timeout 150 bash -c "$(declare -f compile_gpu); compile_gpu $c drawn -1" >> "$OUT/compile.log" 2>&1 &
  done
  wait
  grep -v Warning "$OUT/compile.log" "$OUT/warm.log"
}
compile_lemkes() {  # every case's Lemke kernels, each layout, at the same time
  for c in rocking-block disk-stack quadruped; do for layout in $(python3 -c 'from reach.kernels.warp import LAYOUTS; print(*LAYOUTS)'); do
    timeout 150 bash -c "$(declare -f compile_lemke); compile_lemke $c $layout" &
  done; done
  wait
}
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import os, numba, numpy; print("numba", numba.__version__, "numpy", numpy.__version__, "cores", os.cpu_count())'
  if [[ $PARTS == lemke ]]; then  # Lemke's layouts alone (about four minutes): compiled, then timed; $OUT/lemke.json
    compile_lemkes > "$OUT/compile.log" 2>&1
    cat "$OUT/compile.log"
    timeout 420 python3 -W ignore bench/lemke_first.py --case rocking-block disk-stack quadruped --json "$OUT/lemke.json" \
      || echo "the Lemke layouts ended with $?"
    date -u
  elif [[ $PARTS == caps ]]; then  # bench/register_caps.py: each case's kernel at each register cap, about five minutes
    warm > "$OUT/warm.log" 2>&1 &
    caps=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from register_caps import CAPS; print(*CAPS)')
    for c in rocking-block disk-stack quadruped; do for cap in $caps; do
      timeout 150 python3 -W ignore bench/register_caps.py compile $c $cap drawn >> "$OUT/compile.log" 2>&1 &
    done; done
    for cap in $caps; do  # the end-to-end run's directed rounds bring their caps from the host
      timeout 150 python3 -W ignore bench/register_caps.py compile quadruped $cap host >> "$OUT/compile.log" 2>&1 &
    done
    wait
    grep -v Warning "$OUT/compile.log" "$OUT/warm.log"
    date -u
    timeout 260 python3 -W ignore bench/register_caps.py sweep --json "$OUT/register-caps.json" \
      || echo "the register caps' sweep ended with $?"
    date -u
  elif [[ $PARTS == bisect ]]; then  # bench/kernel_bisect.py: each variant compiled in its own process, at once
    for c in rocking-block quadruped; do
      for v in $(python3 -c 'import sys; sys.path.insert(0, "bench"); from kernel_bisect import VARIANTS; print(*VARIANTS)'); do
        timeout 200 python3 -W ignore bench/kernel_bisect.py compile $c $v >> "$OUT/compile-bisect.log" 2>&1 &
      done
    done
    wait
    grep -v Warning "$OUT/compile-bisect.log"
    date -u
    timeout 200 python3 -W ignore bench/kernel_bisect.py time --json "$OUT/bisect.json" ${BISECT_ARGS:-} || echo "the bisect ended with $?"
    date -u
  elif [[ $PARTS == hybrid ]]; then  # the kernels a directed set needs, compiled at once, then the comparison
    compile_directed rocking-block disk-stack quadruped
    date -u
    old=(); [[ -f .old/executors.py ]] && old=(--old .old/executors.py)
    timeout 300 python3 -W ignore bench/hybrid_device.py --repeats 2 "${old[@]}" ${HYBRID_ARGS:-} --json "$OUT/hybrid.json" \
      || echo "the hybrid comparison ended with $?"
    date -u
  elif [[ $PARTS == coverage ]]; then  # the kernels a directed set needs, compiled at once, then each case's run
    compile_directed disk-stack quadruped
    date -u
    for c in ${COVERAGE_CASES:-quadruped disk-stack}; do
      timeout 240 env PYTHONPATH=".:bench" python3 -W ignore bench/gpu_coverage.py --case $c --real \
        --backends cuda cuda+cpu loky --compare-beside --json "$OUT/coverage-$c.json" || echo "the $c coverage run ended with $?"
      date -u
    done
  elif [[ $PARTS == e2e ]]; then  # the end-to-end run on the GPU, cProfiled (after the default part: its caches)
    timeout 300 python3 -W ignore bench/gpu_directed_host.py --case quadruped --samples 1048576 --estimate \
      --repeats 2 --profile --real > "$OUT/e2e-profile.log" 2>&1 || echo "the profiled end-to-end run ended with $?"
    cat "$OUT/e2e-profile.log"
    date -u
  elif [[ $PARTS == parts ]]; then  # a launch in parts against one launch (after the default part: its kernel)
    timeout 200 python3 -W ignore bench/download_parts.py --case rocking-block --json "$OUT/parts.json" \
      || echo "the parts' comparison ended with $?"
    date -u
  elif [[ $PARTS == forest ]]; then  # one tree against the forest, on every core and on one
    for t in 16 1; do
      timeout 150 python3 -W ignore bench/forest_index.py --samples 1048576 --jobs 16 --threads $t --repeats 3 \
        --json "$OUT/forest-$t.json" || echo "forest_index --threads $t ended with $?"
    done
    date -u
  elif [[ $PARTS == host ]]; then  # bench/host_parts.py and bench/host_side.py on every core
    timeout 240 python3 -W ignore bench/host_parts.py --samples 1048576 --jobs 16 --threads 16 \
      > "$OUT/host-parts.log" 2>&1 || echo "host_parts ended with $?"
    cat "$OUT/host-parts.log"
    timeout 200 python3 -W ignore bench/host_side.py --samples 1048576 --jobs 16 --repeats 2 \
      > "$OUT/host-side.json" 2>&1 || echo "host_side ended with $?"
    tail -25 "$OUT/host-side.json"
    date -u
  elif [[ $PARTS != *bench-only* ]]; then
  warm > "$OUT/warm.log" 2>&1 &
  variants=$(python3 -c 'from reach.tools.bench_gpu import TUNING_SWEEP; print(len(TUNING_SWEEP))')
  {
  for c in rocking-block disk-stack quadruped; do
    timeout 150 bash -c "$(declare -f compile_gpu); compile_gpu $c host -1" &  # a directed run's later rounds
    for schedule in thread queue; do  # the bench's _schedules; one of them is the case's default (schedule_for)
      timeout 150 bash -c "$(declare -f compile_gpu); compile_gpu $c drawn -1 $schedule" &
    done
  done
  compile_lemkes &  # the bench's first part
  for c in disk-stack quadruped; do for ((v = 0; v < variants; v++)); do  # the bench's TUNING_SWEEP (n >= TUNED_MIN_N)
    timeout 150 bash -c "$(declare -f compile_gpu); compile_gpu $c drawn $v" &
  done; done
  } > "$OUT/compile.log" 2>&1
  wait
  cat "$OUT/compile.log" "$OUT/warm.log"
  fi
  if [[ $PARTS != lemke && $PARTS != host && $PARTS != caps && $PARTS != bisect && $PARTS != e2e && $PARTS != hybrid \
        && $PARTS != coverage && $PARTS != parts && $PARTS != forest ]]; then
    ls reach/kernels/__pycache__/cuda/__pycache__ 2>/dev/null | head -20
    date -u
    timeout 420 "${REACH[@]}" bench --gpu --json "$OUT/gpu.json" || echo "reach bench --gpu ended with $?"
    date -u
  fi
  if [[ $PARTS == *parallel* ]]; then
    timeout 140 "${REACH[@]}" bench --parallel --json "$OUT/parallel.json" || echo "reach bench --parallel ended with $?"
    date -u
  fi
} 2>&1 | tee "$LOG"
