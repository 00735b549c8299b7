"""Walk choice under a change of mass unit: how many of 1,024 disk-stack samples take another branch.

    PYTHONPATH=. python3 bench/walk_units.py [TREE]     (TREE: another checkout to measure, default this one)

For seeds 0, 1, 2 and masses scaled by 1e-8, 7 and 1e8 (impulses with them), under uniform and directed
sampling: the samples whose outcome moved by more than 1e-9 |vn0|, whether the kept flags are the same, the
Hausdorff distance between the two sets' contact velocities and the moved samples' farthest distance from the
unmoved ones (both in |vn0|).  Under directed sampling a moved outcome can change a round's parents, and every
later round with them.
"""
import sys

tree = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, tree)
sys.path.insert(1, tree + "/tests")

import numpy as np  # noqa: E402
import scenarios  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

from reach import sample_post_impact_set  # noqa: E402
from tests.test_units import scaled  # noqa: E402

s = scenarios.get("disk-stack")
p = s.problem
speed = float(np.abs(p.Jn @ p.v).max())
print(f"# {tree}")
for strategy in ("uniform", "directed"):
    for seed in (0, 1, 2):
        common = dict(solution_choice="walk", completeness=False, n_jobs=1, seed=seed, strategy=strategy)
        base = sample_post_impact_set(p, 1024, s.h, s.N, **common)
        A = p.contact_velocities(base.all_velocities).reshape(1024, -1)
        for k in (1e-8, 7.0, 1e8):
            o = sample_post_impact_set(scaled(p, k=k, s=1.0), 1024, s.h * k, s.N, eps=base.settings.eps * k, **common)
            B = p.contact_velocities(o.all_velocities).reshape(1024, -1)
            apart = np.abs(A - B).max(axis=1) > 1e-9 * speed
            far = max(cKDTree(A).query(B)[0].max(), cKDTree(B).query(A)[0].max()) / speed
            moved = cKDTree(A[~apart]).query(B[apart])[0].max() / speed if apart.any() else 0.0
            print(f"{strategy} seed {seed} k {k:g}: {int(apart.sum())} of 1024 apart, kept the same "
                  f"{bool(np.array_equal(o.kept, base.kept))}, Hausdorff {far:.3f}, moved ones within {moved:.3f}",
                  flush=True)
