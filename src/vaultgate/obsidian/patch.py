"""The encoding of one PATCH (``vaultgate.patch_request``) for the running plugin version
(NOTES.md §6).

``encode_patch`` picks the wire format by version:

- before 5.0.0, the 1.x header format (markdown-patch 1.x): ``Operation``, ``Target-Type``,
  ``Target`` (heading components joined with ``::``, percent-encoded because headers are
  ASCII), ``Target-Delimiter``, ``Create-Target-If-Missing`` and a ``Content-Type`` of exactly
  ``text/markdown`` or ``application/json`` (3.6.1 refuses a charset). On 3.x also
  ``Apply-If-Content-Preexists: true``: 3.x otherwise refuses content that is already in the
  target, which turns a retried append into an error; 4.0 made "allow" the default.
  ``Markdown-Patch-Version: 1`` goes along too: older versions ignore it, and it is what 5.x
  would need to accept these headers at all (without it, 400 ``40084``).
- from 5.0.0, the JSON instruction (markdown-patch 2.0) in an ``application/json`` body. 5.x
  still takes 1.x headers with ``Markdown-Patch-Version: 1``, but they are deprecated and go
  away in 6.0, and the instruction carries heading paths as arrays, so a heading text may
  even contain ``::``.

Markdown content rides in the instruction's ``content``, except on a frontmatter key: 2.0
takes frontmatter values only as ``value``, so the text goes there as a JSON string -- what
1.x stores for ``text/markdown`` too. JSON content is parsed and sent as ``value``.
"""

from __future__ import annotations

import json
from typing import Any

from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.encoding import require_whole_characters
from vaultgate.obsidian.features import FeatureSet, Version
from vaultgate.patch_request import HEADING_DELIMITER, PatchRequest, bad_target, parse_json
from vaultgate.paths import encode_header_value

MARKDOWN = "text/markdown"
JSON = "application/json"
CONTENT_GUARD_DEFAULT_OFF_SINCE = Version(4, 0, 0)  # before, Apply-If-Content-Preexists


def encode_patch(request: PatchRequest, version: Version) -> tuple[dict[str, str], bytes]:
    """The headers and body of ``PATCH`` for ``request`` on plugin ``version``."""
    require_whole_characters(request.content, "content")
    target = request.target_value()
    for part in target if isinstance(target, tuple) else (target,):
        require_whole_characters(part, "target")
    if FeatureSet(version).has("patch_v2"):
        return _instruction(request)
    if request.needs_instruction:
        raise InvalidArgument(
            f"Local REST API {version} cannot {request.operation} with scope {request.scope}"
            f"{' or ifMatch' if request.if_match is not None else ''} (plugin 5.0 and later "
            "can); vaultgate edits the note itself on older versions."
        )
    return _header_format(request, version)


def _header_format(request: PatchRequest, version: Version) -> tuple[dict[str, str], bytes]:
    target = request.target_value()
    if isinstance(target, tuple):
        if any(HEADING_DELIMITER in part for part in target):
            bad_target(
                request,
                f"Local REST API {version} joins heading levels with '::', so a heading whose "
                "text contains '::' cannot be targeted before plugin 5.0",
            )
        target = HEADING_DELIMITER.join(target)
    headers = {
        "Operation": request.operation,
        "Target-Type": request.target_type,
        "Target": encode_header_value(target),
        "Target-Delimiter": HEADING_DELIMITER,
        "Create-Target-If-Missing": _flag(request.create_target_if_missing),
        "Content-Type": JSON if request.content_type == "json" else MARKDOWN,
        "Markdown-Patch-Version": "1",
    }
    if version < CONTENT_GUARD_DEFAULT_OFF_SINCE:
        headers["Apply-If-Content-Preexists"] = "true"
    return headers, request.content.encode("utf-8")


def _instruction(request: PatchRequest) -> tuple[dict[str, str], bytes]:
    target = request.target_value()
    instruction: dict[str, Any] = {
        "targetType": request.target_type,
        "target": list(target) if isinstance(target, tuple) else target,
        "operation": request.operation,
    }
    if request.scope != "content":
        instruction["scope"] = request.scope
    if request.operation == "delete":
        pass  # a delete carries no payload
    elif request.content_type == "json":
        instruction["value"] = parse_json(request.content)
    elif request.target_type == "frontmatter":
        instruction["value"] = request.content
    else:
        instruction["content"] = request.content
    instruction["createTargetIfMissing"] = request.create_target_if_missing
    if request.if_match is not None:
        instruction["ifMatch"] = request.if_match
    body = json.dumps(instruction, ensure_ascii=False).encode("utf-8")
    return {"Content-Type": JSON}, body


def _flag(value: bool) -> str:
    return "true" if value else "false"
