"""Figures of sets through many impacts: one velocity coordinate at each impact, and the set's spread."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_propagation"]


def plot_propagation(propagation, coordinate, label, *, classical=None, reference=None, title=None):
    """The post-impact values of velocity ``coordinate`` at each impact, and their spread against the impact number.

    Parameters
    ----------
    propagation : Propagation
    coordinate : int
        Index into v.
    label : str
    classical : Propagation, optional
        The same start under a single-outcome law, drawn as a line.
    reference : dict of str -> float or array, optional
        Horizontal reference lines (a scalar) or per-impact values (an array), by label.
    """
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 8.5), sharex=True, layout="constrained",
                                      height_ratios=[1.6, 1.0])
    spread = []
    rng = np.random.default_rng(0)
    for record in propagation.impacts:
        values = record.v[:, coordinate]
        x = record.index + rng.uniform(-0.18, 0.18, len(values))
        top.scatter(x, values, s=3, color="0.55", rasterized=True, zorder=2)
        top.scatter(np.full(len(record.carried), record.index), values[record.carried], s=28, facecolor="white",
                    edgecolor="black", lw=1.0, zorder=3)
        spread.append(np.ptp(values))
    top.scatter([], [], s=10, color="0.55", label="every sampled outcome (jittered in x)")
    top.scatter([], [], s=28, facecolor="white", edgecolor="black", label="states carried to the next impact")
    if classical is not None:
        ks = [r.index for r in classical.impacts]
        top.plot(ks, [r.v[0, coordinate] for r in classical.impacts], "s-", color="#d62728", lw=1.5, ms=6,
                 label="classical single-outcome law", zorder=4)
    for name, value in (reference or {}).items():
        if np.ndim(value) == 0:
            top.axhline(value, color="#1f5fbf", ls="--", lw=1.2, label=name)
        else:
            top.plot(np.arange(1, len(value) + 1), value, ls="--", color="#1f5fbf", lw=1.2, label=name)
    top.set_ylabel(label)
    top.grid(alpha=0.3)
    top.legend(fontsize=9, loc="best")
    top.set_title(title or "The set of post-impact states at each impact")
    ks = np.arange(1, len(spread) + 1)
    positive = np.array(spread) > 0
    bottom.semilogy(ks[positive], np.array(spread)[positive], "o-", color="black")
    scale = max(float(np.max(np.abs(r.v[:, coordinate]))) for r in propagation.impacts)
    bottom.axhline(1e-9 * scale, color="0.5", ls=":", lw=1.0,
                   label="1e-9 of the largest value: below it, one outcome to round-off")
    bottom.legend(fontsize=9, loc="best")
    if not positive.all():
        bottom.plot(ks[~positive], np.full((~positive).sum(), bottom.get_ylim()[0] if positive.any() else 1e-16),
                    "v", color="0.4", label="a single outcome")
        bottom.legend(fontsize=9)
    unit = label[label.rfind("("):] if label.endswith(")") else ""  # the coordinate's unit, as "(m/s)"
    bottom.set_ylabel(f"spread of the set, max - min {unit}".rstrip())
    bottom.set_xlabel("impact")
    bottom.grid(alpha=0.3, which="both")
    bottom.set_xticks(ks)
    return fig
