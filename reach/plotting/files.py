"""Writing a figure: save it, then close it (so long runs do not keep figures in memory)."""

from __future__ import annotations

__all__ = ["save_figure"]


def save_figure(fig, path, dpi=120):
    """Save ``fig`` to ``path`` at ``dpi`` and close it, even if saving fails; returns ``path``."""
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=dpi)
    finally:
        plt.close(fig)
    return path
