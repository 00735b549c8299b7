"""Command-line argument checks shared by the ``reach`` commands (bad input is one line and exit 2), and the
scenario or problem file a command names."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from pathlib import Path

from reach.sampling.settings import MAX_SAMPLES, MAX_SEED, MAX_STEPS

__all__ = ["scenario_named", "run_inputs", "UsageError", "UserCodeError", "positive_float", "fraction", "output_path",
           "output_folder", "checkpoint_beside", "remove_empty_outputs", "as_usage_errors", "image_suffixes",
           "integer_text", "samples", "steps", "seed", "keep_paths", "n_jobs"]


class UsageError(Exception):
    """Bad input from the command line: exit 2 with the message."""


class UserCodeError(Exception):
    """A function of the user's (a controller, a predicate) raised or answered wrongly: exit 1 with the message."""


def positive_float(text):
    """argparse type: a positive finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def fraction(text):
    """argparse type: a number strictly between 0 and 1 (a confidence, a share)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


_CREATED = []  # the folders output_path and output_folder created since remove_empty_outputs last ran, outermost first


def _make_folder(path):
    """``path.mkdir(parents=True)``, recording each folder it creates."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    path.mkdir(parents=True, exist_ok=True)
    _CREATED.extend(reversed(missing))


def remove_empty_outputs(*, keep=False):
    """Forget the folders that :func:`output_path` and :func:`output_folder` created since this last ran; unless
    ``keep``, first remove those still empty, innermost first: a command that failed leaves no empty ``results/``
    behind."""
    while _CREATED:
        folder = _CREATED.pop()
        if not keep:
            with contextlib.suppress(OSError):  # not empty (a checkpoint, an output), or already gone
                folder.rmdir()


def output_path(text, flag, *, suffixes=None):
    """An output file path that can be written: its folder exists or is created, it is not a folder."""
    path = Path(text)
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise UsageError(f"reach: {flag} must end in {' or '.join(suffixes)}; got {str(path)!r}.")
    if path.is_dir():
        raise UsageError(f"reach: {flag} {str(path)!r} is a directory.")
    try:
        _make_folder(path.parent)
    except OSError as exc:
        raise UsageError(f"reach: {flag} {str(path)!r}: cannot create its folder ({exc.strerror}).") from None
    if not os.access(path.parent, os.W_OK):
        raise UsageError(f"reach: {flag} {str(path)!r}: its folder is not writable.")
    return path


def output_folder(text, flag):
    """An output folder that can be written into: it exists or is created, and is not a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise UsageError(f"reach: {flag} {str(path)!r} is a file, not a folder.")
    try:
        _make_folder(path)
    except OSError as exc:
        raise UsageError(f"reach: {flag} {str(path)!r}: cannot create it ({exc.strerror}).") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"reach: {flag} {str(path)!r} is not writable.")
    return path


@contextlib.contextmanager
def as_usage_errors(*errors):
    """Inside, an exception of the types ``errors`` (the user's input: no GPU, an unusable checkpoint...) becomes a
    one-line :class:`UsageError` (exit 2)."""
    try:
        yield
    except errors as exc:
        raise UsageError(f"reach: {exc}") from None


def checkpoint_beside(out, resume):
    """The checkpoint of a run saved to ``out`` (``OUT.ckpt.npz``), refused where ``resume`` does not match it."""
    checkpoint = out.with_suffix(".ckpt.npz")
    if resume and not checkpoint.exists():
        raise UsageError(f"reach: --resume: no checkpoint at {str(checkpoint)!r}, so nothing to resume "
                         "(run without --resume to start afresh).")
    if checkpoint.exists() and not resume:
        raise UsageError(f"reach: {str(checkpoint)!r} holds an interrupted run: add --resume to continue it, "
                         "or remove it.")
    return checkpoint


def image_suffixes():
    """The image file suffixes matplotlib can write (``.png``, ``.pdf``, ...)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return tuple(f".{k}" for k in Figure().canvas.get_supported_filetypes())


def integer_text(text, what, low, high):
    """An integer in ``[low, high]`` from text that may be a power (``2^16``), or a UsageError naming ``what``."""
    t = text.strip().replace("^", "**")
    try:
        if "**" in t:
            base, _, exp = t.partition("**")
            b, e = int(base), int(exp)
            if e > 64 or abs(b) > 2**32:
                raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} (too large)")
            value = b ** e
        elif any(c in t.lower() for c in ".e") and "x" not in t.lower():
            x = float(t)
            if not math.isfinite(x) or x != int(x):
                raise argparse.ArgumentTypeError(f"expected {what} (a whole number), got {text!r}")
            value = int(x)
        else:
            value = int(t)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < low or value > high:
        raise argparse.ArgumentTypeError(f"expected {what} between {low} and {high:,}, got {text!r}")
    return value


def samples(text):
    """A sample count: 4096, 2^14, 2**14 or 1e5 (a whole number up to 2^30)."""
    return integer_text(text, "a sample count like 4096 or 2^14", 1, MAX_SAMPLES)


def steps(text):
    """argparse type: a trajectory length N."""
    return integer_text(text, "a positive integer", 1, MAX_STEPS)


def seed(text):
    """argparse type: a seed in ``[0, 2^63)``."""
    return integer_text(text, "a seed", 0, MAX_SEED)


def keep_paths(text):
    """argparse type: how many sample paths to keep."""
    return integer_text(text, "a non-negative integer", 0, MAX_SAMPLES)


def n_jobs(text):
    """argparse type: a worker count, -1 for every core, or ``auto`` (0 is refused)."""
    if text.strip().lower() == "auto":
        return "auto"
    value = integer_text(text, "a worker count (-1: all cores) or auto", -1, 4096)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a worker count (-1: all cores) or auto, got 0")
    return value


def scenario_named(name, files=False):
    """The scenario ``name``, or a :class:`UsageError` naming the valid ones; ``files``: the command also takes
    ``--problem FILE``, which a name that looks like a path is pointed to."""
    import scenarios

    try:
        return scenarios.get(name)
    except ValueError as exc:
        if files and (Path(name).suffix or os.sep in name or "/" in name):
            raise UsageError(f"reach: {str(exc).rstrip('.')}; a problem file is given as --problem FILE.") from None
        raise UsageError(f"reach: {exc}") from None


def run_inputs(args, samples=None):
    """``(problem, scenario or None, label, h, N, samples)`` from a command's scenario name or ``--problem FILE``
    (``reach run`` and ``reach coverage``).

    ``samples`` is the sample count given on the command line (default: the
    scenario's, or 2^14 for a problem file).
    """
    from reach import ImpactProblem

    if (args.name is None) == (args.problem is None):
        raise UsageError("reach: give a scenario name or --problem FILE (one of them); see `reach list`.")
    if args.problem is not None:
        missing = [flag for flag, value in (("--h", args.h), ("--steps", args.steps)) if value is None]
        if missing:
            raise UsageError(f"reach: a --problem run needs {' and '.join(missing)} (no paper defaults).")
        try:
            problem = ImpactProblem.from_file(args.problem)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"reach: --problem: {exc}") from None
        return problem, None, Path(args.problem).stem, args.h, args.steps, samples or 2**14
    scenario = scenario_named(args.name, files=True)
    return (scenario.problem, scenario, scenario.name, args.h or scenario.h, args.steps or scenario.N,
            samples or scenario.n_samples)
