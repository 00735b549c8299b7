"""Pictures of post-impact sets: contact-frame planes and the paper's figures (section 5.4).

A leaf of the package: it imports the core, the core never imports it, and
matplotlib is imported only inside the drawing functions.

* :func:`plot_contact_plane` -- one plane, e.g. normal(A) vs normal(B):
  sampled paths (light grey), outcomes (dark points) inside their outlined
  region (area reported), sequential and simultaneous baselines, the
  pre-impact point.
* :func:`plot_contact_frame` -- tangential vs normal velocity of one contact.
* :func:`outline_region` -- the alpha-shape outline behind the region.
* :func:`plot_scenario_figure` -- the paper-style multi-panel figure of a scenario.
* :func:`plot_result_planes` -- every plane of a saved result as files (``reach plot``).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import scenarios
>>> from reach import sample_post_impact_set
>>> from reach.plotting import plot_contact_plane
>>> s = scenarios.get("rocking-block")
>>> result = sample_post_impact_set(s.problem, 256, s.h, s.N, keep_paths=64)
>>> drawn = plot_contact_plane(result, ("A.normal", "B.normal"))
>>> drawn.region.fraction_inside(drawn.points)
1.0
"""

from reach.plotting.layout import figure_planes, pick_outcome, plot_result_planes, plot_scenario_figure
from reach.plotting.planes import (
    STYLE,
    Baselines,
    PlanePlot,
    axis_label,
    parse_axis,
    plot_contact_frame,
    plot_contact_plane,
    project,
)
from reach.plotting.region import Region, outline_region

__all__ = [
    "STYLE",
    "Baselines",
    "PlanePlot",
    "Region",
    "axis_label",
    "figure_planes",
    "outline_region",
    "parse_axis",
    "pick_outcome",
    "plot_contact_frame",
    "plot_contact_plane",
    "plot_result_planes",
    "plot_scenario_figure",
    "project",
]
