"""tidy_schema keeps every constraint while dropping titles and null unions; every profile's
tool list is tidied, and each dispatcher's schema lists exactly its operations' parameters."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.server import build_server
from vaultgate.tools.registry import profile_dispatchers
from vaultgate.tools.schema import tidy_schema

SCHEMA = {
    "type": "object",
    "title": "Arguments",
    "properties": {
        "title": {"type": "string", "title": "Title", "description": "A property named title."},
        "limit": {
            "anyOf": [{"type": "integer", "minimum": 1, "maximum": 10}, {"type": "null"}],
            "default": None,
            "title": "Limit",
        },
        "query": {
            "anyOf": [{"type": "string"}, {"type": "object"}, {"type": "null"}],
            "default": None,
        },
    },
    "required": ["title"],
}


def test_property_names_survive_and_titles_go() -> None:
    tidied = tidy_schema(SCHEMA)

    assert set(tidied["properties"]) == {"title", "limit", "query"}
    assert "title" not in tidied
    assert "title" not in tidied["properties"]["title"]
    assert tidied["properties"]["title"]["description"] == "A property named title."


def test_a_nullable_single_type_folds_keeps_its_bounds_and_drops_its_null_default() -> None:
    limit = tidy_schema(SCHEMA)["properties"]["limit"]

    assert limit == {"type": "integer", "minimum": 1, "maximum": 10}


def test_a_nullable_union_keeps_its_other_members() -> None:
    query = tidy_schema(SCHEMA)["properties"]["query"]

    assert query["anyOf"] == [{"type": "string"}, {"type": "object"}]


@pytest.mark.parametrize(
    ("instance", "valid"),
    [
        ({"title": "x"}, True),
        ({"title": "x", "limit": 5}, True),
        ({"title": "x", "limit": 50}, False),
        ({"limit": 5}, False),
        ({"title": "x", "query": {"a": 1}}, True),
    ],
)
def test_the_tidied_schema_accepts_and_refuses_as_the_original(
    instance: dict[str, object], valid: bool
) -> None:
    def accepts(schema: dict[str, object]) -> bool:
        return jsonschema.Draft202012Validator(schema).is_valid(instance)

    assert accepts(SCHEMA) is valid
    assert accepts(tidy_schema(SCHEMA)) is valid


@pytest.mark.anyio
@pytest.mark.parametrize("profile", ["compact", "split", "full"])
async def test_every_profiles_listed_schemas_are_tidy_and_list_every_operations_parameters(
    profile: str,
) -> None:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    async with Client(build_server(settings)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    dispatchers = profile_dispatchers(settings)

    for name, tool in tools.items():
        schema = tool.input_schema
        wire = json.dumps(schema)
        assert '{"type": "null"}' not in wire, name
        assert '"title": "' not in wire.replace('"title": {', ""), name
        assert set(schema.get("required", [])) <= set(schema["properties"]), name
        jsonschema.Draft202012Validator.check_schema(schema)
        if name in dispatchers:
            operations = dispatchers[name].routes
            assert schema["properties"]["operation"]["enum"] == list(operations), name
            taken = {p.name for route in operations.values() for p in route.parameters}
            assert set(schema["properties"]) == {"operation", *taken}, name


def _untyped(schema: Any, where: str) -> list[str]:
    """Every node of ``schema`` a converter would pass on with no type: one with neither
    ``type`` nor ``anyOf``/``$ref``, an ``anyOf`` branch without a type, or a list of types."""
    if not isinstance(schema, dict):
        return []
    found: list[str] = []
    options = schema.get("anyOf")
    if isinstance(schema.get("type"), list):
        found.append(f"{where}: a list of types")
    elif options is None and "type" not in schema and "$ref" not in schema:
        found.append(f"{where}: no type")
    for index, option in enumerate(options or []):
        found += _untyped(option, f"{where}.anyOf[{index}]")
    for name, child in (schema.get("properties") or {}).items():
        found += _untyped(child, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        found += _untyped(schema["items"], f"{where}[]")
    return found


@pytest.mark.anyio
@pytest.mark.parametrize("profile", ["compact", "split", "full"])
async def test_every_property_of_every_tool_list_has_a_type(profile: str) -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools

    untyped = [
        problem
        for tool in tools
        for name, schema in tool.input_schema.get("properties", {}).items()
        for problem in _untyped(schema, f"{tool.name}.{name}")
    ]
    assert untyped == []
