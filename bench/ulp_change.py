"""How far the sets moved when the caps' ``pow`` and the covering vectors' ``exp`` became portable (round 3).

    git worktree add /tmp/old 3b71c9e      # the commit before the change
    PYTHONPATH=. python bench/ulp_change.py /tmp/old > bench/ulp-change.log

A fixed list of sets (2^12 samples, seed 3, every scenario's default and random choice, the
disk stack and the quadruped touchdown) is run by the old tree and by this one, each in its own
process.  For each: the samples kept, how many outcomes are bit-identical, the largest velocity
difference relative to max |v| among samples both keep, and the samples whose kept flag,
status or LCP count differ.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CASES = [(name, choice) for name in ("rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack")
         for choice in ("auto", "random")] + [("quadruped", "random")]

RUN = """
import sys, json, numpy as np
from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case
out = {}
for name, choice in json.loads(sys.argv[1]):
    p, h, N = problem_case(name)
    r = sample_post_impact_set(p, 2**12, h, N, completeness=False, seed=3, solution_choice=choice)
    for f in ("all_velocities", "kept", "lcp_solves", "sample_status"):
        out[f"{name} {choice} {f}"] = getattr(r, f)
np.savez(sys.argv[2], **out)
"""


def sets_of(tree, path):
    env = dict(os.environ, PYTHONPATH=tree)
    subprocess.run([sys.executable, "-W", "ignore", "-c", RUN, json.dumps(CASES), path], cwd=tree, env=env,
                   check=True)
    return np.load(path)


def main(old_tree):
    with tempfile.TemporaryDirectory() as tmp:
        old = sets_of(os.path.abspath(old_tree), os.path.join(tmp, "old.npz"))
        new = sets_of(os.getcwd(), os.path.join(tmp, "new.npz"))
        print("| set | kept (old, new) | outcomes bit-identical | largest gap / max abs v | kept, status, LCP count differ |")
        print("|---|---:|---:|---:|---:|")
        for name, choice in CASES:
            key = f"{name} {choice}"
            va, vb = old[f"{key} all_velocities"], new[f"{key} all_velocities"]
            ka, kb = old[f"{key} kept"], new[f"{key} kept"]
            both = ka & kb
            same = int(np.sum(np.all(va == vb, axis=1)))
            scale = max(float(np.abs(va[both]).max(initial=0.0)), 1e-300)
            gap = float(np.abs(va[both] - vb[both]).max(initial=0.0)) / scale
            differ = [int(np.sum(old[f"{key} {f}"] != new[f"{key} {f}"])) for f in ("kept", "sample_status",
                                                                                   "lcp_solves")]
            print(f"| {key} | {int(ka.sum())}, {int(kb.sum())} | {same} of {len(va)} | {gap:.1e} | "
                  f"{', '.join(map(str, differ))} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
