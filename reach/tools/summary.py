"""The text table ``reach run`` prints: :meth:`PostImpactSet.summary`, how auto chose, and what the uniqueness check found."""

from __future__ import annotations

__all__ = ["format_summary", "print_coverage", "print_adaptive", "percent"]


def format_summary(summary, title):
    """A readable text table of :meth:`PostImpactSet.summary`."""
    lines = [title, "=" * len(title)]
    t_s = summary["time_per_sample"]
    t_l = summary["time_per_lcp"]
    lines.append(f"samples            {summary['samples']:>12,d}")
    lines.append(f"kept (in the set)  {summary['kept']:>12,d}")
    lines.append(f"terminated in N    {summary['terminated_fraction']:>12.2%}")
    lines.append(f"failed samples     {summary['failed_samples']:>12,d}")
    lines.append(f"LCPs per sample    {summary['lcps_per_sample']:>12.2f}")
    if t_s is not None:
        lines.append(f"time per sample    {t_s * 1e6:>10.2f} us   wall clock over all workers, start-up included")
    if t_l is not None:
        lines.append(f"time per LCP       {t_l * 1e6:>10.2f} us   the same, per LCP")
    t_k = summary.get("kernel_time_per_sample")
    if t_k is not None:
        lines.append(f"kernel per sample  {t_k * 1e6:>10.2f} us   one core's time in the sampling kernels")
    lines.append(f"worst residual     {summary['worst_residual']:>12.1e}")
    lines.append(f"status             {summary['status']:>12}")
    lines.append(f"  {summary['message']}")
    c = summary.get("completeness")
    if c and c["kept"]:
        lines.append(f"completeness       held-out search of {c['samples']:,d} samples: farthest at least "
                     f"{c['max']:.2e} m/s ({c['max_fraction']:.2%} of |vn0|), 99 % within {c['p99_fraction']:.2%},")
        lines.append(f"                   {c['outside_2pct']:.2%} farther than 2 % of |vn0|")
        if c.get("search_samples"):  # absent from results saved before the climb
            lines.append(f"                   farthest by a climb of {c['search_samples']:,d} samples from the held-out "
                         f"search's farthest ({c['held_out_max_fraction']:.2%})")
        if c.get("cells"):
            lines.append(f"                   the set's cells missed by more than 2 % of |vn0|: about "
                         f"{c['cells_missed']:.2%} ({c['cells_far']:,d} of {c['cells']:,d} held-out cells, "
                         f"{c['cells_unseen']:,.0f} unreached estimated)")
    lines += _auto_choice_lines(summary.get("auto_choice"))
    lines += _uniqueness_lines(summary.get("uniqueness"))
    if not summary["kept"]:
        return "\n".join(lines)
    lines.append("")
    lines.append(f"contact   lift-off   slide    stick     (tolerance {summary['tolerance']:.1e} m/s)")
    for name, c in summary["contacts"].items():
        lines.append(f"{name:<9} {c['lift_off']:>8.1%} {c['slide']:>8.1%} {c['stick']:>8.1%}")
    return "\n".join(lines)


def _auto_choice_lines(why):
    """Why ``--choice auto`` took the choice it took, where a probe decided (:func:`reach.sampling.choice.auto_choice`)."""
    probe = (why or {}).get("probe")
    if not probe:
        return []
    pad = " " * 19
    if probe["split"]:
        return [f"choice (auto)      random: at {probe['split']:,d} of {probe['steps']:,d} probed steps "
                "random covering vectors reached", f"{pad}outcomes the covering vector of ones does not"]
    bound = probe.get("split_upper")  # absent from results saved before the bound was recorded
    lines = [f"choice (auto)      first: at none of {probe['steps']:,d} probed steps did random covering vectors reach",
             f"{pad}an outcome the covering vector of ones does not (the same outcomes, on shorter paths)"]
    if bound is not None:
        lines.append(f"{pad}a sample, not a proof: at most {bound:.1%} of steps split (95 % upper bound)")
    return lines


