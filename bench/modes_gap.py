"""Contact modes against the walk on the disk stack's recorded steps: v' that exact choice never draws.

    PYTHONPATH=. python3 bench/modes_gap.py [SCENARIO ...]   (default: disk-stack)

Every step of the choice probe's pilot (128 trajectories) is enumerated by contact
modes (reach.problem.step.mode_velocities) and searched by the walk of
reach.analysis.walk (64 hops; each solution re-solved and verified in NumPy).
"""
import sys

import numpy as np, scenarios
from reach.analysis.walk import walk_solutions
from reach.problem.step import kernel_data, mode_velocities
from reach.sampling.choice import _pilot_steps
def match(A, B):
    if len(A) == 0 or len(B) == 0: return np.zeros(len(A), bool)
    a, b = (p.contact_velocities(X).reshape(len(X), -1) for X in (A, B))
    return np.abs(a[:, None] - b[None]).max(axis=2).min(axis=1) <= 1e-6 * scale
for name in sys.argv[1:] or ["disk-stack"]:
  s = scenarios.get(name); p = s.problem
  V, L = _pilot_steps(p, kernel_data(p), s.h, s.N, 128)
  scale = np.abs(p.contact_velocities(p.v)).max()
  steps = several = missed_steps = missed = walked_total = modes_total = 0
  for k, (v, lam) in enumerate(zip(V, L)):
    M = mode_velocities(p, v, lam / p.mass_scale)[0]
    W = walk_solutions(p, v, lam / p.mass_scale, hops=64, seed=k)
    steps += 1
    extra = ~match(W, M)
    several += (len(M) + extra.sum()) > 1
    missed_steps += extra.any(); missed += extra.sum(); walked_total += len(W); modes_total += len(M)
  print(f"{name}: {steps} pilot steps (128 trajectories); {several} with several v'; contact modes {modes_total} v', walk {walked_total};"
      f" the walk found {missed} v' contact modes did not, at {missed_steps} steps")
