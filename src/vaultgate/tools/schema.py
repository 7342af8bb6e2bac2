"""Smaller tool schemas: the same constraints in fewer tokens.

pydantic titles every property after its own name ("Filename" for filename), spells an
optional value as ``anyOf: [X, {"type": "null"}]`` and writes ``default: null`` on it. None
of it tells a model anything: a property not in ``required`` may be left out, and leaving it
out is what null means. Together they are about a fifth of a tools/list response, which
every conversation pays for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mcp.types import Tool

_NULL = {"type": "null"}
# Keywords whose value maps names to schemas: the names are data (a parameter may be called
# "title"), only the schemas under them are tidied.
_NAMED_SCHEMAS = ("properties", "$defs", "definitions", "patternProperties")


def tidy_schema(schema: Any) -> Any:
    """``schema`` without titles, null defaults, ``additionalProperties: true`` or an array's
    ``items: {}`` (both say "anything", as their absence does), with ``anyOf [X, null]``
    folded into X. Every property keeps a type: converters that target Gemini's
    ``parameters`` form pass a typeless enum on untyped, and Gemini refuses it (issue 35)."""
    if isinstance(schema, list):
        return [tidy_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    tidied = {
        key: _tidy_named(value) if key in _NAMED_SCHEMAS else tidy_schema(value)
        for key, value in schema.items()
        if key != "title"
        and not (key == "default" and value is None)
        and not (key == "additionalProperties" and value is True)  # JSON Schema's default
        and not (key == "items" and value == {})
    }
    options = tidied.get("anyOf")
    if isinstance(options, list) and _NULL in options:
        rest = [option for option in options if option != _NULL]
        if len(rest) == 1 and isinstance(rest[0], dict):
            del tidied["anyOf"]
            tidied = {**rest[0], **tidied}
        else:
            tidied["anyOf"] = rest
    return tidied


def _tidy_named(mapping: Any) -> Any:
    if not isinstance(mapping, dict):
        return mapping
    return {name: tidy_schema(value) for name, value in mapping.items()}


def listed_characters(tools: Iterable[Tool]) -> int:
    """What a tools/list costs the model: the compact JSON of each tool's name, description
    and inputSchema (the parts a host puts in the model's context), summed."""
    return sum(
        len(
            json.dumps(
                {"name": t.name, "description": t.description, "inputSchema": t.input_schema},
                separators=(",", ":"),
                ensure_ascii=False,
            )
        )
        for t in tools
    )
