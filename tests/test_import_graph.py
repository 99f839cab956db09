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
# router.text.jsonl, the hostile-line reader ALS shares with the batch runner, imports nothing of
# the project (a test below keeps it so): importing it reaches no higher than the module itself.
# The core types and citations, the line reader, the terminal sanitizer, and the library's
# logger (router.logging is a contract module: every package logs through it).
# So does router.schema, the version of the shapes written, which ALS checks on every row it reads.
ALS_MAY_IMPORT = (
    "router.types",
    "router.citations",
    "router.text.terminal",
    "router.text.jsonl",
    "router.logging",
    "router.schema",
)
LEAF_MODULES = ("router.text.jsonl", "router.schema")


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
    assert "adapters.registry" in graph["router.router"]
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


# The floor the adapters stand on (DESIGN.md section 1): the contract modules, the citation and
# text helpers, the stream events, pricing and tracing. None of it may reach up into the adapters.
BELOW_THE_ADAPTERS = (
    "router.types",
    "router.grounding.report",  # the report and policy models LLMResponse and LLMRequest hold
    "router.schema",
    "router.errors",
    "router.settings",
    "router.credential_pools",  # the pools of keys and projects the settings hold
    "router.logging",
    "router.call_limits",
    "router.retry",
    "router.validation",
    "router.citations",
    "router.text",
    "router.streaming.events",
    "router.streaming.sse",
    "router.stream_events",
    "router.pricing",
    "router.tracing",
)


def _below_the_adapters(module: str) -> bool:
    return any(module == low or module.startswith(f"{low}.") for low in BELOW_THE_ADAPTERS)


def _reached_from_the_adapters() -> set[str]:
    graph = import_graph()
    reached: set[str] = set()
    pending = [module for module in graph if module.startswith("adapters")]
    while pending:
        for target in graph[pending.pop()]:
            if target not in reached:
                reached.add(target)
                pending.append(target)
    return reached


@pytest.mark.parametrize("module", sorted(m for m in import_graph() if _below_the_adapters(m)))
def test_nothing_below_the_adapters_imports_them(module: str) -> None:
    """The floor imports no adapter module, the registry least of all: values are handed in."""
    reaching_up = sorted(t for t in import_graph()[module] if t.startswith("adapters"))
    assert reaching_up == []


def test_the_adapters_import_only_the_floor_of_the_router() -> None:
    """Every router module an adapter reaches (however indirectly) is on the declared floor."""
    above = sorted(
        module
        for module in _reached_from_the_adapters()
        if module.startswith("router") and not _below_the_adapters(module)
    )
    assert above == []


def test_the_floor_check_sees_a_reach_up() -> None:
    """The floor test is not vacuous: a module above the adapters does import the registry."""
    assert "adapters.registry" in import_graph()["router.respond"]
    assert not _below_the_adapters("router.respond")
    assert _below_the_adapters("router.pricing.book")


_COMPARING = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _string_literals(node: ast.expr) -> set[str]:
    """The string constants ``node`` is, or holds as a tuple, set or list display."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.Set | ast.List):
        return {
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        }
    return set()


def compared_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, string) for each string literal compared with ==, !=, in, not in, or matched by a
    ``case``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and all(isinstance(op, _COMPARING) for op in node.ops):
            for side in (node.left, *node.comparators):
                yield from ((node.lineno, s) for s in sorted(_string_literals(side)))
        elif isinstance(node, ast.MatchValue):
            yield from ((node.lineno, s) for s in sorted(_string_literals(node.value)))


def vendor_owners() -> dict[str, tuple[str, str]]:
    """Vendor -> (its provider package, the short name its emulator API module may carry)."""
    from adapters.registry import PROVIDERS

    owners: dict[str, tuple[str, str]] = {}
    for vendor, row in PROVIDERS.items():
        package = row.adapter_path.partition(":")[0].rpartition(".")[0]
        owners[vendor] = (package, package.rpartition(".")[2])
    return owners


def owns(module: str, vendor: str, owners: Mapping[str, tuple[str, str]]) -> bool:
    """Whether ``module`` is ``vendor``'s provider package or its emulator API module."""
    package, short = owners[vendor]
    if module == package or module.startswith(package + "."):
        return True
    api_module = module.removeprefix("router.emulator.apis.")
    return api_module != module and "." not in api_module and api_module in (vendor, short)


def foreign_vendor_comparisons() -> dict[str, set[str]]:
    """Module -> the vendor literals it compares although it is not theirs."""
    owners = vendor_owners()
    found: dict[str, set[str]] = {}
    for module, (path, _) in module_files().items():
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        for _, literal in compared_literals(tree):
            if literal in owners and not owns(module, literal, owners):
                found.setdefault(module, set()).add(literal)
    return found


def test_the_literal_finder_sees_every_form_of_comparison() -> None:
    """==, !=, in a tuple or set of literals and a match-case are all found; a dict key is not."""
    source = (
        "if vendor == 'openai': pass\n"
        "if 'vertex' != vendor: pass\n"
        "if vendor in ('anthropic', 'x'): pass\n"
        "if vendor not in {'gemini'}: pass\n"
        "match vendor:\n    case 'perplexity' | 'openrouter': pass\n"
        "table = {'openai': 1}\n"
    )
    found = sorted(literal for _, literal in compared_literals(ast.parse(source)))
    assert found == ["anthropic", "gemini", "openai", "openrouter", "perplexity", "vertex", "x"]


def test_a_vendor_literal_belongs_to_its_package_and_emulator_module() -> None:
    """A provider package and its emulator API module own their vendors; nothing else does."""
    owners = vendor_owners()
    assert owns("adapters.vertex.reply", "gemini", owners)
    assert owns("router.emulator.apis.vertex", "gemini", owners)
    assert owns("router.emulator.apis.openai", "openai", owners)
    assert not owns("adapters.openai_compatible.reply", "openai", owners)
    assert not owns("router.emulator.apis.openai", "anthropic", owners)
    assert not owns("router.fanout", "openai", owners)


def test_no_vendor_literal_is_compared_outside_its_provider() -> None:
    """No `if vendor == "..."` outside a provider's package and its emulator API module."""
    assert foreign_vendor_comparisons() == {}
