"""The folder is the layer: imports only go down, no cycles, no private names across modules, small units.

Layers, lowest first (SPEC STYLE "the folder is the layer"):

0. ``reach.kernels``   jitted kernels: import nothing of ours above them;
   ``reach.files``, ``reach.version`` (the root's two modules) import nothing of ours
1. ``reach.problem``   the impact problem, the LCP's Python face, one Routh step
2. ``reach.sampling``  the engine: settings, plan, caps, directed rounds, choice, executors, checkpoints
3. ``reach.sets``      the result record, a run made a set, completeness, witnesses, the entry points
4. ``reach.laws``, ``reach.models``, ``reach.analysis``, ``reach.design``
5. ``reach.plotting``  draws; computes nothing physical
6. ``reach.tools``     command line, figures, bench; the only place that looks scenarios up;
   ``reach.examples``  example requirements for the README's first steps (a leaf, like tools)
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "reach"
LAYERS = {"kernels": 0, "files": 0, "version": 0, "problem": 1, "sampling": 2, "sets": 3, "laws": 4, "models": 4,
          "analysis": 4, "design": 4, "plotting": 5, "tools": 6, "examples": 6, "__main__": 6}


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module):
    parts = module.split(".")
    if parts[0] == "scenarios":
        return LAYERS["tools"]  # scenarios build problems with the library; only tools may name them
    if module == "reach":
        return LAYERS["sets"]  # the root re-exports the public API: ImpactProblem ... sample_post_impact_set
    if module == "reach.cli":
        return LAYERS["tools"]  # forwards 0.1's console scripts to reach.tools.cli
    assert len(parts) > 1 and parts[1] in LAYERS, f"{module} is in no layer: add its folder to LAYERS"
    return LAYERS[parts[1]]


def _imports(path):
    """(module imported, names imported, whether at module level) for every import of ours in ``path``."""
    tree = ast.parse(path.read_text())
    top = set(id(node) for node in tree.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in ("reach", "scenarios"):
                found.append((node.module, [a.name for a in node.names], id(node) in top))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("reach", "scenarios"):
                    found.append((alias.name, [], id(node) in top))
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)  # not generated kernel files


def _target(module, names):
    """The module an import really reaches: ``from reach import laws`` reaches ``reach.laws``."""
    for name in names:
        candidate = f"{module}.{name}"
        if (ROOT / Path(*candidate.split("."))).with_suffix(".py").exists() or \
                (ROOT / Path(*candidate.split(".")) / "__init__.py").exists():
            return candidate
    return module


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_only_go_down(path):
    me = _module_name(path)
    for module, names, _ in _imports(path):
        target = _target(module, names)
        assert _layer(target) <= _layer(me), f"{me} (layer {_layer(me)}) imports {target} (layer {_layer(target)})"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_across_modules(path):
    for module, names, _ in _imports(path):
        private = [n for n in names if n.startswith("_") and n != "__version__"]
        assert not private, f"{_module_name(path)} imports private {private} from {module}"


def test_no_import_cycles_including_imports_inside_functions():
    graph = {}
    for path in SOURCES:
        me = _module_name(path)
        graph[me] = {_target(m, n) for m, n, _ in _imports(path) if _target(m, n) != me}
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            assert state.get(nxt) != 1, f"import cycle: {' -> '.join(stack + [node, nxt])}"
            if nxt not in state:
                visit(nxt, stack + [node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_are_small(path):
    """Modules up to 500 lines; functions up to 80 lines of code (docstrings aside), except a jitted
    kernel whose docstring says why it is one kernel."""
    text = path.read_text()
    assert len(text.splitlines()) <= 500, f"{path.name}: {len(text.splitlines())} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                length -= first.end_lineno - first.lineno + 1  # the docstring does not count
            jitted = any("njit" in ast.unparse(d) for d in node.decorator_list)
            doc = ast.get_docstring(node) or ""
            if jitted and "one kernel" in doc:
                continue  # a jitted kernel whose docstring says why it is one piece
            assert length <= 80, f"{path.name}:{node.lineno} {node.name} has {length} lines"


def test_only_tools_name_scenarios_and_only_plotting_draws():
    for path in SOURCES:
        me = _module_name(path)
        text = path.read_text()
        if _layer(me) < LAYERS["tools"]:
            named = [m for m, _, _ in _imports(path) if m.split(".")[0] == "scenarios"]
            assert not named, f"{me} looks scenarios up"
        if _layer(me) < LAYERS["plotting"]:
            assert "matplotlib" not in text.replace("matplotlib imported", ""), f"{me} draws"
