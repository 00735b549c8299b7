"""Pictures of post-impact sets: contact-frame planes and the paper's figures (section 5.4).

Everything in reach that draws is here, and nothing here computes physics:
it imports the core and the analyses, they never import it, and matplotlib is
imported only inside the drawing functions.

* :func:`plot_contact_plane` -- one plane, e.g. normal(A) vs normal(B):
  sampled paths (light grey), outcomes (dark points) inside their outlined
  region (area reported), sequential and simultaneous baselines, the
  pre-impact point.
* :func:`plot_contact_frame` -- tangential vs normal velocity of one contact.
* :func:`outline_region` -- the alpha-shape outline behind the region.
* :func:`plot_scenario_figure` -- the paper-style multi-panel figure of a scenario.
* :func:`plot_result_planes` -- every plane of a saved result as files (``reach plot``).
* :func:`draw_configuration` -- a scenario's bodies and contacts (``reach show``).
* :func:`plot_zeno` (Fig. 8), :func:`plot_compliant` (Fig. 12), and the MuJoCo
  comparison plots :func:`plot_comparison` and :func:`plot_contact_planes`.

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

from reach.analysis.baselines import Baselines
from reach.plotting.compliant import plot_compliant
from reach.plotting.drawing import draw_configuration
from reach.plotting.layout import (figure_planes, pick_outcome, plot_result_figure, plot_result_planes,
                                   plot_scenario_figure)
from reach.plotting.mujoco import plot_comparison, plot_contact_planes
from reach.plotting.planes import (
    STYLE,
    PlanePlot,
    axis_label,
    parse_axis,
    plot_contact_frame,
    plot_contact_plane,
    project,
)
from reach.plotting.region import Region, outline_region
from reach.plotting.zeno import plot_zeno

__all__ = [
    "STYLE",
    "Baselines",
    "PlanePlot",
    "Region",
    "axis_label",
    "draw_configuration",
    "plot_comparison",
    "plot_compliant",
    "plot_contact_planes",
    "plot_zeno",
    "figure_planes",
    "outline_region",
    "parse_axis",
    "pick_outcome",
    "plot_contact_frame",
    "plot_contact_plane",
    "plot_result_figure",
    "plot_result_planes",
    "plot_scenario_figure",
    "project",
]
