"""A planar model's velocity terms: exact (reach.models.planar.motion) against central differences, timed.

Until 2026-11-28 ``PlanarDynamics.velocity_force`` took central differences of
the mass matrix (ten mass matrices for the compass walker, one evaluation of
the forces), and a flow's held contact rates central differences of the
contact rows (two more evaluations of the contacts).  This times both ways in
one process, alternating, at the same random states, and prints medians of
CPU and wall time, their ratio, and how far the two ways' answers lie apart.

    PYTHONPATH=.:tests python3 bench/planar_forces.py [--repeats 7] [--states 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import scenarios

EPS = 1e-6  # the step the differences used (the mass matrix); 1e-7 / max|v| for the contact rows


def differenced_force(system, q, v):
    """``-Mdot v + grad_q(v^T M v) / 2`` by central differences of M, as ``velocity_force`` computed it before."""
    eps = EPS / float(np.max(np.abs(v)))
    mdot_v = (system.mass_matrix(q + eps * v) - system.mass_matrix(q - eps * v)) @ v / (2 * eps)
    grad = [v @ (system.mass_matrix(q + e) - system.mass_matrix(q - e)) @ v / (2 * EPS)
            for e in EPS * np.eye(system.nq)]
    return -mdot_v + 0.5 * np.array(grad)


def differenced_rates(system, q, v):
    """``d/dt (Jn v)`` and ``d/dt (Jt v)`` by central differences of the rows along v, as the flow took them."""
    eps = 1e-7 / float(np.max(np.abs(v)))
    ahead, behind = system.contacts(q + eps * v), system.contacts(q - eps * v)
    return (ahead.Jn - behind.Jn) @ v / (2 * eps), (ahead.Jt[:, 0] - behind.Jt[:, 0]) @ v / (2 * eps)


def timed(fn, states):
    c0, w0 = time.process_time(), time.perf_counter()
    out = [fn(q, v) for q, v in states]
    return time.process_time() - c0, time.perf_counter() - w0, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--states", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for name in ("compass-gait", "ramone"):
        system = scenarios.lookup(name, "simulation").system
        q0 = np.asarray(scenarios.get(name).q, dtype=float)
        # a new q each state: PlanarModel keeps the last q's Jacobians, which would flatter repeats
        states = [(q0 + 0.05 * rng.normal(size=system.nq), rng.normal(size=system.nv)) for _ in range(args.states)]
        pairs = {"forces": (lambda q, v: system.velocity_force(q, v), lambda q, v: differenced_force(system, q, v)),
                 "contact rates": (lambda q, v: np.concatenate(system.contact_rates(q, v)),
                                   lambda q, v: np.concatenate(differenced_rates(system, q, v)))}
        for what, (exact, differenced) in pairs.items():
            cpu, wall, gap = {"exact": [], "differences": []}, {"exact": [], "differences": []}, 0.0
            for _ in range(args.repeats):
                for label, fn in (("differences", differenced), ("exact", exact)):
                    c, w, out = timed(fn, states)
                    cpu[label].append(c / len(states))
                    wall[label].append(w / len(states))
                    if label == "differences":
                        reference = out
                    else:
                        gap = max(gap, max(float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))
                                           for a, b in zip(out, reference)))
            ce, cd = np.median(cpu["exact"]), np.median(cpu["differences"])
            we, wd = np.median(wall["exact"]), np.median(wall["differences"])
            print(f"{name} {what}: exact {ce * 1e6:.0f} us CPU ({we * 1e6:.0f} us wall), differences "
                  f"{cd * 1e6:.0f} us CPU ({wd * 1e6:.0f} us wall): {ce / cd:.2f}x CPU, {we / wd:.2f}x wall; "
                  f"largest gap {gap:.1e} of the largest term ({len(states)} states, medians of {args.repeats})")


if __name__ == "__main__":
    main()
