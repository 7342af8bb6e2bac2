"""The project's metadata: one version, a real licence, and only dependencies that are used."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import tomllib
from pathlib import Path

import vaultgate

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def test_the_version_is_written_once_in_pyproject_and_read_from_the_metadata() -> None:
    assert vaultgate.__version__ == importlib.metadata.version("vaultgate") == PROJECT["version"]
    init = (ROOT / "src" / "vaultgate" / "__init__.py").read_text(encoding="utf-8")
    assert PROJECT["version"] not in init


def test_manifest_and_registry_entry_carry_the_same_version() -> None:
    manifest = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    assert manifest["version"] == PROJECT["version"]
    assert server["version"] == PROJECT["version"]
    assert [p["version"] for p in server["packages"]] == [PROJECT["version"]]


def test_the_licence_file_is_the_mit_licence_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PROJECT["license"] == "MIT"
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 vaultgate contributors" in text
    assert PROJECT["license-files"] == ["LICENSE"]


def test_the_metadata_has_classifiers_and_keywords() -> None:
    assert "License :: OSI Approved :: MIT License" not in PROJECT["classifiers"]  # PEP 639
    assert any(
        c.startswith("Programming Language :: Python :: 3.11") for c in PROJECT["classifiers"]
    )
    assert {"mcp", "obsidian"} <= set(PROJECT["keywords"])


# Declared for a package that imports it on vaultgate's behalf, not imported by vaultgate:
# httpcore asks sniffio which async library runs on every request, and without it retries the
# failed import each time (docs/design.md, "The call path").
USED_THROUGH = {"sniffio": "httpcore._synchronization"}


def test_every_runtime_dependency_is_imported_somewhere() -> None:
    imports = {
        "mcp": "mcp",
        "httpx": "httpx",
        "wcmatch": "wcmatch",
        "pyyaml": "yaml",
        "cryptography": "cryptography",
        "platformdirs": "platformdirs",
        "markdownify": "markdownify",
        "beautifulsoup4": "bs4",
        "h11": "h11",
        "watchfiles": "watchfiles",
        "regex": "regex",
    }
    names = {
        dep.split(">")[0].split("<")[0].split("=")[0].strip().lower()
        for dep in PROJECT["dependencies"]
    }
    assert names == set(imports) | set(USED_THROUGH)
    source = "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "src" / "vaultgate").rglob("*.py")
    )
    for module in imports.values():
        assert f"import {module}" in source or f"from {module}" in source, module


def test_a_dependency_declared_for_another_package_is_still_imported_by_it() -> None:
    for dependency, module in USED_THROUGH.items():
        spec = importlib.util.find_spec(module)
        assert spec is not None
        assert spec.origin is not None
        assert f"import {dependency}" in Path(spec.origin).read_text(encoding="utf-8"), module
