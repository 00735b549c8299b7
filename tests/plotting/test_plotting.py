"""Tests of reach.plotting: region outlines, planes, degenerate results, `reach plot`."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import scenarios  # noqa: E402
from reach import ImpactProblem, sample_post_impact_set  # noqa: E402
from reach.plotting import (  # noqa: E402
    Baselines,
    outline_region,
    parse_axis,
    plot_contact_frame,
    plot_contact_plane,
    plot_result_planes,
    plot_scenario_figure,
    project,
)


@pytest.fixture(scope="module")
def block():
    s = scenarios.get("rocking-block")
    return s, sample_post_impact_set(s.problem, 1024, s.h, s.N, keep_paths=64)


@pytest.fixture(scope="module")
def box_wall():
    s = scenarios.get("box-wall")
    return s, sample_post_impact_set(s.problem, 4096, s.h, s.N, keep_paths=64)


def assert_non_blank(path):
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    assert np.var(image[..., :3]) > 1e-3


# ----------------------------------------------------------------------------- outline
def test_outline_contains_the_points_it_was_built_from_in_each_scenario_plane(box_wall):
    s, result = box_wall
    for axes in [("A.normal", "B.normal"), ("A.tangent", "A.normal"), ("B.tangent", "B.normal")]:
        xy = project(s.problem, result.velocities, axes)
        region = outline_region(xy)
        assert region.fraction_inside(xy) >= 0.99
        assert region.area > 0


def test_outline_area_shrinks_for_a_subset():
    rng = np.random.default_rng(1)
    pts = rng.uniform(0, 1, (20000, 2))
    pts = pts[np.linalg.norm(pts - 0.5, axis=1) < 0.5]
    full = outline_region(pts, scale=(1, 1), origin=(0, 0))
    half = outline_region(pts[pts[:, 0] < 0.5], scale=(1, 1), origin=(0, 0))
    random_subset = outline_region(pts[::7], scale=(1, 1), origin=(0, 0))
    assert full.fraction_inside(pts) >= 0.99
    assert half.area < 0.6 * full.area
    assert random_subset.area < full.area
    assert abs(full.area - np.pi / 4) < 0.05  # the disc's area, within the outline's padding


def test_outline_of_an_l_shaped_set_hugs_both_segments():
    # The rocking block's set: two segments on the axes; a convex hull would be a triangle.
    t = np.linspace(0, 1, 500)
    pts = np.vstack([np.c_[t, 0 * t], np.c_[0 * t, t]])
    region = outline_region(pts)
    assert region.fraction_inside(pts) == 1.0
    assert region.area < 0.05 * 0.5  # far below the triangle's 0.5
    assert not region.contains([[0.5, 0.5]])[0]


def test_outline_of_one_point_and_bad_input():
    region = outline_region([[0.1, -0.2]])
    assert region.fraction_inside([[0.1, -0.2]]) == 1.0
    with pytest.raises(ValueError, match="`points`"):
        outline_region(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="`points`"):
        outline_region([[np.nan, 0.0]])


# ----------------------------------------------------------------------------- planes
def test_parse_axis_names_the_valid_choices(block):
    s, _ = block
    assert parse_axis(s.problem, "B.tangent") == (1, 1)
    assert parse_axis(s.problem, "A.n") == (0, 0)
    with pytest.raises(ValueError, match="contacts are"):
        parse_axis(s.problem, "Z.normal")
    with pytest.raises(ValueError, match="normal, tangent"):
        parse_axis(s.problem, "A.sideways")


def test_plane_draws_every_layer_with_legend_and_units(block, tmp_path):
    s, result = block
    drawn = plot_contact_plane(result, ("A.normal", "B.normal"), mirror=s.mirror)
    try:
        labels = list(drawn.handles)
        assert any(k.startswith("post-impact region (area") for k in labels)
        assert "sequential, A first" in labels and "sequential, B first" in labels
        assert any(k.startswith("simultaneous") for k in labels)
        assert "pre-impact" in labels and "sampled paths" in labels
        assert drawn.ax.get_xlabel() == "normal velocity at A [m/s]"
        assert len(drawn.points) == 2 * len(result)  # mirror images added
        assert drawn.region.fraction_inside(drawn.points) >= 0.99
        drawn.ax.figure.savefig(tmp_path / "plane.png", dpi=50)
    finally:
        plt.close(drawn.ax.figure)
    assert_non_blank(tmp_path / "plane.png")


def test_result_with_a_single_outcome_does_not_crash(block, tmp_path):
    s, result = block
    from reach.sets.result import PostImpactSet

    one = PostImpactSet(result.problem, result.settings.replace(n_samples=1),
                        {name: a[:1] for name, a in result.arrays.items()}, result.paths[:1], result.metadata)
    for drawn in (plot_contact_plane(one, baselines=None), plot_contact_frame(one, "B")):
        drawn.ax.figure.savefig(tmp_path / "one.png", dpi=40)
        plt.close(drawn.ax.figure)
        assert drawn.region is not None and drawn.region.fraction_inside(drawn.points) == 1.0


def test_result_with_one_contact_does_not_crash(tmp_path):
    # A point mass hitting the floor at an angle: one contact (the set is Routh's single outcome).
    problem = ImpactProblem(np.eye(2), [[0.0, 1.0]], [[1.0, 0.0]], 0.3, [1.0, -1.0])
    result = sample_post_impact_set(problem, 64, 0.5, 10, keep_paths=8)
    drawn = plot_contact_frame(result, "A")
    drawn.ax.figure.savefig(tmp_path / "single.png", dpi=40)
    plt.close(drawn.ax.figure)
    with pytest.raises(ValueError, match="unknown contact 'B'"):
        plot_contact_plane(result, ("A.normal", "B.normal"))
    result.metadata["label"] = "point-mass"
    written = plot_result_planes(result, tmp_path / "planes")
    assert [p.name for p in written] == ["point-mass-contact-A.png"]
    assert_non_blank(written[0])


def test_empty_set_draws_paths_and_baselines_only(block):
    s, result = block
    from reach.sets.result import PostImpactSet

    empty = PostImpactSet(result.problem, result.settings, dict(result.arrays, kept=np.zeros_like(result.kept)),
                          result.paths, result.metadata)
    assert not empty.success and empty.status.name == "EMPTY" and "h = " in empty.message
    drawn = plot_contact_plane(empty, baselines=Baselines.compute(s.problem))
    plt.close(drawn.ax.figure)
    assert drawn.region is None


def test_reach_plot_writes_every_plane_and_the_scenario_figure(block, tmp_path):
    from reach.tools.cli import main

    s, result = block
    result.metadata["label"] = s.name
    path = result.save(tmp_path / "block.npz")
    assert main(["plot", str(path), "--out", str(tmp_path / "out")]) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(["rocking-block-normals-A-B.png", "rocking-block-contact-A.png",
                            "rocking-block-contact-B.png", "rocking-block-figure.png"])
    for p in (tmp_path / "out").iterdir():
        assert_non_blank(p)


def test_trajectory_plot_puts_linear_and_angular_velocities_on_panels_with_units():
    import scenarios
    from reach.laws.trajectory import simulate
    from reach.plotting.stepping import plot_trajectory

    sim = scenarios.lookup("spinning-rod", "simulation")
    trajectory = simulate(sim.system, sim.q0, sim.v0, 0.02, 0.5, progress=False)
    fig = plot_trajectory(trajectory, names=list(sim.model.coordinate_names), kinds=sim.model.coordinate_kinds)
    try:
        labels = [ax.get_ylabel() for ax in fig.axes]
        assert labels == ["linear velocity (m/s)", "angular velocity (rad/s)", "normal impulse per step (N s)"]
        assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["rod.theta"]
    finally:
        plt.close(fig)
    balls = scenarios.lookup("four-balls", "simulation").system
    assert balls.velocity_kinds[:6] == ("linear",) * 3 + ("angular",) * 3 and len(balls.velocity_names) == balls.nv


def test_sweep_plot_names_the_measure_and_the_parameter_with_its_unit():
    from reach.design import sweep
    from reach.plotting.design import plot_sweep

    result = sweep(scenarios.lookup("compass-gait", "design").build, {"stance_deg": [70.0, 78.0, 95.0]}, budget=64)
    assert np.isnan(result.values["diameter"][2])  # the hip below the ground: infeasible, never a value
    ax = plot_sweep(result, xlabel=scenarios.lookup("compass-gait", "design").describe("stance_deg"))
    try:
        assert ax.get_xlabel() == "each leg's angle from vertical at heel strike (deg)"
        assert ax.get_ylabel() == "diameter of the set (KE metric, / |p0|)"
    finally:
        plt.close(ax.figure)


def test_a_propagations_plot_gives_both_panels_the_coordinates_unit(tmp_path):
    """The spread panel's axis carries the unit the caller's label gives (it was unitless)."""
    from types import SimpleNamespace

    from reach.plotting.through import plot_propagation

    rng = np.random.default_rng(0)
    impacts = [SimpleNamespace(index=k, v=1.0 + 0.01 * k * rng.random((50, 3)), carried=np.arange(4))
               for k in (1, 2, 3)]
    fig = plot_propagation(SimpleNamespace(impacts=impacts), 0, "hip forward velocity (m/s)")
    top, bottom = fig.axes[:2]
    assert top.get_ylabel() == "hip forward velocity (m/s)"
    assert bottom.get_ylabel() == "spread of the set, max - min (m/s)"
    spreads = bottom.get_lines()[0].get_ydata()
    np.testing.assert_allclose(spreads, [np.ptp(r.v[:, 0]) for r in impacts])
    fig.savefig(tmp_path / "p.png")
    plt.close(fig)
    assert_non_blank(tmp_path / "p.png")


def test_the_scenario_figure_puts_its_summary_below_its_legend_as_saved(block, tmp_path):
    s, result = block
    fig = plot_scenario_figure(s, result, mirror=True)
    try:
        fig.savefig(tmp_path / "figure.png", dpi=60)  # a whole drawing: the layout as saved
        panel = fig.axes[2]
        renderer = fig.canvas.get_renderer()
        legend = panel.get_legend().get_window_extent(renderer)
        summary = panel.texts[-1].get_window_extent(renderer)
        assert "samples" in panel.texts[-1].get_text() and summary.height > 0
        assert summary.y1 < legend.y0  # below it, never over it ...
        # ... and just below: 3 % of the panel, as placed on the panels' final layout (not on where they stood first)
        assert (legend.y0 - summary.y1) / panel.get_window_extent(renderer).height == pytest.approx(0.03, abs=0.005)
        assert summary.x0 == pytest.approx(legend.x0, abs=0.05 * legend.width)  # in the legend's column
    finally:
        plt.close(fig)
