"""Kernels compiled without reference counting (reach.kernels.jit) allocate nothing and return no array argument."""

import ast
import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pytest
from numba.core.errors import NumbaRuntimeError, TypingError
from numba.core.registry import CPUDispatcher

import reach.kernels
from reach.kernels.jit import NO_REFCOUNT, kernel

KERNELS = Path(reach.kernels.__file__).parent


def _uncounted_functions():
    """(file, function) of every ``@kernel`` function of reach/kernels, read from the source."""
    for path in sorted(KERNELS.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(ast.unparse(d).split("(")[0] == "kernel"
                                                         for d in node.decorator_list):
                yield path.name, node


def _root(expr):
    """The name an attribute or subscript chain starts from (``work.contact[0]`` -> ``work``), or None."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _pairs(node):
    """(target, value) pairs of an assignment, tuple assignments taken apart."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            yield from zip(target.elts, node.value.elts)
        else:
            yield target, node.value


def _returned_arrays(function):
    """Return values that may be an argument array or a view of one (conservative, by the source alone).

    A name counts if it is a parameter used as an array or a tuple (indexed,
    or an attribute taken), or is bound to one, to one of its attributes or
    items, or to another such name.  Wrapping a value in ``float()`` or
    ``int()`` proves it a number (numba refuses the call on an array), and so
    does arithmetic.
    """
    used = {_root(node) for node in ast.walk(function) if isinstance(node, (ast.Attribute, ast.Subscript))}
    tainted = {a.arg for a in function.args.args} & used
    changed = True
    while changed:
        changed = False
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target, value in _pairs(node):
                    if isinstance(target, ast.Name) and target.id not in tainted and _root(value) in tainted:
                        tainted.add(target.id)
                        changed = True
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found += [ast.unparse(v) for v in values if _root(v) in tainted]
    return found


def test_no_uncounted_kernel_returns_an_argument_array():
    # An uncounted kernel cannot make an array (next test); returning one it was given would hand a counting
    # caller a reference it never got.
    functions = list(_uncounted_functions())
    assert len(functions) >= 60  # the step's whole chain is uncounted
    offending = {f"{name}:{fn.name}": found for name, fn in functions if (found := _returned_arrays(fn))}
    assert offending == {}


def test_the_check_sees_a_returned_argument():
    source = """
def f(work, v, k, scale):
    row = work.rows[k]
    x = v
    total = row[0] * 2.0 + v[0]
    return total, x, row, float(row[0]), row[0], scale
"""
    (function,) = ast.parse(source).body
    assert _returned_arrays(function) == ["x", "row", "row[0]"]


@pytest.mark.skipif(not NO_REFCOUNT, reason="this numba has no _nrt option; every kernel counts references")
def test_an_uncounted_kernel_cannot_allocate():
    @kernel(cache=False)
    def allocates(n):
        return np.empty(n).sum()

    with pytest.raises((TypingError, NumbaRuntimeError), match="NRT required|Only accept returning of array"):
        allocates(3)


def _dispatchers():
    found = {}
    for info in pkgutil.iter_modules(reach.kernels.__path__):
        module = importlib.import_module(f"reach.kernels.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = value
    return found


def test_the_step_chain_runs_without_reference_counts():
    # The functions a Routh step passes through are the ones whose reference counts cost time (see the module).
    chain = ["reach.kernels.routh.run_samples_kernel", "reach.kernels.routh.take_step",
             "reach.kernels.routh.modes_or_bases", "reach.kernels.routh.robust_step", "reach.kernels.lcp.solve_scaled",
             "reach.kernels.revised.revised_lemke_kernel", "reach.kernels.planar.mode_step",
             "reach.kernels.modes.certified_unique"]
    found = _dispatchers()
    assert all(name in found for name in chain)
    assert all(found[name].targetoptions.get("_nrt", True) is not NO_REFCOUNT for name in chain)


def test_without_numbas_option_a_kernel_is_plain_njit(monkeypatch):
    import reach.kernels.jit as jit

    monkeypatch.setattr(jit, "NO_REFCOUNT", False)

    @jit.kernel(cache=False)
    def allocates(n):
        return np.empty(n).shape[0]

    assert "_nrt" not in allocates.targetoptions
    assert allocates(3) == 3  # counted again: allocation compiles


def test_every_kernel_uses_numpys_error_model():
    # Python's error model tests each divisor for zero, which keeps the ratio test's division loop scalar.
    found = _dispatchers()
    assert len(found) >= 60
    assert {name for name, d in found.items() if d.targetoptions.get("error_model") != "numpy"} == set()


def test_a_kernel_divides_by_zero_as_numpy_does():
    @kernel(cache=False)
    def ratio(a, b):
        return a / b

    assert ratio(1.0, 0.0) == np.inf
    assert np.isnan(ratio(0.0, 0.0))


def test_kernel_arrays_have_one_type_whatever_the_callers():
    """A read-only, Fortran-ordered or float32 array would make Numba compile a kernel once more (its type differs)."""
    import numba

    from reach.kernels.jit import kernel_array

    a = np.arange(6.0).reshape(2, 3)
    frozen = a.copy()
    frozen.flags.writeable = False
    given = (a, frozen, np.asfortranarray(a), a.astype(np.float32), a.tolist())
    assert {numba.typeof(kernel_array(x)) for x in given} == {numba.typeof(a)}
    assert not np.shares_memory(kernel_array(a), a)  # a copy: the kernel may write it
    np.testing.assert_array_equal(kernel_array(frozen), a)
