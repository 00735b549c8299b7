"""`reach figures --quick`: every expected file, each a non-blank image of the expected size.

The fixture runs the README's first step ``reach figures --quick`` as written (:mod:`first_steps`), in a
scratch folder: the README's test leaves that step to it, so that CI runs it once.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from reach.tools.figures import FIGURE_DPI, FIGURE_FILES  # noqa: E402

WIDTH_INCHES = 16  # every figure of reach figures is 16 in wide (Figs. 8 and 12: their own sizes)


@pytest.fixture(scope="module")
def quick_figures(tmp_path_factory):
    """What the README's ``reach figures --quick`` writes: its folder, ``results/figures``."""
    from first_steps import RUN_BY_THE_FIGURES_TESTS, arguments, the_step
    from reach.tools.cli import main

    command = the_step(RUN_BY_THE_FIGURES_TESTS)
    assert "--quick" in command, command
    folder = tmp_path_factory.mktemp("figures")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main(arguments(command)) == 0, f"`{' '.join(command)}` failed"
    return folder / "results" / "figures"


def test_every_scenario_figure_is_a_non_blank_png_and_pdf_of_the_expected_size(quick_figures):
    dpi = FIGURE_DPI[True]
    for stem in FIGURE_FILES.values():
        png, pdf = quick_figures / f"{stem}.png", quick_figures / f"{stem}.pdf"
        assert png.exists() and pdf.exists(), stem
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 10_000
        image = mpimg.imread(png)
        assert image.shape[1] == WIDTH_INCHES * dpi, stem
        assert image.shape[0] >= 9 * dpi, stem  # two rows of panels at least
        assert np.var(image[..., :3]) > 1e-3, stem
    # The disk stack has a third row (left vs right normals, then contacts A, C, E).
    assert mpimg.imread(quick_figures / "fig14-disk-stack.png").shape[0] > \
        mpimg.imread(quick_figures / "fig09-rocking-block.png").shape[0]


def test_table3_lists_every_scenario_beside_the_paper(quick_figures):
    text = (quick_figures / "table3.md").read_text(encoding="utf-8")
    for title, paper_lcps in [("Rocking block", "2.67"), ("Compass gait", "2.27"), ("Box and wall", "1.97"),
                              ("RAMone footfall", "3.20"), ("Disk stack", "9.04")]:
        row = next(line for line in text.splitlines() if line.startswith(f"| {title} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == "2^11" and int(cells[2]) >= 1
        assert cells[4].endswith(f"· {paper_lcps}")
        assert "µs" in cells[5] or "ms" in cells[5]


def test_figures_8_and_12_when_their_modules_exist(quick_figures):
    for stem, module in (("fig08-zeno", "reach.analysis.zeno"), ("fig12-compliant", "reach.analysis.compare.compliant")):
        pytest.importorskip(module)
        image = mpimg.imread(quick_figures / f"{stem}.png")
        assert image.shape[0] > 100 and np.var(image[..., :3]) > 1e-4


def test_stewart_trinkle_figures_and_tables(quick_figures):
    for stem in ("st-fig02-rod", "st-fig03-05-rod", "st-fig06-collision", "st-fig07-08-balls"):
        image = mpimg.imread(quick_figures / f"{stem}.png")
        assert image.shape[0] > 200 and np.var(image[..., :3]) > 1e-4, stem
    text = (quick_figures / "stewart-trinkle.md").read_text(encoding="utf-8")
    # Every paper impact and the balls' collision measured at each h, one step and run.
    for title in ("Rocking block", "Compass gait", "Box and wall", "RAMone footfall", "Disk stack",
                  "Four balls hit the line"):
        rows = [line for line in text.splitlines() if line.startswith(f"| {title} |")]
        assert len(rows) == 6, title
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert float(cells[3]) < 0.05 and float(cells[6]) <= 1.0 + 1e-9  # near the set, no energy gain
    assert "| 0.02 | " in text and "19.4046" in text  # Table 1 beside the paper's


def test_through_time_figures(quick_figures):
    for stem in ("through-rimless-wheel", "through-rocking-block"):
        image = mpimg.imread(quick_figures / f"{stem}.png")
        assert image.shape[0] > 200 and np.var(image[..., :3]) > 1e-4, stem
    text = (quick_figures / "through.md").read_text(encoding="utf-8")
    assert "Rimless wheel" in text and "Largest |ω| over the first impact's: 1.0000, 0.7000, 0.4900" in text


def test_design_figures(quick_figures):
    for stem in ("sm-fig05-billiards", "design-sweeps"):
        image = mpimg.imread(quick_figures / f"{stem}.png")
        assert image.shape[0] > 200 and np.var(image[..., :3]) > 1e-4, stem
    text = (quick_figures / "design.md").read_text(encoding="utf-8")
    assert "the minimiser" in text and "| Disk stack |" in text and "## ramone" in text


def test_paper_only_draws_the_paper_figures_and_nothing_else(tmp_path, monkeypatch):
    import reach.tools.figures as figures

    def refuse(*args, **kwargs):
        raise AssertionError("paper_only drew a figure outside the paper")

    for name in ("make_stepping_figures", "make_through_figures", "make_design_figures", "make_simulator_figures"):
        monkeypatch.setattr(figures, name, refuse)
    monkeypatch.setattr(figures, "_compliant_figure", lambda *args: None)  # Fig. 12's sweeps: tested above
    saved = []

    def record(fig, out, stem, dpi, written, pdf=True):  # the figures are drawn, but not rendered: the
        saved.append(stem)                                # fixture's tests check the rendered ones
        written.append(out / f"{stem}.png")
        matplotlib.pyplot.close(fig)

    monkeypatch.setattr(figures, "_save", record)
    written = figures.make_figures(tmp_path, quick=True, paper_only=True, log=lambda *a: None)
    assert {p.name for p in written} >= {f"{stem}.png" for stem in FIGURE_FILES.values()} | {"table3.md"}
    assert sorted(saved) == sorted([*FIGURE_FILES.values(), "fig08-zeno"])


def test_reach_figures_says_when_a_first_run_compiles(tmp_path, monkeypatch, capsys):
    import contextlib

    import reach.tools.cli_figures as cli_figures
    import reach.tools.figures as figures
    from reach.tools.cli import main

    watched, made = [], []
    monkeypatch.setattr(cli_figures, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    monkeypatch.setattr(figures, "make_figures", lambda out, **kw: made.append(kw) or [])
    assert main(["figures", "--quick", "--only", "table3", "--out", str(tmp_path / "f")]) == 0
    assert watched == [{"enabled": True}] and made and made[0]["quick"]
