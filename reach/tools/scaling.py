"""``reach bench --scaling``: cost per Routh-step LCP against its size, and against QuantEcon's Lemke.

Problems of growing LCP size ``n``:

* **planar, m = 1..8 contacts** (``n = 5 m``): a row of discs on the floor, each
  touching the floor and its neighbour, falling and converging
  (:func:`disc_row`; contacts taken in the order floor, neighbour, floor, ...);
* **spatial, the 4-corner block with k = 4, 8, 16 friction directions**
  (``n = 4 (3 + k)`` = 28, 44, 76), read from MuJoCo;
* **the quadruped touchdown** of ``examples/mujoco_touchdown.py`` (``n = 44``).

For each: steps recorded from real samples (as :class:`reach.tools.bench.Recorded`
does), solved again by the verified Routh-step kernel in a jitted loop (with the
default Lemke, and again with the dense tableau: the "before" of the revised
method, measured in the same process), timed
in batches in wall-clock **and** CPU time (``time.process_time``: on a shared
machine the CPU time is what the process itself spent); the medians per solve,
pivots per solve; the same step LCPs (``W``, ``w``, the same covering vector)
solved by QuantEcon's Numba Lemke (``quantecon.optimize.lcp_lemke``, the
optional peer) in a jitted loop, with reach's pivot limit (``max(1000, 50 n)``),
with how often it succeeds and how far its ``v'`` is from ours; and samples per second on one core (the default sampler,
CPU time).  Ratios, not absolute times, are what to quote.
"""

from __future__ import annotations

import importlib.util
import time
from types import SimpleNamespace

import numba as nb
import numpy as np

__all__ = ["disc_row", "spatial_block", "quadruped", "run_scaling", "format_scaling", "plot_scaling", "TARGETS"]

#: Issue 14's targets for the rows of this report: (row, what, bound, at least?).  Each is reported met or
#: missed under the table.
TARGETS = (
    ("planar, m = 2", "µs per verified two-contact Lemke step (CPU)", 0.7, False),
    ("quadruped touchdown, k = 8", "samples/s per core (CPU)", 50_000.0, True),
    ("quadruped touchdown, k = 8", "faster than QuantEcon's Lemke (n = 44)", 3.0, True),
    ("3-D block, k = 8", "faster than QuantEcon's Lemke (n = 44)", 3.0, True),
    ("planar, m = 2", "faster than QuantEcon's Lemke (n = 10)", 1.5, True),
)

_MODES = {True: dict(record=600, passes=3, batch=200, samples=2**11),
          False: dict(record=4000, passes=5, batch=1000, samples=2**14)}


def disc_row(m, *, radius=0.1, mass=1.0, mu=0.5, seed=0):
    """A planar problem with ``m`` colliding contacts: discs on the floor, each touching the next.

    Returns ``(problem, h, N)``.
    """
    from reach.models.planar import PlanarModel

    discs = m // 2 + 1
    model = PlanarModel("disc-row")
    for i in range(discs):
        model.add_body(f"d{i}", joint="floating")
        model.add_disc(f"d{i}", f"d{i}", radius, mass=mass)
    model.add_wall("floor", normal=(0.0, 1.0), offset=0.0)
    q = np.concatenate([[2 * radius * i, radius, 0.0] for i in range(discs)])
    rng = np.random.default_rng(seed)
    v = np.concatenate([[-0.3 * i, -1.0, rng.uniform(-2.0, 2.0)] for i in range(discs)])
    order = []
    for i in range(discs):
        order.append(f"d{i}|floor")
        if i + 1 < discs:
            order.append(f"d{i + 1}|d{i}")
    names = model.contact_names()
    chosen = [c if c in names else "|".join(reversed(c.split("|"))) for c in order[:m]]
    return model.impact_problem(q, v, mu, contacts=chosen), 0.5, 10


