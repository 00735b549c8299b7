"""A user's functions named on the command line (``--predicate mymodule:fine``, ``--controller mine:pd``):
imported from the current folder, and called through :class:`UserFunction`, so that what they raise or answer
wrongly is reported as theirs, in one line."""

from __future__ import annotations

import importlib
import sys

import numpy as np

from reach.tools.arguments import UsageError, UserCodeError

__all__ = ["load_callable", "UserFunction"]


def load_callable(spec, flag):
    """``module:function`` (the module importable from the current folder) -> the callable."""
    if not spec or ":" not in spec:
        raise UsageError(f"reach: {flag} must be MODULE:FUNCTION; got {spec!r}.")
    module_name, _, name = spec.partition(":")
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is the user's input
        raise UsageError(f"reach: {flag} {spec!r}: cannot import {module_name!r} ({type(exc).__name__}: {exc}).") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise UsageError(f"reach: {flag} {spec!r}: {module_name!r} has no callable {name!r}.")
    return UserFunction(function, f"{flag} {spec}", answer={"--predicate": "bool", "--cost": "number", "--controller": "finite"}.get(flag))


class UserFunction:
    """A user's function, called through: what it raises, and a wrong answer, become a :class:`UserCodeError`.

    The message names the function (``--predicate requirements:fast``) and
    its exception, so a user's bug is not reported as reach's.
    ``answer`` checks the return value: ``"bool"`` (a predicate: True or
    False, never None), ``"number"`` (a cost: one real number) or
    ``"finite"`` (a controller: no NaN or inf).
    Picklable when the function is, so it runs in worker processes too.
    """

    def __init__(self, function, label, answer=None):
        self.function = function
        self.label = label
        self.answer = answer
        self.shape = None  # a controller's: the force's shape, (nv,), set once the system is known
        self.__name__ = getattr(function, "__name__", label)
        if hasattr(function, "violation"):  # a measured requirement (reach.analysis.robust.requirement)
            self.violation = UserFunction(function.violation, f"{label} (its violation)", "number")
            self.unit = getattr(function, "unit", "")

    def __call__(self, *args):
        try:
            value = self.function(*args)
        except Exception as exc:  # noqa: BLE001 - anything the user's code raises is reported as theirs
            raise UserCodeError(f"reach: {self.label} raised {type(exc).__name__}: {exc}".splitlines()[0]) from None
        if self.answer == "bool" and not isinstance(value, (bool, np.bool_)):
            raise UserCodeError(f"reach: {self.label} returned {value!r} ({type(value).__name__}); "
                                "a predicate must return True (satisfied) or False.")
        if self.answer == "number" and not (isinstance(value, (int, float, np.integer, np.floating))
                                            and not isinstance(value, (bool, np.bool_)) and np.isfinite(value)):
            raise UserCodeError(f"reach: {self.label} returned {value!r}; a cost must return one finite number.")
        if self.answer == "finite":
            array = np.asarray(value, dtype=float) if _numeric(value) else None
            if array is None:
                raise UserCodeError(f"reach: {self.label} returned {value!r}, not an array of numbers.")
            if self.shape is not None and array.shape != self.shape:
                raise UserCodeError(f"reach: {self.label} returned shape {array.shape}; the system has "
                                    f"{self.shape[0]} velocities, so a force of shape {self.shape}.")
            if not np.all(np.isfinite(array)):
                raise UserCodeError(f"reach: {self.label} returned NaN or inf at t = {args[0]:g} s "
                                    f"({np.round(array, 6).tolist()}).")
        return value


def _numeric(value):
    try:
        np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return True
