"""Tests of reach.plotting.drawing: every scenario renders a readable, non-blank configuration panel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import scenarios  # noqa: E402
from reach.plotting.drawing import draw_configuration  # noqa: E402


@pytest.mark.parametrize("name", scenarios.names())
def test_each_scenario_renders_a_non_blank_png_with_labelled_contacts(name, tmp_path):
    scenario = scenarios.get(name)
    ax = draw_configuration(scenario)
    try:
        texts = [t.get_text() for t in ax.texts]
        for label in scenario.contact_labels:
            assert label in texts
        # the pre-impact velocity arrow's label, with its speed
        speed = np.linalg.norm(scenario.model.point_jacobian(scenario.q, *scenario.arrows[0][:2]) @ scenario.v)
        assert f"$v = {speed:.2f}\\,\\mathrm{{m/s}}$" in texts
        assert ax.get_aspect() == 1.0
        path = tmp_path / f"{name}.png"
        ax.figure.savefig(path, dpi=60)
    finally:
        plt.close(ax.figure)
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    assert np.var(image[..., :3]) > 0


def test_after_impact_arrows_are_drawn_to_the_pre_impact_scale():
    """Before and after panels compare: the after-arrow's length is its speed over the pre-impact speed."""
    scenario = scenarios.get("compass-gait")
    slower = 0.5 * scenario.v
    lengths = []
    for velocity, reference in ((None, None), (slower, scenario.v), (slower, None)):
        ax = draw_configuration(scenario, velocity=velocity, reference=reference)
        try:
            (ann,) = [t for t in ax.get_children() if type(t).__name__ == "Annotation"]
            lengths.append(float(np.linalg.norm(np.subtract(ann.xy, ann.xyann))))
        finally:
            plt.close(ax.figure)
    assert lengths[1] == pytest.approx(0.5 * lengths[0], rel=1e-9)  # half the speed, half the arrow
    assert lengths[2] == pytest.approx(lengths[0], rel=1e-9)  # without the reference: normalized, as before


def test_draw_into_given_axes_without_labels_or_arrows():
    scenario = scenarios.get("disk-stack")
    fig, axes = plt.subplots(1, 2)
    try:
        ax = draw_configuration(scenario, axes[1], velocity=False, label_contacts=False, title="")
        assert ax is axes[1]
        assert len(ax.texts) == 0 and ax.get_title() == ""
        draw_configuration(scenario, axes[0], velocity=np.zeros(scenario.nv))
        assert "$v$" not in [t.get_text() for t in axes[0].texts]
    finally:
        plt.close(fig)


def test_core_modules_do_not_import_matplotlib():
    code = ("import sys, scenarios, reach.models.planar; [scenarios.get(n) for n in scenarios.names()]; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(Path(__file__).parents[2]))
