"""One PATCH of a note section, and its encoding for the running plugin version (NOTES.md §6).

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
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.encoding import require_whole_characters
from vaultgate.obsidian.features import FeatureSet, Version
from vaultgate.paths import encode_header_value

Operation = Literal["append", "prepend", "replace"]
# "delete" exists only in the 2.0 instruction (5.0+); vaultgate sends it for one frontmatter key
# (scope markerAndContent removes the key itself), never from the patch tools.
InstructionOperation = Literal["append", "prepend", "replace", "delete"]
Scope = Literal["content", "markerAndContent"]
TargetType = Literal["heading", "block", "frontmatter"]
ContentType = Literal["markdown", "json"]

HEADING_DELIMITER = "::"
MARKDOWN = "text/markdown"
JSON = "application/json"
CONTENT_GUARD_DEFAULT_OFF_SINCE = Version(4, 0, 0)  # before, Apply-If-Content-Preexists

_JSON_EXAMPLES = (
    '"draft" (quotes included) for a string, 3, true, null, ["a", "b"] for a list, '
    '{"key": 1} for an object, [["cell", "cell"]] for table rows'
)


@dataclass(frozen=True, slots=True)
class PatchRequest:
    """What to change in a note; checked when built, so an invalid one never exists.

    ``target``: a heading as its full path of components (``("A", "B")``; a string is read
    as the ``A::B`` form), a block id (a leading ``^`` is dropped), or a frontmatter key.
    ``content`` is markdown text, or JSON text when ``content_type == "json"``.
    """

    operation: InstructionOperation
    target_type: TargetType
    target: tuple[str, ...] | str
    content: str
    content_type: ContentType = "markdown"
    create_target_if_missing: bool = False
    scope: Scope = "content"
    if_match: str | None = None  # 5.x: refused (412) unless the note is still this version

    def __post_init__(self) -> None:
        self.target_value()  # raises InvalidArgument for a target of the wrong shape
        if self.content_type == "json" and self.operation != "delete":
            _parse_json(self.content)

    @property
    def needs_instruction(self) -> bool:
        """Only the 2.0 instruction can say this (a delete, another scope, an ifMatch)."""
        return self.operation == "delete" or self.scope != "content" or self.if_match is not None

    def heading_path(self) -> tuple[str, ...]:
        """The heading's components (only for ``target_type == "heading"``)."""
        target = self.target
        return target if isinstance(target, tuple) else tuple(target.split(HEADING_DELIMITER))

    def target_value(self) -> tuple[str, ...] | str:
        """The target in its canonical form: components for a heading, else one string."""
        if self.target_type == "heading":
            path = self.heading_path()
            if not path or any(not part.strip() for part in path):
                _bad_target(
                    self, "a heading path needs non-empty components, e.g. ('Plan', 'Goals')"
                )
            return path
        if not isinstance(self.target, str):
            _bad_target(self, f"a {self.target_type} target is one string, not a path")
        value = self.target.removeprefix("^") if self.target_type == "block" else self.target
        if not value.strip():
            _bad_target(self, f"the {self.target_type} target is empty")
        return value


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
            _bad_target(
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
        instruction["value"] = _parse_json(request.content)
    elif request.target_type == "frontmatter":
        instruction["value"] = request.content
    else:
        instruction["content"] = request.content
    instruction["createTargetIfMissing"] = request.create_target_if_missing
    if request.if_match is not None:
        instruction["ifMatch"] = request.if_match
    body = json.dumps(instruction, ensure_ascii=False).encode("utf-8")
    return {"Content-Type": JSON}, body


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise InvalidArgument(
            f"contentType='json' needs the content to be JSON text, and {_preview(text)} is not "
            f"JSON ({exc}). Examples: {_JSON_EXAMPLES}. Or send contentType='markdown'."
        ) from exc


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _preview(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _bad_target(request: PatchRequest, reason: str) -> NoReturn:
    raise InvalidArgument(
        f"Invalid {request.target_type} target {request.target!r}: {reason}. Give a heading as "
        "'Parent::Child', a block id without '^', or a frontmatter key."
    )
