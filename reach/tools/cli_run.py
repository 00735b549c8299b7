"""``reach run``: a scenario's or a problem file's post-impact set, sampled to the coverage target (the default),
by adaptive stopping (``--epsilon``) or at a fixed budget (``--fixed``); saved, summarized and drawn."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reach.tools.arguments import UsageError, fraction, output_path, positive_float, run_inputs
from reach.tools.arguments import keep_paths as _keep_paths, n_jobs as _n_jobs, samples as _samples, seed as _seed, \
    steps as _steps
from reach.tools.compiling import compile_progress
from reach.tools.summary import format_summary, percent, print_adaptive, print_coverage

__all__ = ["add_run", "cmd_run", "COVERAGE_CAP"]


#: ``reach run``'s default cap on a coverage-driven run's budget (``--samples`` sets another).
COVERAGE_CAP = 2**20


def _mode(args):
    """How ``reach run`` samples: ``"fixed"`` (``--fixed``), ``"adaptive"`` (``--epsilon``) or
    ``"coverage"`` (the default: doubling budgets until the held-out estimate meets the coverage target)."""
    if args.fixed:
        return "fixed"
    return "adaptive" if args.epsilon is not None else "coverage"


def _target(args):
    """The coverage target's ``resolution``, ``missed`` and ``confidence``: the flags given, else the library's
    defaults (:data:`reach.sets.build.COVERAGE_TARGET`)."""
    from reach.sets.build import COVERAGE_TARGET

    return {k: COVERAGE_TARGET[k] if getattr(args, k) is None else getattr(args, k) for k in COVERAGE_TARGET}


def _refuse_unused(args):
    """A flag that the run would ignore is a usage error: the user meant something by it."""
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("reach: --scheduler is a dask scheduler's address: it needs --backend dask.")
    mode = _mode(args)
    unused = {"fixed": ("resolution", "missed", "time_limit", "confidence"),
              "adaptive": ("resolution", "missed", "time_limit")}.get(mode, ())
    given = ["--" + name.replace("_", "-") for name in unused if getattr(args, name) is not None]
    if given:
        flags, one = " and ".join(given), len(given) == 1
        if mode == "fixed":
            raise UsageError(f"reach: {flags} {'does' if one else 'do'} not apply to a --fixed run "
                             "(one fixed budget, no rounds).")
        raise UsageError(f"reach: {flags} {'does' if one else 'do'} not apply to an --epsilon run: "
                         f"{'it sets' if one else 'they set'} the default, coverage-driven run.")


def _checkpoint_of(out):
    """Where the run that saves ``out`` keeps its checkpoint."""
    out = Path(out)
    return out.with_name(out.stem + ".ckpt")


def _resumed_mode(args, label):
    """``--resume`` continues the run its checkpoint holds: a fixed run's as one (even without ``--fixed``, as
    before round 3), a run in rounds (coverage-driven or adaptive) only as one."""
    from reach.sampling.checkpoint import Checkpoint
    from reach.sets.rounds import ROUNDS

    checkpoint = _checkpoint_of(args.out or Path("results") / f"{label}.npz")
    if Checkpoint.found(checkpoint):
        args.fixed = True
    elif args.fixed and (checkpoint / ROUNDS).is_file():
        raise UsageError(f"reach: --resume: {str(checkpoint)!r} holds the rounds of a coverage-driven or adaptive "
                         "run, not a fixed one: resume it without --fixed.")


def cmd_run(args):
    """``reach run``: sample, print the summary, save the set (and its plot); the exit code."""
    problem, scenario, label, h, N, n_samples = run_inputs(args, args.samples)
    if args.resume:
        _resumed_mode(args, label)
    _refuse_unused(args)
    if _mode(args) == "coverage" and args.samples is None:
        n_samples = COVERAGE_CAP
    if args.quick:
        n_samples = min(n_samples, 4096)
    if args.plan:
        print(_describe_plan(args, n_samples, h, N))
        return 0
    out = output_path(args.out or Path("results") / f"{label}.npz", "--out", suffixes=(".npz",))
    json_out = output_path(args.json, "--json") if args.json else None
    checkpoint = _checkpoint_of(out)
    if args.resume and not checkpoint.exists():
        raise UsageError(f"reach: --resume: no checkpoint at {str(checkpoint)!r}, so nothing to resume "
                         "(run without --resume to start afresh).")
    common = dict(eps=args.eps, seed=args.seed, sequence=args.sequence, caps=args.caps, strategy=args.strategy,
                  solution_choice=args.choice, keep_paths=args.keep_paths, n_jobs=args.n_jobs,
                  backend=args.backend, scheduler=args.scheduler, progress=not args.no_progress)
    import warnings

    from reach.sets.result import SamplingWarning

    warnings.simplefilter("ignore", SamplingWarning)  # the summary prints the status and its message
    try:
        with compile_progress(enabled=not args.no_progress):
            result = _sample(args, problem, h, N, n_samples, checkpoint, common)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"reach: {exc}") from None
    except KeyboardInterrupt:
        kept = "finished chunks" if _mode(args) == "fixed" else "finished rounds (and a large round's chunks)"
        print(f"\nreach: interrupted; {kept} are kept in {checkpoint} — run the same command "
              "with --resume to continue.", file=sys.stderr)
        return 130
    result.metadata["label"] = label
    from reach.analysis.uniqueness import CHECK_SAMPLES, choice_check

    result.metadata["uniqueness"] = choice_check(result, n_samples=CHECK_SAMPLES // 2 if args.quick else CHECK_SAMPLES,
                                                 seed=args.seed)
    summary = result.summary()
    if "coverage" in result.metadata:
        summary["coverage"] = result.metadata["coverage"]
    print(format_summary(summary, f"{label}: post-impact set (h={h:g}, N={N}, seed={args.seed}, "
                                  f"choice={result.settings.solution_choice})"))
    print_adaptive(summary.get("adaptive"))
    print_coverage(result.metadata.get("coverage"))
    result.save(out)  # atomic: the checkpoint goes only once the result is safely on disk
    if checkpoint.exists():
        import shutil

        shutil.rmtree(checkpoint, ignore_errors=True)
    print(f"\nsaved {len(result):,d} outcomes to {out}")
    if json_out is not None:
        json_out.write_text(json.dumps(summary, indent=1))
        print(f"wrote {json_out}")
    if not args.no_plot and len(result):
        print(f"wrote {_draw_run(result, scenario, out.with_suffix('.png'))}")
    if not result.success:
        print(f"reach: {result.message}", file=sys.stderr)
        return 1
    return 0


def _describe_plan(args, n_samples, h, N):
    """``reach run --plan``: the plan this run would follow, and the held-out search after it."""
    from reach.sampling.executors import Cuda, Hybrid
    from reach.sampling.plan import plan_run
    from reach.sets.build import FRONTIER_ALWAYS
    from reach.sets.completeness import held_out_settings
    from reach.sets.frontier import FACTOR as FRONTIER_FACTOR, MAX as FRONTIER_MAX
    from reach.sampling.settings import SamplingSettings
    from reach.sampling.workers import worker_count

    try:
        settings = SamplingSettings(n_samples, h, N, eps=args.eps, seed=args.seed, sequence=args.sequence,
                                    caps=args.caps, strategy=args.strategy)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"reach: {exc}") from None
    head = []
    if _mode(args) == "coverage":
        target = _target(args)
        head = [f"coverage-driven: rounds of {min(4096, n_samples):,d}, then twice as many samples each, up to "
                f"{n_samples:,d}, each followed by its held-out search, until at most {percent(target['missed'])} of "
                f"the held-out outcomes lie farther than {percent(target['resolution'])} of |vn0| from the set "
                "(--fixed: one fixed budget). The first round:"]
        n_samples = min(4096, n_samples)
        settings = settings.replace(n_samples=n_samples)
    jobs = -1 if args.n_jobs == "auto" else args.n_jobs
    workers = 1 if args.backend in ("serial", "cuda") else worker_count(jobs, range(n_samples))
    if args.backend == "cuda+cpu" and jobs == -1:  # every core but the one driving the GPU
        workers = max(1, workers - 1)
    gpu, hybrid = args.backend == "cuda", args.backend == "cuda+cpu"
    lines = head + [plan_run(settings, workers, chunk_size=Cuda.chunk_size if gpu else Hybrid.chunk_size if hybrid
                             else None, taper=not (gpu or hybrid)).describe()]
    if args.backend == "cuda":
        lines.append("(--gpu: one worker, the GPU; each chunk runs as one or a few kernel launches)")
    elif args.backend == "cuda+cpu":
        lines.append("(--backend cuda+cpu: small chunks; the GPU takes runs of them from each phase's front, as one "
                     "launch each, the processes runs from its back, each sized by the rates measured so far)")
    elif args.n_jobs == "auto":
        lines.append("(--n-jobs auto: one worker instead, where a pilot of 256 samples puts the run under 1 s)")
    held = held_out_settings(settings)
    lines.append(f"then the held-out completeness search: {held.n_samples:,d} samples of its own, "
                 f"{held.strategy} sampling, seed {held.seed}, on the same workers")
    if head:  # the coverage-driven run's frontier (reach.sets.build.sample_to_coverage)
        lines.append(f"after the last round, a frontier of {FRONTIER_FACTOR} of its held-out budgets, where that is at "
                     f"most {FRONTIER_ALWAYS:,d} samples or its estimate of the cells missed is over the target (then "
                     f"twice, four times... as many as the estimate is over it, up to {FRONTIER_MAX:,d} samples)")
    return "\n".join(lines)


def _sample(args, problem, h, N, n_samples, checkpoint, common):
    """The run itself (:func:`_mode`): to the coverage target (the default), adaptive stopping with
    ``--epsilon``, or a fixed budget (``--fixed``, checkpointed)."""
    from reach import sample_post_impact_set
    from reach.sets.build import sample_adaptive, sample_to_coverage

    mode = _mode(args)
    if mode == "coverage":
        return sample_to_coverage(problem, h, N, **_target(args), max_samples=n_samples,
                                  initial=min(4096, n_samples), time_limit=args.time_limit, checkpoint=checkpoint,
                                  resume=args.resume, keep_checkpoint=True, **common)
    if mode == "adaptive":
        return sample_adaptive(problem, h, N, epsilon=args.epsilon, confidence=_target(args)["confidence"],
                               max_samples=max(n_samples, 4096), checkpoint=checkpoint, resume=args.resume,
                               keep_checkpoint=True, **common)
    return sample_post_impact_set(problem, n_samples, h, N, checkpoint=checkpoint, resume=args.resume,
                                  keep_checkpoint=True, **common)


def _draw_run(result, scenario, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from reach.plotting import plot_result_figure, plot_scenario_figure

    if scenario is not None:
        fig = plot_scenario_figure(scenario, result, mirror=True)
    else:
        fig = plot_result_figure(result)
    try:
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return path


def add_run(sub):
    """The ``run`` subcommand's parser."""
    p = sub.add_parser("run", help="sample the post-impact set of a scenario or a problem file")
    p.add_argument("name", nargs="?", help="scenario name (see `reach list`)")
    p.add_argument("--problem", metavar="FILE", help="an ImpactProblem saved as .npz or .json")
    p.add_argument("--samples", type=_samples,
                   help="the most samples the run may take (default 2^20); with --fixed, exactly this many "
                        "(default: the paper's)")
    p.add_argument("--fixed", action="store_true",
                   help="a fixed budget of --samples samples (the paper's way, and reach's default until "
                        "round 3), instead of sampling until the coverage target is met")
    p.add_argument("--h", type=positive_float, help="step size h (default: the paper's)")
    p.add_argument("--steps", type=_steps, help="trajectory length N (default: the paper's)")
    p.add_argument("--eps", type=positive_float, help="closing-step radius epsilon (default h/10)")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--sequence", choices=("sobol", "uniform"), default="sobol")
    p.add_argument("--caps", choices=("uniform", "extremes", "mixed", "broad"), default="mixed",
                   help="cap distribution: uniform (the paper's), extremes (reaches the set's "
                        "extremes faster with 3+ contacts), mixed (half of each) or broad (uniform, "
                        "extreme and binary in turn)")
    p.add_argument("--strategy", choices=("directed", "uniform"), default="directed",
                   help="directed (default): three quarters of the budget push out from the set's edges; "
                        "uniform: the paper's plain sampling")
    p.add_argument("--choice", choices=("auto", "exact", "walk", "random", "first", "enumerate"), default="auto",
                   help="solution pick at non-unique steps: auto (default: exact for planar problems "
                        "with up to 3 contacts, and with 4 or 5 where counts predict it cheap; else "
                        "first where a probe of 128 trajectories finds random covering vectors "
                        "reaching nothing else, random where they do), exact (uniform among all solutions: "
                        "certified-unique steps by Lemke, the rest by contact modes; planar, m <= 6), "
                        "walk (random covering vector, then a hop of Lemke's walk that reaches the "
                        "solutions of index -1), random (random covering vector), first (deterministic), enumerate (all "
                        "solutions by bases, uniform; slow, n <= 14)")
    p.add_argument("--keep-paths", type=_keep_paths, default=4096, metavar="K",
                   help="store the velocity paths of the first K samples (default 4096)")
    p.add_argument("--out", metavar="FILE.npz", help="where to save (default results/NAME.npz)")
    p.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    p.add_argument("--no-plot", action="store_true", help="do not draw FILE.png beside the result")
    p.add_argument("--quick", action="store_true", help="at most 4096 samples")
    p.add_argument("--n-jobs", type=_n_jobs, default="auto", metavar="J",
                   help="parallel workers (-1: all cores; auto, the default: one core when a pilot puts the "
                        "run under a second there, else all; the result does not depend on it)")
    p.add_argument("--backend", choices=("loky", "threading", "dask", "serial", "cuda", "cuda+cpu"), default="loky",
                   help="where the chunks run (cuda+cpu: the GPU and --n-jobs local processes together)")
    p.add_argument("--gpu", action="store_const", const="cuda", dest="backend",
                   help="run the samples on this machine's CUDA GPU (--backend cuda; needs 'reach[cuda]'); "
                        "--backend cuda+cpu runs the GPU and --n-jobs processes together")
    p.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address, e.g. tcp://host:8786")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run from its checkpoint (OUT.ckpt)")
    p.add_argument("--epsilon", type=positive_float, metavar="E",
                   help="adaptive stopping: sample until new outcomes land within E (m/s) of the set")
    p.add_argument("--coverage", action="store_true",
                   help="the default: sample until the held-out estimate puts at most 1%% of outcomes farther "
                        "than 2%% of |vn0| from the set (--missed, --resolution; doubling budgets from 4096; "
                        "--samples caps them); prints the budget it needed")
    p.add_argument("--resolution", type=fraction, metavar="R",
                   help="the coverage target's distance, as a share of |vn0| (default 0.02)")
    p.add_argument("--missed", type=fraction, metavar="M",
                   help="the coverage target's share of held-out outcomes that may lie farther (default 0.01)")
    p.add_argument("--time-limit", type=positive_float, metavar="S",
                   help="stop a coverage-driven run before a round that would take it past S seconds")
    p.add_argument("--confidence", type=fraction, metavar="C",
                   help="the confidence of the coverage target's or --epsilon's bound (default 0.95)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--plan", action="store_true",
                   help="print the run's plan (phases, chunks per worker) and exit without sampling")
    p.set_defaults(func=cmd_run)
