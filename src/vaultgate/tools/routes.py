"""How a dispatcher operation reaches its single tool: the same function, the same validation.

A Route names the tool function an operation calls. An operation's parameters are its single
tool's, under the same names (one name per idea, docs/design.md), and the arguments are
validated by the SDK's own model of the tool's signature, so an operation accepts exactly what
its single tool accepts, with the same defaults and bounds.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata, func_metadata
from pydantic import ValidationError

from vaultgate.errors import InvalidArgument
from vaultgate.tools.base import Blocks, ToolContext, ToolFunction
from vaultgate.tools.parameters import refuse_unknown, value_problems

CONTEXT_PARAMETER = "ctx"


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    required: bool
    default: Any
    schema: Mapping[str, Any]  # the tool's JSON schema for it (type, bounds, description)

    def signature(self) -> str:
        if self.required:
            return self.name
        return f"{self.name}={json.dumps(self.default, ensure_ascii=False)}"


@dataclass(frozen=True, slots=True)
class Route:
    tool: ToolFunction
    writes: bool = False  # to the vault: refused, and left out of the schema, when read-only
    # Single tools this operation also answers for (memory's `get` is mem_get_observation
    # given an id and mem_get_observations given ids), so hints naming them reach it.
    answers_for: tuple[str, ...] = ()

    @property
    def tool_name(self) -> str:
        return self.tool.__name__

    @property
    def single_tools(self) -> tuple[str, ...]:
        return (self.tool_name, *self.answers_for)

    @property
    def parameters(self) -> list[Parameter]:
        return _parameters(self.tool)

    def describe_parameters(self) -> str:
        return ", ".join(p.signature() for p in self.parameters)

    async def call(self, ctx: ToolContext, operation: str, given: Mapping[str, Any]) -> Blocks:
        refuse_unknown(f"operation {operation!r}", given, [p.name for p in self.parameters])
        missing = [p.name for p in self.parameters if p.required and p.name not in given]
        if missing:
            raise InvalidArgument(
                f"Operation {operation!r} needs {', '.join(missing)}. Its parameters: "
                f"{self.describe_parameters() or '(none)'}."
            )
        try:
            validated = _metadata(self.tool).validate_arguments(dict(given))
        except ValidationError as exc:
            raise InvalidArgument(
                f"Operation {operation!r}: {value_problems(exc)}. "
                f"Its parameters: {self.describe_parameters()}."
            ) from None
        return await self.tool(ctx, **validated)


def tool_parameters(tool: ToolFunction) -> list[str]:
    """The parameters ``tool`` takes, as its schema names them."""
    return [p.name for p in _parameters(tool)]


@functools.cache
def _metadata(tool: ToolFunction) -> FuncMetadata:
    return func_metadata(tool, skip_names=[CONTEXT_PARAMETER])


@functools.cache
def _parameters(tool: ToolFunction) -> list[Parameter]:
    schema = _metadata(tool).arg_model.model_json_schema(by_alias=True)
    required = set(schema.get("required", []))
    return [
        Parameter(
            name=name,
            required=name in required,
            default=prop.get("default"),
            schema=prop,
        )
        for name, prop in schema.get("properties", {}).items()
    ]
