"""server.json, the MCP Registry entry, against the registry's published schema.

The schema is vendored (data/server.schema.json; data/README.md says where it comes from), so
this runs offline. The committed entry names no repository: its name carries the placeholder
``{owner}`` that scripts/release.py fills in (test_release.py), and that alone breaks the schema.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator

from vaultgate.config import BACKEND_CHOICES, DEFAULT_TOOL_PROFILE, KNOWN_SETTINGS
from vaultgate.locations import FOLLOW_LINKS_CHOICES

ROOT = Path(__file__).resolve().parents[2]
SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
SCHEMA = json.loads(
    (Path(__file__).with_name("data") / "server.schema.json").read_text(encoding="utf-8")
)
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDER_NAME = "io.github.{owner}/vaultgate"


def schema_errors(entry: dict[str, Any]) -> list[tuple[list[str | int], str]]:
    validator = Draft7Validator(SCHEMA, format_checker=Draft7Validator.FORMAT_CHECKER)
    return [(list(error.path), error.validator) for error in validator.iter_errors(entry)]


def test_the_vendored_schema_is_the_one_the_entry_names() -> None:
    assert SERVER["$schema"] == SCHEMA["$id"]
    Draft7Validator.check_schema(SCHEMA)


def test_the_entry_meets_the_schema_but_for_the_namespace_a_release_fills_in() -> None:
    assert SERVER["name"] == PLACEHOLDER_NAME
    assert schema_errors(SERVER) == [(["name"], "pattern")]  # never publishable as committed
    assert schema_errors(SERVER | {"name": "io.github.some-owner/vaultgate"}) == []


def test_no_repository_address_is_committed() -> None:
    assert not {"repository", "websiteUrl"} & set(SERVER)
    assert "github.com/" not in json.dumps(SERVER)


def test_the_readme_carries_the_entry_name_for_the_registry_to_find_on_pypi() -> None:
    assert re.findall(r"^<!-- mcp-name: (\S+) -->$", README, re.MULTILINE) == [SERVER["name"]]


def test_the_package_is_vaultgate_on_pypi_over_stdio() -> None:
    assert SERVER["version"] == PROJECT["version"]
    (package,) = SERVER["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == PROJECT["name"] == "vaultgate"
    assert package["version"] == PROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    assert package["runtimeHint"] == "uvx"


def test_nothing_is_required_and_only_the_key_is_secret() -> None:
    """vaultgate starts without a key, and with a vault folder needs none."""
    variables = _variables()
    assert [n for n, v in variables.items() if v.get("isRequired")] == []
    assert [n for n, v in variables.items() if v.get("isSecret")] == ["OBSIDIAN_API_KEY"]


def test_the_entry_offers_the_settings_a_first_user_needs() -> None:
    variables = _variables()
    assert set(variables) <= set(KNOWN_SETTINGS)
    assert {
        "OBSIDIAN_API_KEY",
        "OBSIDIAN_HOST",
        "OBSIDIAN_PORT",
        "VAULTGATE_VAULT",
        "VAULTGATE_BACKEND",
        "VAULTGATE_FOLLOW_LINKS",
        "VAULTGATE_TOOLS",
    } <= set(variables)
    assert variables["VAULTGATE_VAULT"]["format"] == "filepath"
    assert set(variables["VAULTGATE_BACKEND"]["choices"]) == set(BACKEND_CHOICES)
    assert variables["VAULTGATE_BACKEND"]["default"] == "auto"
    assert set(variables["VAULTGATE_FOLLOW_LINKS"]["choices"]) == set(FOLLOW_LINKS_CHOICES)
    assert variables["VAULTGATE_FOLLOW_LINKS"]["default"] == FOLLOW_LINKS_CHOICES[0]
    assert variables["VAULTGATE_TOOLS"]["default"] == DEFAULT_TOOL_PROFILE
    for name in variables:
        assert f"| `{name}` |" in README, f"{name} is not in the README's table"


def test_each_variable_uses_only_keys_the_schema_defines() -> None:
    """The schema lets unknown keys through (no additionalProperties), so a misspelt one
    (``isSecrect``) would be silently ignored by every client."""
    definitions = SCHEMA["definitions"]
    known = (
        set(definitions["Input"]["properties"])
        | set(definitions["InputWithVariables"]["allOf"][1]["properties"])
        | set(definitions["KeyValueInput"]["allOf"][1]["properties"])
    )
    for name, variable in _variables().items():
        assert set(variable) <= known, name


def _variables() -> dict[str, dict[str, Any]]:
    (package,) = SERVER["packages"]
    return {v["name"]: v for v in package["environmentVariables"]}
