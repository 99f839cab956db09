"""The import graph of router, adapters and als: one way down, no circles (DESIGN.md section 1).

The graph is read from the source with ``ast`` (nothing is imported), counting every import
statement wherever it stands: at module level, under ``TYPE_CHECKING`` and inside functions.
Imports by name through ``importlib`` (the registry's lazy adapter loading) are not edges.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("router", "adapters", "als")
# router.jsonl, the hostile-line reader ALS shares with the batch runner, imports nothing of the
# project (a test below keeps it so): importing it reaches no higher than the module itself.
ALS_MAY_IMPORT = ("router.types", "router.citations", "router.terminal", "router.jsonl")
LEAF_MODULES = ("router.jsonl",)


def module_files() -> dict[str, tuple[Path, bool]]:
    """Every module of the three packages: dotted name -> (file, is a package)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            modules[".".join(parts)] = (path, is_package)
    return modules


def _known(name: str, modules: Mapping[str, object]) -> str | None:
    """The longest prefix of ``name`` that is one of our modules."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported_names(tree: ast.Module, package: str) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            # `from package import module` names a module; `from module import name` does not.
            yield from (f"{source}.{alias.name}" for alias in node.names)


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """Module -> the modules of the three packages it imports."""
    modules = module_files()
    graph: dict[str, frozenset[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        targets = {_known(imported, modules) for imported in _imported_names(tree, package)}
        graph[name] = frozenset(t for t in targets if t is not None and t != name)
    return graph


def find_cycle(graph: Mapping[str, frozenset[str]]) -> list[str] | None:
    """One import circle as the list of modules on it, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        pending = [iter(sorted(graph[start]))]
        state[start] = 1
        while pending:
            following = next(pending[-1], None)
            if following is None:
                state[path.pop()] = 2
                pending.pop()
            elif state.get(following) == 1:
                return [*path[path.index(following) :], following]
            elif following not in state:
                state[following] = 1
                path.append(following)
                pending.append(iter(sorted(graph.get(following, ()))))
    return None


def test_the_graph_is_read() -> None:
    """The reader sees edges known to exist (a reader that sees none would prove nothing)."""
    graph = import_graph()
    assert "adapters.registry" in graph["router.unified_llm_adapter"]
    assert "router.errors" in graph["router.types"]
    assert "router.batch.limits" in graph["router.batch.local_engine.workers"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    """A planted circle is found, with every module on it."""
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": frozenset({"b"}), "b": frozenset()}) is None


def test_no_import_circles() -> None:
    """No module of router, adapters or als imports itself through others."""
    assert find_cycle(import_graph()) is None


@pytest.mark.parametrize("module", sorted(import_graph()))
def test_only_the_cli_imports_commands(module: str) -> None:
    """Nothing but router.commands itself and router.cli imports the command line."""
    if module.startswith("router.commands") or module == "router.cli":
        return
    reaching_up = sorted(t for t in import_graph()[module] if t.startswith("router.commands"))
    assert reaching_up == []


@pytest.mark.parametrize("module", sorted(m for m in import_graph() if m.startswith("als")))
def test_als_imports_only_core_types_and_citations(module: str) -> None:
    """ALS reads batch rows with the core types, the citation helpers and the line reader only."""
    outside = sorted(
        target
        for target in import_graph()[module]
        if not target.startswith("als") and not target.startswith(ALS_MAY_IMPORT)
    )
    assert outside == []


@pytest.mark.parametrize("module", LEAF_MODULES)
def test_leaf_modules_import_nothing_of_the_project(module: str) -> None:
    """The modules shared across layers (ALS and the batch runner) stand on nothing else."""
    assert import_graph()[module] == frozenset()


@pytest.mark.parametrize(
    "module", sorted(m for m in import_graph() if m.startswith("router.emulator"))
)
def test_the_emulator_imports_nothing_of_the_rest(module: str) -> None:
    """The emulator stands in for the providers: it knows nothing of the router."""
    outside = sorted(t for t in import_graph()[module] if not t.startswith("router.emulator"))
    assert outside == []