def spatial_block(k):
    """The 3-D block on its four corners (MuJoCo), ``k`` friction directions; ``(problem, h, N)``."""
    from reach.analysis.compare.mujoco import block_mjcf, mujoco_data
    from reach.models.mujoco import impact_from_mujoco, load_model

    xml, qpos, qvel = block_mjcf(spatial=True, feet=True)
    model = load_model(xml)
    qvel = qvel + np.array([0.1, 0.05, 0.0, 0.2, -0.3, 0.1])  # not symmetric: every corner different
    impact = impact_from_mujoco(model, mujoco_data(model, qpos, qvel), friction_directions=k)
    return impact.problem, 0.3, 10


def quadruped():
    """The quadruped touchdown of ``examples/mujoco_touchdown.py``; ``(problem, h, N)``."""
    from reach.analysis.compare.mujoco import mujoco_data
    from reach.models.mujoco import impact_from_mujoco
    from reach.tools.simulators import quadruped_touchdown

    model, qpos, qvel, _ = quadruped_touchdown()
    return impact_from_mujoco(model, mujoco_data(model, qpos, qvel)).problem, 1.0, 10


def _timed(run, batches):
    """Median wall and CPU seconds per item over ``batches`` (list of (start, stop)) of ``run(start, stop)``."""
    wall, cpu = [], []
    for start, stop in batches:
        t, c = time.perf_counter(), time.process_time()
        run(start, stop)
        wall.append((time.perf_counter() - t) / (stop - start))
        cpu.append((time.process_time() - c) / (stop - start))
    return float(np.median(wall)), float(np.median(cpu))