def _uniqueness_lines(u):
    """What :func:`reach.analysis.uniqueness.choice_check` found, for a set drawn with random or first choice."""
    if not u:
        return []
    how = {"modes": "contact modes", "bases": "complementary bases",
           "walk": "walks from Lemke's solution: a lower bound"}[u["method"]]
    if not u["nonunique_steps"]:
        return [f"non-unique steps   none of {u['steps']:,d} sampled steps has more than one outcome ({how})"]
    pick = (f"{u['unreached_fraction']:.0%} of their outcomes no random covering vector reached (8 a step)"
            if u["choice"] == "random" else "--choice first takes one of them a step")
    remedy = ("--choice exact finds every one (planar, up to 6 contacts)" if u["exact_available"] else
              "no exact choice here: the set may miss outcomes of those steps")
    pad = " " * 19
    return [f"non-unique steps   {u['nonunique_steps']:,d} of {u['steps']:,d} sampled steps have several outcomes "
            f"({how});", f"{pad}{pick}; {remedy}"]


def percent(share):
    """A share as a percentage with no more digits than it has: ``1%``, ``0.5%``, ``2.5%``, ``99.9%``."""
    return f"{100 * share:.3g}%"


def print_coverage(coverage):
    """Print what a coverage-driven run (``metadata["coverage"]``) met, the budget it needed and the time."""
    from reach.sets.completeness import GAP

    if not coverage:
        return
    last = coverage["rounds"][-1]
    goal = (f"at most {percent(coverage['missed'])} of the held-out outcomes farther than "
            f"{percent(coverage['resolution'])} of |vn0| ({coverage['epsilon']:.3g} m/s), at "
            f"{percent(coverage['confidence'])} confidence")
    verdict = "met" if coverage["met"] else f"NOT met: stopped short at the {coverage['stopped']}"
    print(f"\ncoverage target, {goal}: {verdict}")
    if coverage.get("cells_missed") is not None and coverage["resolution"] != GAP:  # (the estimate above: at GAP)
        over = coverage["cells_missed"] > coverage["missed"] and coverage.get("frontier") == "ran"
        print(f"the set's cells missed by more than {percent(coverage['resolution'])} of |vn0|: about "
              f"{coverage['cells_missed']:.2%} ({coverage['cells_far']:,d} held-out cells farther)"
              + ("; over the target, so a frontier ran (below)" if over else ""))
    joined = f" + {coverage['held_out_budget']:,d} held-out" if coverage["with_held_out"] else ""
    frontier = coverage.get("frontier_budget", 0)
    joined += f" + {frontier:,d} frontier" if frontier and joined else ""
    joined += ", joined to the set" if joined else ""
    extra = "held-out searches, the climb and the frontier" if frontier else "held-out searches and the climb"
    rounds = f"{len(coverage['rounds'])} round" + ("" if len(coverage["rounds"]) == 1 else "s")
    print(f"budget {'needed' if coverage['met'] else 'used'}: {coverage['budget']:,d} samples{joined} "
          f"({coverage['samples_drawn']:,d} drawn over {rounds}, {extra} included) in "
          f"{coverage['seconds']:.1f} s{_resumed(coverage)}; {last['far']} of {last['held_out']} held-out outcomes "
          f"farther, upper bound {last['upper_bound']:.2%}")
    if joined:
        print(f"the completeness estimate above is of the {coverage['budget']:,d}-sample set before the other "
              f"outcomes joined it: the joined set misses no more than that set does")


def _resumed(record):
    """`` (resumed: ...)`` where a run in rounds went on from its checkpoint, else ``""``."""
    done = record.get("resumed_rounds", 0)
    return f" (resumed: {done} round{'s' if done > 1 else ''} from the checkpoint)" if done else ""


def print_adaptive(adaptive):
    """Print what an adaptive run (``--epsilon``; ``summary()["adaptive"]``) met in its last round."""
    if not adaptive:
        return
    last = adaptive["rounds"][-1] if adaptive["rounds"] else None
    verdict = "met" if adaptive["met"] else "NOT met (hit the sample cap)"
    print(f"\nadaptive stopping at epsilon={adaptive['epsilon']:g}, confidence={adaptive['confidence']:g}: {verdict}"
          f"{_resumed(adaptive)}")
    if last:
        print(f"last round ({last['samples']:,d} samples): {last['far']} of {last['held_out']} held-out outcomes "
              f"farther than epsilon; P(held-out outcome outside) <= {last['upper_bound']:.2e}")
