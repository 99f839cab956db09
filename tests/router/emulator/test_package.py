"""The emulator package's independence from the rest of the project."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import router.emulator
from router.emulator.apis import API_NAMES, ProviderApi

PACKAGE = Path(router.emulator.__file__).resolve().parent


def test_imports_nothing_from_the_rest_of_the_project() -> None:
    """Every import of the emulator's modules is the standard library, a dependency, or itself."""
    project = {"router", "adapters", "als"}
    for module in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1, f"{module.name} imports from outside the package"
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.split(".")[0] in project:
                    assert name.startswith("router.emulator"), f"{module.name} imports {name}"


def compared_api_names(source: str) -> set[str]:
    """The API names that ``source`` compares something to (``==``, ``in``, ``match``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        else:
            continue
        for operand in operands:
            for leaf in ast.walk(operand):
                if isinstance(leaf, ast.Constant) and leaf.value in API_NAMES:
                    names.add(leaf.value)
    return names


def test_the_literal_finder_sees_a_comparison() -> None:
    """A planted comparison of an API name is found (a finder seeing none would prove nothing)."""
    planted = (
        'if api == "openai" or api in ("vertex",):\n    pass\n'
        'match api:\n    case "gemini":\n        pass\n'
    )
    assert compared_api_names(planted) == {"openai", "vertex", "gemini"}


def test_no_api_name_is_compared_outside_its_own_module() -> None:
    """Only an API's own module may compare its name; the server and the rest loop over rows."""
    own: dict[Path, set[str]] = {}
    for path in (PACKAGE / "apis").glob("*.py"):
        module = importlib.import_module(f"router.emulator.apis.{path.stem}")
        if isinstance(getattr(module, "API", None), ProviderApi):
            own[path.resolve()] = {module.API.name}
    assert sorted(name for names in own.values() for name in names) == sorted(API_NAMES)
    for path in sorted([*PACKAGE.rglob("*.py"), PACKAGE.parent / "emulated.py"]):
        compared = compared_api_names(path.read_text())
        assert compared <= own.get(path.resolve(), set()), f"{path.name} compares {compared}"
