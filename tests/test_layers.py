"""The package's shape: layers that import only downwards, imports at module top, small files.

The layers, lowest first: ``movegen`` (rules, Position) < ``eval`` (evaluation) < ``engine``
(search, Engine API) < ``protocol`` (CECP, UCI, the client side, the board) < ``bench``
(benchmarks, tuning, the match runner) < the ``jitfish`` package itself (the command line).
Every import of a jitfish module is read from the source with ``ast`` (imports inside functions
and ``TYPE_CHECKING`` blocks included), so a cycle cannot hide in a function.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["movegen", "eval", "engine", "protocol", "bench", "jitfish"]
FOLDER = {"movegen": "movegen", "eval": "eval", "engine": "engine", "protocol": "protocol", "bench": "bench",
          "jitfish": "jitfish"}
MAX_LINES = 1000
# the one import allowed inside a function: the process entry answers a GUI's `protover` before
# it loads the rest (jitfish/start.py says why)
NESTED_OK = {("jitfish/start.py", "jitfish.cli")}


def _modules() -> list[tuple[str, Path]]:
    out = []
    for layer in LAYERS:
        for path in sorted((ROOT / FOLDER[layer]).rglob("*.py")):
            out.append((layer, path))
    return out


def _package_of(layer: str, path: Path) -> list[str]:
    """The dotted package of a module file: ``jitfish.protocol.board`` for protocol/board/x.py."""
    rel = path.relative_to(ROOT / FOLDER[layer]).parent.parts
    base = ["jitfish"] if layer == "jitfish" else ["jitfish", layer]
    return base + list(rel)


def _imports(layer: str, path: Path) -> list[tuple[str, int, bool]]:
    """(imported jitfish module, line, at module top?) for every import in the file."""
    tree = ast.parse(path.read_text(), str(path))
    top = {id(n) for n in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` blocks count as module top
        if isinstance(node, ast.If):
            top |= {id(n) for n in node.body}
    pkg = _package_of(layer, path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - node.level + 1]
                names = [".".join(base + ([node.module] if node.module else []))]
            else:
                names = [node.module or ""]
        else:
            continue
        for name in names:
            if name == "jitfish" or name.startswith("jitfish."):
                out.append((name, node.lineno, id(node) in top))
    return out


def _layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "jitfish"


MODULES = _modules()


@pytest.mark.parametrize("layer, path", MODULES, ids=[str(p.relative_to(ROOT)) for _, p in MODULES])
def test_imports_go_down_and_sit_at_the_top(layer: str, path: Path) -> None:
    rank = LAYERS.index(layer)
    for module, line, at_top in _imports(layer, path):
        target = _layer_of(module)
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        assert LAYERS.index(target) <= rank, f"{where}, a layer above {layer}"
        if target == "jitfish" and layer != "jitfish":
            raise AssertionError(f"{where}: the jitfish package (the command line) is above every layer")
        allowed = (str(path.relative_to(ROOT)), module) in NESTED_OK
        assert at_top or allowed, f"{where} inside a function: imports sit at module top"


def test_no_package_imports_another_in_a_cycle() -> None:
    graph: dict[str, set[str]] = {layer: set() for layer in LAYERS}
    for layer, path in MODULES:
        for module, _line, _top in _imports(layer, path):
            if _layer_of(module) != layer:
                graph[layer].add(_layer_of(module))
    for layer in LAYERS:
        seen, todo = set(), list(graph[layer])
        while todo:
            x = todo.pop()
            assert x != layer, f"import cycle through {layer}: {graph}"
            if x not in seen:
                seen.add(x)
                todo += graph[x]


@pytest.mark.parametrize("layer, path", MODULES, ids=[str(p.relative_to(ROOT)) for _, p in MODULES])
def test_files_stay_small(layer: str, path: Path) -> None:
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines (at most {MAX_LINES})"


def test_the_evaluation_lives_in_eval() -> None:
    """The evaluation kernels are defined in eval/, and nowhere else."""
    for layer, path in MODULES:
        tree = ast.parse(path.read_text())
        defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        if layer != "eval":
            assert not defs & {"evaluate", "evaluate_terms", "conversion_threat"}, path
    assert {"evaluate", "evaluate_terms", "conversion_threat", "static_eval"} <= {
        n.name for n in ast.walk(ast.parse((ROOT / "eval" / "evaluate.py").read_text()))
        if isinstance(n, ast.FunctionDef)}
