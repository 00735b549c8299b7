"""The paper's Fig. 8: the Zeno rocking block in t and in s (:mod:`reach.analysis.zeno` computes it)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_zeno"]


def plot_zeno(result, path=None):
    """Draw the paper's Fig. 8 from a :func:`zeno_block` result.

    Three panels: θ and θ̇ against t(s); θ and θ̇ against s; the rates ṫ,
    dΛn,A/ds, dΛn,B/ds against s.  Dashed verticals mark t* and s*.

    Parameters
    ----------
    result : ZenoTrajectory
    path : str or path-like, optional
        Where to save the figure (format from the suffix).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(17, 4.6), layout="constrained")
    fig.get_layout_engine().set(w_pad=0.12, wspace=0.06)
    for ax, x, label, star in ((axes[0], result.t, "time $t(s)$ [s]", result.accumulation_time),
                               (axes[1], result.s, "$s$ [s]", result.accumulation_s)):
        ax.plot(x, result.theta, color="C0", lw=1.4, label=r"$\theta$")
        ax.set_ylabel(r"block angle $\theta$ [rad]", color="C0")
        ax.axhline(0.0, color="0.8", lw=0.8)
        ax.axvline(star, color="0.4", ls="--", lw=0.9)
        twin = ax.twinx()
        twin.plot(x, result.theta_dot, color="C3", lw=1.2, label=r"$\dot\theta$")
        twin.set_ylabel(r"angular rate $\dot\theta$ [rad/s]", color="C3")
        # Align zero on both axes.
        lim = np.max(np.abs(result.theta)) * 1.1
        ax.set_ylim(-lim, lim)
        rlim = np.max(np.abs(result.theta_dot)) * 1.1
        twin.set_ylim(-rlim, rlim)
        ax.set_xlabel(label)
        lines = ax.get_lines()[:1] + twin.get_lines()
        ax.legend(lines, [ln.get_label() for ln in lines], loc="upper right", fontsize=9)
    axes[0].set_title(f"$t(s)$-domain trajectory ($t^* \\approx {result.accumulation_time:.3f}$ s)")
    axes[1].set_title(f"$s$-domain trajectory ($s^* \\approx {result.accumulation_s:.2f}$)")
    ax = axes[2]
    ax.plot(result.s, result.t_rate, color="C0", lw=1.2, label=r"$\dot t$")
    ax.plot(result.s, result.lambda_a, color="C1", lw=1.0, label=r"$\lambda_{n,A} = d\Lambda_{n,A}/ds$")
    ax.plot(result.s, result.lambda_b, color="C2", lw=1.0, ls="--", label=r"$\lambda_{n,B} = d\Lambda_{n,B}/ds$")
    ax.axvline(result.accumulation_s, color="0.4", ls="--", lw=0.9)
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel("$s$ [s]")
    ax.set_ylabel("accumulation rate (per unit $s$)")
    ax.set_title("time and impulse accumulation rates")
    ax.legend(loc="center left", fontsize=9, framealpha=0.95)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
