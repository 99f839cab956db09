"""The emulator package's independence from the rest of the project."""

from __future__ import annotations

import ast
from pathlib import Path

import router.emulator

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
