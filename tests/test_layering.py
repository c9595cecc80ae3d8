"""The package's import graph: no circle (at module level or inside functions) and no
import from a higher layer. ``typing.TYPE_CHECKING`` blocks are annotations only and do
not count. A new circle or an upward import fails here, naming the modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from janus.passes.callgraph import cycles as import_cycles

ROOT = Path(__file__).resolve().parents[1] / "janus"

#: Layers, lowest first: a module may import from its own layer and the ones below it.
LAYERS = [
    ("janus.ir", "janus.diagnostics", "janus.dialects", "janus.heap"),
    ("janus.passes",),
    ("janus.runtime",),
    ("janus.frontend",),
    ("janus.nn", "janus.aot", "janus"),
    ("janus.models", "janus.benchmark", "janus.tools", "janus.distributed"),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(node: ast.AST, package: str):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            continue
        if isinstance(child, ast.Import):
            yield from (a.name for a in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                parts = package.split(".")[: len(package.split(".")) - child.level + 1]
                base = ".".join(parts + ([child.module] if child.module else []))
            for a in child.names:
                yield f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
        else:
            yield from _imports(child, package)


def dependencies(name: str) -> set[str]:
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for target in _imports(ast.parse(path.read_text(encoding="utf-8")), package):
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


GRAPH = {name: dependencies(name) for name in MODULES}


def layer_of(name: str) -> int:
    best, level = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), i
    return level


def cycles() -> list[list[str]]:
    """Import circles: strongly connected components of the module graph."""
    return import_cycles({name: sorted(deps) for name, deps in GRAPH.items()})


def _is_package_of(package: str, module: str) -> bool:
    return MODULES[package].name == "__init__.py" and module.startswith(package + ".")


def test_no_import_circle() -> None:
    # a package importing its own submodules (to register them) is how packages load
    assert cycles() == [] or all(
        any(_is_package_of(a, b) for a in c for b in c) and len(c) == 2 for c in cycles()), cycles()


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if layer_of(m) < 0] == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_from_a_higher_layer(name: str) -> None:
    upward = sorted(d for d in GRAPH[name] if layer_of(d) > layer_of(name) and not _is_package_of(name, d))
    assert upward == [], f"{name} (layer {layer_of(name)}) imports from higher layers: {upward}"


def test_the_checker_sees_a_circle() -> None:
    """The checker itself: a graph with a circle is reported."""
    saved = dict(GRAPH)
    try:
        GRAPH["janus.ir"] = GRAPH["janus.ir"] | {"janus.diagnostics"}
        GRAPH["janus.diagnostics"] = GRAPH["janus.diagnostics"] | {"janus.ir"}
        assert ["janus.diagnostics", "janus.ir"] in cycles()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
