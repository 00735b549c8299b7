"""Lemke's revised method with a warp an LCP (reach.kernels.warp): the CPU's answer bit for bit.

Under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, a subprocess: the
simulator is chosen when ``numba.cuda`` is first imported) the 32 threads of a
block solve each LCP together (all arrays shared, or the folded inverse in global
memory), and must end with the CPU kernel's status,
pivots, basis and basic values, bit for bit: on random LCPs, on LCPs whose
path outgrows the eta file (a fold, in thread 0), on a fully tied first ratio
test (the lexicographic tie-break, in thread 0), on LCPs of more rows than
threads (a thread owns two rows), and on the disk stack's recorded Routh
steps.  Where libNVVM is installed the kernel also compiles to PTX for a
Hopper GPU, with no fused multiply-add and no stack frame.
"""

import sys
import textwrap

import numpy as np
import pytest
from helpers import nvvm_available, under_the_simulator


SIMULATED = textwrap.dedent("""
    import json, warnings
    import numpy as np
    warnings.simplefilter("ignore", RuntimeWarning)
    import scenarios
    from reach.kernels.lcp import DEFAULT_OPTIONS, make_work, scale_lcp
    from reach.kernels.routh_data import fill_q
    from reach.kernels.warp import cpu_lemke_batch, run_lemke
    from reach.tools.bench import Recorded

    def cpu(lcp, Q, D):
        K, n = Q.shape
        status, pivots, X, B = (np.empty(K, np.int64), np.empty(K, np.int64), np.empty((K, n)),
                                np.empty((K, n), np.int64))
        cpu_lemke_batch(lcp.MsT, Q, D, DEFAULT_OPTIONS, make_work(n), np.empty(n), status, pivots, X, B)
        return [(int(s), int(p), x, b) for s, p, x, b in zip(status, pivots, X, B)]

    def case(M, Q, D, layouts=("warp",)):
        lcp = scale_lcp(M)
        Q = np.ascontiguousarray(Q * lcp.row_scale[None, :])
        rows = [dict(same=True, pivots=p, status=s) for s, p, _, _ in cpu(lcp, Q, D)]
        for layout in layouts:
            status, pivots, X, B = run_lemke(layout, lcp.MsT, Q, D, DEFAULT_OPTIONS)
            for k, (s, p, x, b) in enumerate(cpu(lcp, Q, D)):
                rows[k]["same"] &= bool(status[k] == s and pivots[k] == p and np.array_equal(B[k], b)
                                        and np.array_equal(X[k].view(np.int64), x.view(np.int64)))
        return dict(n=Q.shape[1], rows=rows, layouts=list(layouts), equal_row_scales=bool(np.ptp(lcp.row_scale) == 0))

    rng = np.random.default_rng(5)
    report = {}
    A = rng.normal(size=(6, 6))
    report["random"] = case(A @ A.T + 0.1 * np.eye(6), rng.normal(size=(3, 6)), np.exp(0.3 * rng.normal(size=(3, 6))))
    long = []  # n = 4 LCPs whose path takes more pivots than the eta file holds
    while len(long) < 2:
        M, q, d = rng.normal(size=(4, 4)) + 2.5 * np.eye(4), rng.normal(size=4), np.exp(rng.normal(size=4))
        lcp = scale_lcp(M)
        if cpu(lcp, (q * lcp.row_scale)[None, :], d[None, :])[0][1] > 5:
            long.append((M, q, d))
    both = ("warp", "warp-lean")  # the lean layout's folded inverse is in global memory: the folds reach it
    report["folds"] = {i: case(M, q[None, :], d[None, :], both) for i, (M, q, d) in enumerate(long)}
    report["ties"] = case(np.eye(5) + 0.5 * np.ones((5, 5)), -np.ones((2, 5)), np.ones((2, 5)), both)
    A = rng.normal(size=(36, 36))
    report["two rows a thread"] = case(A @ A.T + np.eye(36), rng.normal(size=(1, 36)), np.ones((1, 36)))
    rec = Recorded(scenarios.get("disk-stack"), 1)
    q, Q = np.empty(rec.n), []
    for v, lam in zip(rec.V, rec.lam):
        fill_q(rec.data.Jbar, lam.shape[0], v, lam, q)
        Q.append(q.copy())
    report["disk stack"] = case(rec.data.lcp.M, np.array(Q), rec.d)
    import reach.kernels.warp as warp  # a kernel whose launch fails as saving it to Numba's disk cache would
    real, calls = warp._kernel, []

    class Fails:
        def __getitem__(self, grid):
            def launch(*args):
                raise RuntimeError("cannot pickle")
            return launch

    def kernel(layout, n, cache=True):
        calls.append(cache)
        return Fails() if cache else real(layout, n, cache)

    warp._kernel = kernel
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, pivots, X, B = run_lemke("warp", np.eye(3), -np.ones((1, 3)), np.ones((1, 3)), DEFAULT_OPTIONS)
    report["cache fails"] = dict(calls=calls, status=int(status[0]), warned=any("disk cache" in str(w.message)
                                                                                  for w in caught))
    print(json.dumps(report))
""")


