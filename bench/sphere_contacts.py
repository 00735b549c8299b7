"""The four balls' contacts and frames (`reach.models.spheres`), timed on 200 random states, and saved for a bit-for-bit
comparison between two versions of the code.

    PYTHONPATH=. python bench/sphere_contacts.py /tmp/new.npy
    PYTHONPATH=/path/to/old/worktree python bench/sphere_contacts.py /tmp/old.npy
    python -c "import numpy as np; a, b = np.load('/tmp/old.npy'), np.load('/tmp/new.npy'); print((a.view(np.int64) == b.view(np.int64)).all())"
"""
import sys
import time

import numpy as np
from reach.models.spheres import SphereSystem
from reach.models.spatial import tangent_basis
s = SphereSystem(4, radius=[0.1, 0.15, 0.12, 0.1], mass=[1.0, 2.0, 1.5, 1.0], mu=0.4)
rng = np.random.default_rng(0)
qs = []
for _ in range(200):
    c = rng.normal(size=12) * 0.3
    quat = rng.normal(size=(4, 4))
    quat /= np.linalg.norm(quat, axis=1)[:, None]
    qs.append(np.concatenate([c, quat.ravel()]))
out = []
for q in qs:
    cj = s.contacts(q); p, n, t = s.frames(q)
    out += [cj.phi, cj.Jn.ravel(), cj.Jt.ravel(), p.ravel(), n.ravel(), t.ravel()]
    for nn in n:
        out.append(tangent_basis(nn / np.linalg.norm(nn)).ravel())
        with np.errstate(invalid="ignore"):  # a normal along the plane's: NaN tangents, the same either way
            out.append(tangent_basis(nn, plane=np.array([0.0, 0.0, 1.0])).ravel())
np.save(sys.argv[1], np.concatenate(out))
ts = []
for r in range(5):
    c = time.process_time()
    for q in qs:
        s.contacts(q)
        s.frames(q)
    ts.append(time.process_time() - c)
print(f"contacts + frames of 4 balls: {np.median(ts) / len(qs) * 1e6:.0f} us CPU a state (median of 5 over {len(qs)} states)")
