"""How far the fixed-order assembly (reach.kernels.assembly) moved each set: the same samples before and after.

    git worktree add /tmp/before REV_BEFORE
    PYTHONPATH=. python3 bench/assembly_change.py /tmp/before .

Each tree's 4,096-sample sets (seed 7, one worker) of four problems, run in a process of their own; per problem:
kept outcomes before and after, LCP solves, the Hausdorff distance between the two sets' kept contact velocities
(in |vn0|), and the share of samples whose outcome moved by at most 1e-9 |vn0|.
"""
import pickle
import subprocess
import sys
import tempfile

import numpy as np
from scipy.spatial import cKDTree

_RUN = """import pickle, sys
import numpy as np
sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[1] + "/tests")
from reach import sample_post_impact_set
from reach.tools.bench_gpu import problem_case
out = {}
for name in ("rocking-block", "compass-gait", "disk-stack", "quadruped"):
    p, h, N = problem_case(name)
    s = sample_post_impact_set(p, 4096, h, N, seed=7, n_jobs=1, completeness=False)
    v = s.problem.contact_velocities(s.all_velocities).reshape(len(s.all_velocities), -1)
    out[name] = (v, s.kept, float(np.abs(p.Jn @ p.v).max()), int(s.lcp_solves.sum()))
pickle.dump(out, open(sys.argv[2], "wb"))
"""


def sets(tree):
    with tempfile.NamedTemporaryFile(suffix=".pickle") as f:
        subprocess.run([sys.executable, "-c", _RUN, tree, f.name], check=True)
        return pickle.load(open(f.name, "rb"))


before, after = sets(sys.argv[1]), sets(sys.argv[2])
for name, (va, ka, speed, solves_a) in before.items():
    vb, kb, _, solves_b = after[name]
    A, B = va[ka], vb[kb]
    far = max(cKDTree(B).query(A)[0].max(), cKDTree(A).query(B)[0].max()) / speed
    moved = np.abs(va - vb).max(axis=1) / speed
    print(f"{name}: kept {int(ka.sum())} / {int(kb.sum())} (the same samples: {bool(np.array_equal(ka, kb))}), "
          f"LCP solves {solves_a} / {solves_b}, Hausdorff {far:.2g} |vn0|, outcomes the same bits "
          f"{np.mean(moved == 0):.3f}, within 1e-9 |vn0| {np.mean(moved <= 1e-9):.3f}, farthest moved "
          f"{moved.max():.2g} |vn0|", flush=True)
