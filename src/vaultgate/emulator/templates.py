"""The MCP Tools companion plugin's ``POST /templates/execute`` (NOTES.md §10), minus Templater.

Body (``application/json``): ``{"name": <vault path of the template>, "arguments":
{<name>: <string>}, "createFile": <bool>?, "targetPath": <vault path>?}``.

A template is a note in the vault. Each ``<% tp.mcpTools.prompt("argName", "description") %>``
(or ``<% tp.mcpTools.prompt("argName") %>``; either quote style) is replaced by
``arguments[argName]``, or by "" when the argument is absent. Other Templater tags stay as
written: the emulator runs no JavaScript. With ``createFile`` and ``targetPath`` the
rendered note is also written there, as the companion's ``app.vault.create(targetPath)``
writes it (every release, 0.0.1 to 0.2.31): at exactly that path, no ``.md`` added and no
other name picked; a path that is taken fails ``vault.create``, which the companion answers
with its catch-all 503.

Answers use the companion plugin's own shape, not the Local REST API's: 200
``{"message": "Prompt executed and file created successfully" | "Prompt executed without
creating a file", "content": <rendered>}``; 404 ``{"error": "File not found: <name>"}``; 400
``{"error": "Invalid request body", "summary": ...}``; 503 ``{"error": "An error occurred
while processing the prompt"}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator.bodies import read_body
from vaultgate.emulator.context import context_of
from vaultgate.emulator.responses import json_response
from vaultgate.engine import vaultfs
from vaultgate.engine.errors import EngineError, PathRefused
from vaultgate.paths import is_hidden

_PROMPT = re.compile(
    r"<%[-_]?\s*tp\.mcpTools\.prompt\(\s*(['\"])(?P<name>.*?)\1"
    r"(?:\s*,\s*(['\"]).*?\3)?\s*\)\s*[-_]?%>"
)


_CREATED = "Prompt executed and file created successfully"
_RENDERED = "Prompt executed without creating a file"
_FAILED = "An error occurred while processing the prompt"


class InvalidTemplateRequest(Exception):
    def __init__(self, summary: str) -> None:
        self.summary = summary
        super().__init__(summary)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else "string"


def parse_request(body: Any) -> tuple[str, dict[str, str], bool, str | None]:
    """(name, arguments, createFile, targetPath) or InvalidTemplateRequest."""
    if not isinstance(body, Mapping):
        raise InvalidTemplateRequest(f"must be an object (was {_kind(body)})")
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidTemplateRequest(f"name must be a non-empty string (was {_kind(name)})")
    arguments = body.get("arguments")
    if not isinstance(arguments, Mapping):
        raise InvalidTemplateRequest(f"arguments must be an object (was {_kind(arguments)})")
    for key, value in arguments.items():
        if not isinstance(value, str):
            raise InvalidTemplateRequest(f"arguments.{key} must be a string (was {_kind(value)})")
    create = body.get("createFile", False)
    if not isinstance(create, bool):
        raise InvalidTemplateRequest(f"createFile must be boolean (was {_kind(create)})")
    target = body.get("targetPath")
    if target is not None and not isinstance(target, str):
        raise InvalidTemplateRequest(f"targetPath must be a string (was {_kind(target)})")
    return name, dict(arguments), create, target


def render(template: str, arguments: Mapping[str, str]) -> str:
    """The template with every ``tp.mcpTools.prompt`` tag replaced by its argument."""
    return _PROMPT.sub(lambda match: arguments.get(match.group("name"), ""), template)


def prompt_names(template: str) -> list[str]:
    """The argument names a template asks for, in order, without repeats."""
    return list(dict.fromkeys(match.group("name") for match in _PROMPT.finditer(template)))


async def templates_execute(request: Request) -> Response:
    context = context_of(request)
    state = context.state
    body = await read_body(request)
    try:
        parsed = body.value if body.is_json else (body.text if body.is_text else None)
        name, arguments, create, target = parse_request(parsed)
    except InvalidTemplateRequest as invalid:
        return json_response(
            {"error": "Invalid request body", "summary": invalid.summary}, status=400
        )
    try:
        found = not is_hidden(name) and vaultfs.is_file(state, name)
    except PathRefused:
        found = False
    if not found:
        return json_response({"error": f"File not found: {name}"}, status=404)
    content = render(vaultfs.read_text(state, name), arguments)
    if create and target:
        try:
            taken = vaultfs.is_file(state, target) or vaultfs.is_dir(state, target)
            if not taken:
                vaultfs.write_text(state, target, content)
        except EngineError:  # a path that leaves the vault, or the disk refusing
            taken = True
        if taken:  # vault.create throws; the companion's catch answers 503
            return json_response({"error": _FAILED}, status=503)
        return json_response({"message": _CREATED, "content": content})
    return json_response({"message": _RENDERED, "content": content})
