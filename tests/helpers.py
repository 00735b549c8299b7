"""Shared test helpers: hand-built paper problems, random problems, certificate checks and a stand-in GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from reach import ImpactProblem
from reach.problem.lcp import lcp_residual

G = 9.81


def hand_rocking_block():
    """SPEC §4.1 by hand: 1 x 2 m box, 1 kg, flat on the floor, falling at sqrt(2 g 0.01)."""
    w, h, m = 1.0, 2.0, 1.0
    inertia = m * (w**2 + h**2) / 12
    M = np.diag([m, m, inertia])
    # corner r = (rx, ry) from the centre at theta = 0: velocity (vx - w ry, vy + w rx)
    Jn = np.array([[0.0, 1.0, -w / 2], [0.0, 1.0, w / 2]])     # A bottom-left, B bottom-right
    Jt = np.array([[1.0, 0.0, h / 2], [1.0, 0.0, h / 2]])      # t = (n_y, -n_x) = (1, 0)
    v = np.array([0.0, -np.sqrt(2 * G * 0.01), 0.0])
    return ImpactProblem(M, Jn, Jt, 1.0, v)


def hand_compass_gait(omega=0.25):
    """SPEC §4.3 by hand: q = [x, y, th_lead, th_trail]; foot = hip + (sin th, -cos th)."""
    th = np.deg2rad(78.0)
    q = np.array([-np.sin(th), np.cos(th), -th, th])
    v = np.array([-np.cos(th) * omega, -np.sin(th) * omega, omega, omega])
    M = np.zeros((4, 4))
    for leg in (2, 3):  # 1 kg point mass 0.5 m from the hip on each leg
        J = np.zeros((2, 4))
        J[0, 0] = J[1, 1] = 1.0
        J[0, leg] = 0.5 * np.cos(q[leg])
        J[1, leg] = 0.5 * np.sin(q[leg])
        M += J.T @ J
    Jn, Jt = np.zeros((2, 4)), np.zeros((2, 4))
    for contact, leg in enumerate((2, 3)):  # A leading foot, B trailing foot
        Jn[contact, 1], Jn[contact, leg] = 1.0, np.sin(q[leg])
        Jt[contact, 0], Jt[contact, leg] = 1.0, np.cos(q[leg])
    return ImpactProblem(M, Jn, Jt, 5.0, v)


def random_problem(rng, *, m=None, nv=None, planar=True, mu=None, k=None):
    """A random impact problem with SPD M, random Jacobians, at least one colliding contact."""
    m = int(rng.integers(1, 4)) if m is None else m
    nv = int(rng.integers(m + 1, m + 5)) if nv is None else nv
    A = rng.normal(size=(nv, nv))
    M = A @ A.T + 0.1 * np.eye(nv)
    M *= 10.0 ** rng.uniform(-2, 2)
    Jn = rng.normal(size=(m, nv))
    Jt = rng.normal(size=(m if planar else 2 * m, nv))
    if mu is None:
        mu = 10.0 ** rng.uniform(-2, 5, size=m) * (rng.random(m) > 0.15)
    v = rng.normal(size=nv)
    # make contact 0 colliding
    v -= (Jn[0] @ v + abs(rng.normal()) + 0.1) * Jn[0] / (Jn[0] @ Jn[0])
    return ImpactProblem(M, Jn, Jt, mu, v, friction_directions=k)


def assert_lcp_solution(M, q, z, tol=1e-9):
    """z solves LCP(M, q) to a relative residual ``tol``."""
    res = lcp_residual(M, q, z)
    assert res <= tol, f"complementarity residual {res:.3e} > {tol:.1e}"


def assert_energy_non_increasing(problem, v_before, v_after, rtol=1e-10):
    e0 = problem.kinetic_energy(v_before)
    e1 = problem.kinetic_energy(v_after)
    assert np.all(e1 <= e0 * (1 + rtol) + 1e-300), f"kinetic energy rose: {e0} -> {np.max(e1)}"


def nvvm_available():
    """Whether this machine can compile CUDA code to PTX (libNVVM, NVRTC), with or without a GPU."""
    try:
        from reach.kernels.device import numba_cuda

        numba_cuda().compile_ptx(lambda a, b: a + b, "float64(float64, float64)", device=True, cc=(9, 0))
        return True
    except Exception:
        return False


class CpuDevice:
    """A stand-in GPU: each launch runs the CPU's kernel on the launch's samples; it records the launches."""

    def __init__(self):
        self.launches = []
        self.runs = []  # (the settings' seed, first index, samples) of each launch

    def describe(self):
        return "a CPU stand-in"

    def block_size(self, problem, max_steps, drawn=False):
        return 2**22

    def run(self, plan, P, first_index, keep, path_rows, count=None):
        from reach.kernels.routh import allocate_output, run_samples_kernel
        from reach.kernels.routh_data import make_step_work
        from reach.sampling.caps import draw_caps

        s, problem = plan.settings, plan.problem
        if P is None:
            P = draw_caps(problem.m, s.max_steps, first_index, count, seed=s.seed, sequence=s.sequence, caps=s.caps)
        self.launches.append((first_index, P.shape[0]))
        self.runs.append((s.seed, first_index, P.shape[0]))
        out = allocate_output(P.shape[0], problem.nv, keep, path_rows)
        run_samples_kernel(plan.data, plan.options, P, first_index, out,
                           make_step_work(problem.lcp_size, problem.m, problem.nv), *plan.flags)
        return out


#: Source that keeps a process on one of the cores it may use, where the OS lets it.  The simulator runs a
#: block's threads as Python threads that take turns holding the interpreter's lock; spread over two cores, each
#: turn waits for the other core to wake.  The disk stack's 128 simulated samples took 55-108 s on two cores, 5 s
#: on one (a 2-core host, 2026-11-27).
ONE_CORE = ("import os\n"
            "if hasattr(os, 'sched_setaffinity'):\n"
            "    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n")


class PatientDevice(CpuDevice):
    """A :class:`CpuDevice` whose launches end only once ``executor``'s processes have delivered a run (or after
    ``patience`` seconds): a hybrid run then always has runs of both sides in its set, however slowly the processes
    start."""

    def __init__(self, patience=120.0):
        super().__init__()
        self.executor, self.patience = None, patience

    def run(self, *args, **kwargs):
        import time

        out = super().run(*args, **kwargs)
        t = time.perf_counter()
        while self.executor.samples["cpu"] == 0 and time.perf_counter() - t < self.patience:
            time.sleep(0.01)
        return out


def slow_on_the_cpu(payload, start, count, device=None):
    """A toy chunk for executors' tests: at once on a device, after ``payload.seconds`` of sleep in a process."""
    import time

    if device is None:
        time.sleep(payload.seconds)
    return {"start": int(start), "lcp_solves": np.zeros(count, dtype=np.int64), "kernel_seconds": 1e-6}


def under_the_simulator(script, *args, timeout=900, **environment):
    """Run the Python ``script`` in a subprocess under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, chosen
    when ``numba.cuda`` is first imported), from the repository's root, on one core (:data:`ONE_CORE`); the JSON
    report it prints last."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", **environment)
    done = subprocess.run([sys.executable, "-c", ONE_CORE + script, *args], cwd=Path(__file__).parents[1], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
