"""Command-line argument checks shared by the ``reach`` commands: bad input is one line and exit 2."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

__all__ = ["UsageError", "positive_float", "output_path", "image_suffixes"]


class UsageError(Exception):
    """Bad input from the command line: exit 2 with the message."""


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def output_path(text, flag, *, suffixes=None):
    """An output file path that can be written: its folder exists or is created, it is not a folder."""
    path = Path(text)
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise UsageError(f"reach: {flag} must end in {' or '.join(suffixes)}; got {str(path)!r}.")
    if path.is_dir():
        raise UsageError(f"reach: {flag} {str(path)!r} is a directory.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"reach: {flag} {str(path)!r}: cannot create its folder ({exc.strerror}).") from None
    if not os.access(path.parent, os.W_OK):
        raise UsageError(f"reach: {flag} {str(path)!r}: its folder is not writable.")
    return path


def image_suffixes():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return tuple(f".{k}" for k in Figure().canvas.get_supported_filetypes())
