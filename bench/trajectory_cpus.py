"""Whether `reach trajectory` gives the same run on another CPU: the same command under three OpenBLAS kernels.

    PYTHONPATH=. python3 bench/trajectory_cpus.py [EXAMPLE IMPACTS BUDGET]

Each run is a process of its own with ``OPENBLAS_CORETYPE`` set (the default kernel, Nehalem, Sandybridge), as
tests/kernels/test_assembly.py does for single impacts.  Per run against the default's: the largest difference
of each impact's states (t, q, v before and after), relative to that array's largest entry, and whether the same
outcomes were carried on to the next impact.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

KERNELS = ("", "Nehalem", "Sandybridge")


def run(example, impacts, budget, kernel, folder):
    out = Path(folder) / f"{kernel or 'default'}.npz"
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_CORETYPE"}
    if kernel:
        env["OPENBLAS_CORETYPE"] = kernel
    subprocess.run([sys.executable, "-m", "reach", "trajectory", example, "--impacts", str(impacts), "--budget",
                    str(budget), "--no-progress", "--out", str(out)], env=env, check=True, capture_output=True)
    return dict(np.load(out, allow_pickle=False))


def main(example="rocking-block", impacts=2, budget=256):
    with tempfile.TemporaryDirectory() as folder:
        runs = {kernel or "default": run(example, impacts, budget, kernel, folder) for kernel in KERNELS}
    base = runs.pop("default")
    print(f"reach trajectory {example} --impacts {impacts} --budget {budget}, against the default OpenBLAS kernel")
    for kernel, other in runs.items():
        for k in range(1, int(impacts) + 1):
            moved = []
            for name in ("t", "q", "v_pre", "v"):
                a, b = base.get(f"impact{k}_{name}"), other.get(f"impact{k}_{name}")
                if a is None or b is None:
                    continue
                moved.append(f"{name} {np.abs(a - b).max() / np.abs(a).max():.1e}" if a.shape == b.shape
                             else f"{name} {a.shape} vs {b.shape}")
            carried = base.get(f"impact{k}_carried"), other.get(f"impact{k}_carried")
            same = "-" if carried[0] is None else ("same" if np.array_equal(*carried) else "OTHER")
            print(f"  {kernel:12s} impact {k}: {', '.join(moved)}; carried on: {same}")


if __name__ == "__main__":
    main(*sys.argv[1:])
