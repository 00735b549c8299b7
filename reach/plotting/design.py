"""Figures of design sweeps: measures of the set against a design parameter."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_sweep", "plot_billiards", "MEASURE_LABELS"]

#: What each measure of :mod:`reach.design` is, with its metric and scale: an axis label, and a printed table's key.
MEASURE_LABELS = {"diameter": "diameter of the set (KE metric, / |p0|)",
                  "spread": "spread of the set (KE metric, / |p0|)",
                  "xi": "Seghete-Murphey xi (elastic orders)", "max_cosine": "largest normal cosine (M^-1 metric)"}


def plot_sweep(sweep, *, title=None, x=None, ax=None, xlabel=None):
    """Each measure of a one-parameter sweep against that parameter (a second parameter: one line per value).

    ``xlabel`` names the parameter with its unit (default: its name).  The
    y-axis names the measure (several measures: "measure of the set", each
    named in the legend).  Infeasible points (NaN) leave gaps.
    """
    import matplotlib.pyplot as plt

    names = sweep.names
    x = names[0] if x is None else x
    others = [n for n in names if n != x]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.8), layout="constrained")
    xs = np.array([p[x] for p in sweep.params])
    groups = sorted({tuple(p[o] for o in others) for p in sweep.params})
    for measure, values in sweep.values.items():
        for g in groups:
            sel = np.array([tuple(p[o] for o in others) == g for p in sweep.params])
            label = MEASURE_LABELS.get(measure, measure) + ("" if not others else
                                                     " (" + ", ".join(f"{o} = {v:g}" for o, v in zip(others, g)) + ")")
            ax.plot(xs[sel], values[sel], "o-", ms=4, lw=1.4, label=label)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel(xlabel or x)
    measures = list(sweep.values)
    ax.set_ylabel(MEASURE_LABELS.get(measures[0], measures[0]) if len(measures) == 1
                  else "measure of the set (see legend)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return ax


def plot_billiards(theta, xi, diameter, cosine):
    """Seghete & Murphey's Fig. 5 (xi against theta) with the Halm-Posa set's diameter on the same axes."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.2), layout="constrained")
    ax.plot(theta, 100 * np.asarray(xi), "-", color="#1f5fbf", lw=2.0,
            label="Seghete-Murphey xi, elastic (their Fig. 5): orders ab and ba differ")
    ax.plot(theta, 100 * np.asarray(diameter), "o-", color="#d62728", ms=3.5, lw=1.4,
            label="Halm-Posa set (inelastic, frictionless): its diameter")
    for t, name in ((np.pi / 2, "pi/2"), (np.pi, "pi")):
        ax.axvline(t, color="0.5", ls=":", lw=1.0)
        ax.annotate(name, (t, ax.get_ylim()[1]), ha="right", va="top", fontsize=9, color="0.3")
    ax2 = ax.twinx()
    ax2.plot(theta, cosine, color="0.45", ls="--", lw=1.0, label="cosine between the normals (M^-1 metric)")
    ax2.axhline(0.0, color="0.75", lw=0.8)
    ax2.set_ylabel("cosine between the contact normals")
    ax.set_xlabel("theta: angle between the lines of centres c-a and c-b (rad)")
    ax.set_ylabel("indeterminacy, % of |p0| (KE metric)")
    lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + ax2.get_legend_handles_labels()[1]
    ax.legend(lines, labels, fontsize=9, loc="upper right")
    ax.grid(alpha=0.3)
    ax.set_title("Billiard break: where is the outcome predictable?")
    return fig
