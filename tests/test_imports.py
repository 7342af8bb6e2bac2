"""The package's import graph has no cycle, and the shared modules do not reach up: what
backends share (backend.py) imports no backend, and the protection rules import nothing of
the plugin's client. Read from the source with ``ast``, every import counted: at module
level, under ``TYPE_CHECKING`` and inside functions alike."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src"
PACKAGE = SRC / "vaultgate"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


@cache
def imports_of(module: str) -> frozenset[str]:
    """The vaultgate modules ``module`` imports (``from vaultgate import x`` names module x)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: package.count(".") + 2 - node.level]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                named.add(submodule if submodule in MODULES else base)
    return frozenset(name for name in named if name in MODULES and name != module)


def reachable(module: str) -> set[str]:
    """Every vaultgate module ``module`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for imported in imports_of(todo.pop()):
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return seen


def test_no_module_imports_itself_back_through_others() -> None:
    cycles = sorted(module for module in MODULES if module in reachable(module))

    assert cycles == [], f"import cycle through: {', '.join(cycles)}"


# The plugin's vocabulary every backend speaks: versions and features, answer shapes.
BACKEND_MAY_NAME = {"vaultgate.obsidian.features", "vaultgate.obsidian.models"}


@pytest.mark.parametrize("layer", ["vaultgate.folder", "vaultgate.engine", "vaultgate.obsidian"])
def test_backend_types_import_no_backend(layer: str) -> None:
    below = {
        module
        for module in reachable("vaultgate.backend")
        if module.startswith(f"{layer}.") and module not in BACKEND_MAY_NAME
    }

    assert below == set()


def test_protection_rules_import_nothing_of_the_plugin() -> None:
    plugin = {m for m in reachable("vaultgate.protection") if m.startswith("vaultgate.obsidian")}

    assert plugin == set()


def test_each_shared_module_imports_first_in_a_fresh_interpreter() -> None:
    first = [
        "vaultgate.backend",
        "vaultgate.protection",
        "vaultgate.patch_request",
        "vaultgate.obsidian.patch",
        "vaultgate.obsidian.client",
        "vaultgate.folder.backend",
        "vaultgate.folder.routed",
        "vaultgate.folder.through_plugin",
    ]
    script = textwrap.dedent(
        f"""
        import importlib, sys
        for name in {first!r}:
            for loaded in [m for m in sys.modules if m.split(".")[0] == "vaultgate"]:
                del sys.modules[loaded]
            importlib.import_module(name)
        """
    )

    run = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )

    assert run.returncode == 0, run.stderr
