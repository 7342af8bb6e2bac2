"""server.json, the MCP Registry entry, against the registry's server.json format.

The official JSON Schema (static.modelcontextprotocol.io) is not fetched at test time (tests run
offline), so this checks the schema's required keys, patterns and limits by hand.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_entry_has_the_required_keys_within_the_schema_limits() -> None:
    assert re.fullmatch(
        r"https://static\.modelcontextprotocol\.io/schemas/\d{4}-\d{2}-\d{2}/server\.schema\.json",
        SERVER["$schema"],
    )
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", SERVER["name"])
    assert SERVER["name"].endswith("/vaultgate")
    assert 1 <= len(SERVER["description"]) <= 100
    assert SERVER["version"] == PROJECT["version"]


def test_the_package_is_vaultgate_on_pypi_over_stdio() -> None:
    (package,) = SERVER["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == PROJECT["name"] == "vaultgate"
    assert package["version"] == PROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    assert package["runtimeHint"] == "uvx"


def test_environment_variables_are_real_settings_and_only_the_key_is_secret() -> None:
    (package,) = SERVER["packages"]
    variables = {v["name"]: v for v in package["environmentVariables"]}
    assert {"OBSIDIAN_API_KEY", "OBSIDIAN_HOST", "OBSIDIAN_PORT", "VAULTGATE_TOOLS"} <= set(
        variables
    )
    assert [n for n, v in variables.items() if v.get("isSecret")] == ["OBSIDIAN_API_KEY"]
    assert [n for n, v in variables.items() if v.get("isRequired")] == ["OBSIDIAN_API_KEY"]
    allowed = {"name", "description", "isRequired", "isSecret", "format", "default", "choices"}
    for name, variable in variables.items():
        assert set(variable) <= allowed, name
        assert variable.get("format", "string") in {"string", "number", "boolean", "filepath"}
        assert all(isinstance(variable[k], str) for k in ("default",) if k in variable)
        assert f"| `{name}` |" in README, f"{name} is not in the README's table"