def _reach_forms(rec, passes, batch, methods):
    """reach's verified step kernel on the recorded steps, once per Lemke form in ``methods``.

    The forms are timed in alternating batches (A B, then B A, ...), so that
    drift of a shared machine's speed falls on both alike.  Returns one
    (result dict, v') per form.
    """
    from reach.kernels.replay import solve_steps

    K = rec.V.shape[0]
    runs, out = [], []
    for method in methods:
        V_next, status = np.empty_like(rec.V), np.empty(K, dtype=np.int64)
        options = rec.options._replace(lemke=rec.options.lemke._replace(method=method))
        args = (rec.data, options, rec.work, rec.V, rec.lam, rec.d)
        pivots = solve_steps(*args, 0, K, V_next, status)
        runs.append(lambda a, b, args=args, V_next=V_next, status=status: solve_steps(*args, a, b, V_next, status))
        out.append((dict(pivots=pivots / K, solved=float(np.mean(status == 0))), V_next))
    times = [([], []) for _ in methods]
    for p in range(passes):
        for a in range(0, K, batch):
            order = range(len(methods)) if (p + a // batch) % 2 == 0 else reversed(range(len(methods)))
            for i in order:
                wall, cpu = _timed(runs[i], [(a, min(K, a + batch))])
                times[i][0].append(wall)
                times[i][1].append(cpu)
    for (result, _), (wall, cpu) in zip(out, times):
        result.update(wall_us=1e6 * float(np.median(wall)), cpu_us=1e6 * float(np.median(cpu)))
    return out


_LOOP = []


def _quantecon_loop():
    """A jitted loop calling QuantEcon's Lemke on recorded LCPs (compiled once per process, on first use)."""
    if _LOOP:
        return _LOOP[0]
    from quantecon.optimize import lcp_lemke

    @nb.njit
    def loop(W, Q, D, start, stop, Z, success, iters, max_iter):
        for k in range(start, stop):
            res = lcp_lemke(W, Q[k], D[k], max_iter)
            Z[k] = res.z
            success[k] = res.success
            iters[k] = res.num_iter
    _LOOP.append(loop)
    return loop


def _quantecon(problem, rec, passes, batch):
    """QuantEcon's Lemke on the same LCPs (W, w, covering vector) as the recorded steps, with reach's pivot limit."""
    from reach.problem.step import max_pivots

    g = problem.mass_scale
    W = np.ascontiguousarray(problem.W)
    Q = np.array([problem.routh_w(rec.V[k], rec.lam[k] / g) for k in range(rec.V.shape[0])])
    K, n = Q.shape
    Z, success, iters = np.empty((K, n)), np.zeros(K, dtype=np.bool_), np.zeros(K, dtype=np.int64)
    loop = _quantecon_loop()
    limit = max_pivots(problem)  # the pivot limit reach's own solves have
    loop(W, Q, rec.d, 0, K, Z, success, iters, limit)
    batches = [(a, min(K, a + batch)) for _ in range(passes) for a in range(0, K, batch)]
    wall, cpu = _timed(lambda a, b: loop(W, Q, rec.d, a, b, Z, success, iters, limit), batches)
    m, nb_ = problem.m, problem.Jbar.shape[0]
    V = rec.V + Z[:, m:m + nb_] @ problem.Minv_JbarT.T
    return dict(wall_us=1e6 * wall, cpu_us=1e6 * cpu, pivots=float(np.mean(iters)),
                solved=float(np.mean(success))), V


def _sample_rate(problem, h, N, n):
    from reach import sample_post_impact_set

    sample_post_impact_set(problem, 256, h, N, completeness=False)
    t, c = time.perf_counter(), time.process_time()
    result = sample_post_impact_set(problem, n, h, N, completeness=False)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return dict(samples_per_s_wall=n / wall, samples_per_s_cpu=n / cpu, lcps_per_sample=float(np.mean(result.lcp_solves)))


def _problems(log):
    out = [(f"planar, m = {m}", "planar", *disc_row(m)) for m in range(1, 9)]
    if importlib.util.find_spec("mujoco") is None:
        log("scaling: spatial problems skipped (pip install 'reach[mujoco]')")
        return out
    out += [(f"3-D block, k = {k}", "spatial", *spatial_block(k)) for k in (4, 8, 16)]
    out.append(("quadruped touchdown, k = 8", "robot", *quadruped()))
    return out


def run_scaling(quick=False, *, log=print):
    """Measure every problem (see the module docstring); returns a JSON-able report."""
    from reach.tools.bench import Recorded

    from reach.kernels.lcp import AUTO, TABLEAU

    cfg = _MODES[bool(quick)]
    peer = importlib.util.find_spec("quantecon") is not None
    if not peer:
        log("scaling: QuantEcon not installed (pip install quantecon): no peer column")
    rows = []
    for label, family, problem, h, N in _problems(log):
        rec = Recorded(SimpleNamespace(problem=problem, h=h, N=N), cfg["record"])
        (ours, V), (before, V_tableau) = _reach_forms(rec, cfg["passes"], cfg["batch"], (AUTO, TABLEAU))
        scale = max(float(np.abs(rec.V).max()), 1e-300)
        before["max_v_diff"] = float(np.abs(V_tableau - V).max() / scale)
        row = dict(problem=label, family=family, n=int(problem.lcp_size), m=int(problem.m), steps=int(rec.V.shape[0]),
                   reach=ours, tableau=before, sampling=_sample_rate(problem, h, N, cfg["samples"]))
        if peer:
            theirs, V_qe = _quantecon(problem, rec, cfg["passes"], cfg["batch"])
            both = np.isfinite(V_qe).all(axis=1)
            scale = max(float(np.abs(rec.V).max()), 1e-300)
            theirs["max_v_diff"] = float(np.abs(V_qe[both] - V[both]).max(initial=0.0) / scale)
            row["quantecon"] = theirs
        rows.append(row)
        log(f"scaling: {label} (n = {row['n']}): {ours['cpu_us']:.2f} us CPU per step")
    from reach.tools.bench import machine_info

    return {"mode": "quick" if quick else "full", "machine": machine_info(), "rows": rows}


def format_scaling(report):
    """The report as a Markdown table."""
    peer = any("quantecon" in r for r in report["rows"])
    head = ("| problem | n | pivots | µs/LCP (CPU) | µs/LCP (wall) | dense tableau µs/LCP (CPU) | tableau × reach "
            "| samples/s per core (CPU) | LCPs/sample |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    if peer:
        head += " QuantEcon µs/LCP (CPU) | QuantEcon pivots | QuantEcon solved | reach × QuantEcon |"
        rule += "---:|---:|---:|---:|"
    lines = [head, rule]
    for r in report["rows"]:
        ours, s = r["reach"], r["sampling"]
        old = r.get("tableau", {"cpu_us": np.nan})
        line = (f"| {r['problem']} | {r['n']} | {ours['pivots']:.1f} | {ours['cpu_us']:.2f} | {ours['wall_us']:.2f} | "
                f"{old['cpu_us']:.2f} | {old['cpu_us'] / ours['cpu_us']:.2f}× | "
                f"{s['samples_per_s_cpu']:,.0f} | {s['lcps_per_sample']:.2f} |")
        if peer:
            q = r["quantecon"]
            line += (f" {q['cpu_us']:.2f} | {q['pivots']:.1f} | {100 * q['solved']:.1f} % | "
                     f"{q['cpu_us'] / ours['cpu_us']:.2f}× |")
        lines.append(line)
    machine = report["machine"]
    lines.append(f"\n({report['mode']} mode; {machine['cpu']}, {machine['cores']} cores, load "
                 f"{machine['load_average_1min']:.2f}; medians over batches of recorded steps.)\n")
    lines.extend(_verdicts(report["rows"]))
    return "\n".join(lines)


def _verdicts(rows):
    """One line per target of :data:`TARGETS` whose row (and peer) this report measured."""
    by_name = {r["problem"]: r for r in rows}
    lines = []
    for name, what, bound, at_least in TARGETS:
        r = by_name.get(name)
        if r is None or ("QuantEcon" in what and "quantecon" not in r):
            continue
        if "QuantEcon" in what:
            value, text = r["quantecon"]["cpu_us"] / r["reach"]["cpu_us"], "{:.2f}×"
        elif "samples/s" in what:
            value, text = r["sampling"]["samples_per_s_cpu"], "{:,.0f}"
        else:
            value, text = r["reach"]["cpu_us"], "{:.2f}"
        met = value >= bound if at_least else value <= bound
        lines.append(f"- [{'met' if met else 'MISSED'}] {name}: {text.format(value)} {what} "
                     f"({'≥' if at_least else '≤'} {text.format(bound)}, issue 14)")
    return lines


def plot_scaling(report, path):
    """µs per LCP (CPU) against n, planar and spatial, with QuantEcon's when measured."""
    import matplotlib.pyplot as plt

    from reach.plotting.files import save_figure

    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    for family, marker in (("planar", "o"), ("spatial", "s"), ("robot", "*")):
        rows = sorted((r for r in report["rows"] if r["family"] == family), key=lambda r: r["n"])
        if not rows:
            continue
        n = [r["n"] for r in rows]
        what = {"planar": "planar (disc row, m = 1..8)", "spatial": "3-D block (k = 4, 8, 16)",
                "robot": "quadruped (k = 8)"}[family]
        line = ax.loglog(n, [r["reach"]["cpu_us"] for r in rows], marker + "-", ms=9 if marker == "*" else 6,
                         label=f"reach, {what}")[0]
        if all("tableau" in r for r in rows):
            ax.loglog(n, [r["tableau"]["cpu_us"] for r in rows], marker + ":", color=line.get_color(), alpha=0.6,
                      ms=9 if marker == "*" else 6, label=f"reach's dense tableau, {what}")
        if all("quantecon" in r for r in rows):
            ax.loglog(n, [r["quantecon"]["cpu_us"] for r in rows], marker + "--", mfc="none", color=line.get_color(),
                      ms=9 if marker == "*" else 6, label=f"QuantEcon Lemke, {what}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("LCP size n")
    ax.set_ylabel("µs per Routh-step LCP (CPU time, median)")
    ax.set_title("Cost per LCP against its size")
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.legend(fontsize=8)
    return save_figure(fig, path)
