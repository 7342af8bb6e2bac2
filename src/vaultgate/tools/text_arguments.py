"""Text stays text: the SDK's JSON pre-parse, kept away from optional text parameters.

Before validating a call, the SDK parses as JSON every string given to a parameter whose
annotation is not exactly ``str``, because some hosts send a list as JSON text. A
dispatcher's parameters are optional (``content: str | None``), so a note's content
'["a"]' arrived as a list (refused: "Input should be a valid string"), '{}' as an object,
and 'null' as no content at all. Parameters that take only text (``str | None``) now
receive what the model sent; the others (lists, objects, ``Any``) are pre-parsed as before.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata


class _TextKeepingMetadata(FuncMetadata):
    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        parsed = super().pre_parse_json(data)
        text_only = _text_parameters(self)
        return {
            key: data[key] if key in text_only and isinstance(data[key], str) else value
            for key, value in parsed.items()
        }


def keep_text_arguments(tool: Tool) -> None:
    """Make ``tool`` (as registered) hand optional text parameters over unparsed."""
    if not _text_parameters(tool.fn_metadata):
        return
    # the SDK reads fn_metadata on each call; the same fields, another pre_parse_json
    tool.fn_metadata = _TextKeepingMetadata.model_construct(
        **{name: getattr(tool.fn_metadata, name) for name in FuncMetadata.model_fields}
    )


def _text_parameters(metadata: FuncMetadata) -> frozenset[str]:
    names: set[str] = set()
    for name, field in metadata.arg_model.model_fields.items():
        if _optional_text(field.annotation):
            names.add(name)
            if field.alias:
                names.add(field.alias)
    return frozenset(names)


def _optional_text(annotation: Any) -> bool:
    """``str | None`` (or ``Optional[str]``): text, or nothing."""
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return False
    return set(typing.get_args(annotation)) == {str, type(None)}