def test_a_warp_solves_each_lcp_as_the_cpu_does_bit_for_bit_under_the_simulator():
    report = under_the_simulator(SIMULATED)
    cases = {"random": report["random"], "ties": report["ties"], "two rows a thread": report["two rows a thread"],
             "disk stack": report["disk stack"], **{f"fold {k}": c for k, c in report["folds"].items()}}
    for name, c in cases.items():
        assert all(row["same"] for row in c["rows"]), (name, c)
        assert all(row["status"] == 0 and row["pivots"] > 0 for row in c["rows"]), (name, c)
    assert all(c["rows"][0]["pivots"] > c["n"] for k, c in cases.items() if k.startswith("fold"))  # thread 0 folds
    assert all(c["layouts"] == ["warp", "warp-lean"] for k, c in cases.items() if k.startswith("fold"))
    assert report["ties"]["equal_row_scales"]  # q = -1, d = 1, equal scales: every row ties at the first pivot
    assert report["two rows a thread"]["n"] > 32 and report["disk stack"]["n"] == 25
    assert report["cache fails"] == dict(calls=[True, False], status=0, warned=True)  # compiled again, without


@pytest.mark.skipif(not nvvm_available(), reason="no CUDA compiler (libNVVM, NVRTC) here")
def test_the_warp_kernel_compiles_to_ptx_without_fused_multiply_adds(monkeypatch):
    import numba

    from reach.kernels import device, warp
    from reach.kernels.lcp import DEFAULT_OPTIONS

    cuda = device.numba_cuda()
    monkeypatch.setattr(sys.modules[cuda.dispatcher.__name__], "get_current_device",
                        lambda: type("Hopper", (), {"compute_capability": (9, 0)})())
    n, K = 44, 4
    names = warp.device_names()
    exec(compile(warp.lemke_kernel_source("warp", n), "<warp Lemke>", "exec"), names)
    args = (np.zeros((n, n)), np.zeros((K, n)), np.zeros((K, n)), DEFAULT_OPTIONS, np.zeros(K, np.int64),
            np.zeros(K, np.int64), np.zeros((K, n)), np.zeros((K, n), np.int64), np.zeros((1, 1, 1)))
    with device.without_contraction():
        ptx, _ = cuda.compile_ptx(names["lemke"], tuple(numba.typeof(a) for a in args), cc=(9, 0))
    assert ".shared" in ptx and "bar.sync" in ptx and "fma.rn.f64" not in ptx
    assert ".local" not in ptx  # no thread keeps a frame: the LCP's arrays are the block's


def test_the_kernel_sources_size_their_arrays_to_the_problem():
    from reach.kernels.warp import WARP, lemke_kernel_source

    warp = lemke_kernel_source("warp", 44)
    assert "cuda.shared.array((44, 44), float64)" in warp and f"cuda.shared.array({WARP}, float64)" in warp
    thread = lemke_kernel_source("thread", 44)
    assert "cuda.local.array((44, 44), float64)" in thread and "shared" not in thread
    assert "cuda.local.array((1, 1), float64)" in thread  # the revised method needs no tableau


def test_a_block_that_would_outgrow_static_shared_memory_is_refused_by_name():
    from reach.kernels.warp import STATIC_SHARED, lemke_kernel_source, shared_bytes

    assert shared_bytes("warp", 44) == 35112 and shared_bytes("warp-lean", 44) == 19624  # what ptxas reports
    assert shared_bytes("warp", 52) <= STATIC_SHARED < shared_bytes("warp", 53)
    with pytest.raises(ValueError, match="n = 60 needs 63,144 bytes"):
        lemke_kernel_source("warp", 60)
    assert "BINV[b]" in lemke_kernel_source("warp-lean", 60)  # the lean block still fits
    with pytest.raises(ValueError, match="no Lemke layout 'lane'"):
        lemke_kernel_source("lane", 10)


def test_the_capped_thread_layout_is_the_thread_layouts_source():
    from reach.kernels.warp import LAYOUTS, lemke_kernel_source

    assert "thread-capped" in LAYOUTS
    assert lemke_kernel_source("thread-capped", 25) == lemke_kernel_source("thread", 25)
