"""How long `reach run`'s figure takes to make and save, for each scenario; and, given two folders of its PNGs, where
they differ.

Each scenario's set (2,048 samples, seed 3, one core, no estimate) is drawn by
:func:`reach.plotting.plot_scenario_figure` and saved as ``reach run`` saves it
(110 dpi); the seconds of each part are printed.  Run it on two versions of the
code (a git worktree for the old one) and compare their PNGs with ``--compare``:
the rows and columns of the pixels that differ (the summary's line of µs a
sample is a timing, so it differs from run to run).  ``--layout``: in one
process, the CPU seconds of a whole drawing of each figure against its layout
alone (what the figure does before it places its summary), alternating,
medians of 6.

    PYTHONPATH=. python bench/figure_time.py --out /tmp/new
    PYTHONPATH=/path/to/old/worktree python bench/figure_time.py --out /tmp/old
    python bench/figure_time.py --compare /tmp/old /tmp/new
    PYTHONPATH=. python bench/figure_time.py --layout
"""

import argparse
import time
from pathlib import Path

import numpy as np

SCENARIOS = ("rocking-block", "box-wall", "compass-gait", "ramone", "disk-stack")


def sets():
    """Each scenario and its set."""
    from reach import sample_post_impact_set
    from reach.tools.arguments import scenario_named

    for name in SCENARIOS:
        s = scenario_named(name, files=True)
        yield name, s, sample_post_impact_set(s.problem, 2048, s.h, s.N, n_jobs=1, completeness=False, seed=3)


def draw(out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from reach.plotting import plot_scenario_figure

    Path(out).mkdir(parents=True, exist_ok=True)
    for name, s, result in sets():
        t = time.perf_counter()
        fig = plot_scenario_figure(s, result, mirror=True)
        made = time.perf_counter() - t
        fig.savefig(Path(out) / f"{name}.png", dpi=110)
        plt.close(fig)
        print(f"{name}: figure {made:.2f} s, savefig {time.perf_counter() - t - made:.2f} s", flush=True)


def layout(repeats=6):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from reach.plotting import plot_scenario_figure

    for name, s, result in sets():
        seconds = {"drawing": [], "layout": []}
        for k in range(repeats):
            fig = plot_scenario_figure(s, result, mirror=True)
            for part in (("drawing", "layout") if k % 2 else ("layout", "drawing")):
                c = time.process_time()
                fig.canvas.draw() if part == "drawing" else fig.get_layout_engine().execute(fig)
                seconds[part].append(time.process_time() - c)
            plt.close(fig)
        print(f"{name}: a whole drawing {np.median(seconds['drawing']):.3f} s CPU, the layout alone "
              f"{np.median(seconds['layout']):.3f} s (medians of {repeats}, alternating)", flush=True)


def compare(a, b):
    import matplotlib.image as image

    for name in SCENARIOS:
        x, y = image.imread(Path(a) / f"{name}.png"), image.imread(Path(b) / f"{name}.png")
        if x.shape != y.shape:
            print(f"{name}: sizes differ, {x.shape} and {y.shape}")
            continue
        rows, cols = np.nonzero(np.any(x != y, axis=2))
        where = f"rows {rows.min()}-{rows.max()}, columns {cols.min()}-{cols.max()}" if len(rows) else "nowhere"
        print(f"{name}: {len(rows)} pixels differ ({where})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="folder for the PNGs")
    parser.add_argument("--compare", nargs=2, metavar="FOLDER", help="two folders of PNGs drawn by --out")
    parser.add_argument("--layout", action="store_true", help="a whole drawing against the layout alone")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.layout:
        layout()
    else:
        draw(args.out or "results/figure-time")


if __name__ == "__main__":
    main()
