"""Smaller tool schemas: the same constraints in fewer tokens.

pydantic titles every property after its own name ("Filename" for filename) and spells an
optional value as ``anyOf: [X, {"type": "null"}]``. Neither tells a model anything the
property name and its ``default: null`` do not, and together they are about a fifth of a
tools/list response, which every conversation pays for.
"""

from __future__ import annotations

from typing import Any

_NULL = {"type": "null"}
# Keywords whose value maps names to schemas: the names are data (a parameter may be called
# "title"), only the schemas under them are tidied.
_NAMED_SCHEMAS = ("properties", "$defs", "definitions", "patternProperties")


def tidy_schema(schema: Any) -> Any:
    """``schema`` without titles, with ``anyOf [X, null]`` folded into X."""
    if isinstance(schema, list):
        return [tidy_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    tidied = {
        key: _tidy_named(value) if key in _NAMED_SCHEMAS else tidy_schema(value)
        for key, value in schema.items()
        if key != "title"
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
