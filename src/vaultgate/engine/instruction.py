"""The 5.x JSON patch instruction (markdown-patch 2.0), validated into a typed value.

``parse_instruction(candidate)`` checks a decoded JSON object against the plugin's
``PatchInstruction`` schema and returns an :class:`Instruction`, or raises
:class:`InvalidInstruction` whose message lists every problem as ``field: message`` joined
with ``; `` (the plugin answers 400 ``40081`` with that text). Validation only: what the
engine emulates is decided in ``patch_v2.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TARGET_TYPES = ("heading", "block", "frontmatter")
OPERATIONS = ("replace", "prepend", "append", "delete")
SCOPES = ("content", "marker", "markerAndContent", "parent")
PAYLOADS = ("content", "value", "destination")
_FIELDS = frozenset(
    {
        "targetType",
        "target",
        "operation",
        "scope",
        *PAYLOADS,
        "createTargetIfMissing",
        "rejectIfContentPreexists",
        "ifMatch",
        "within",
    }
)


class InvalidInstruction(Exception):
    """The instruction is malformed or outside the algebra (plugin: 400 ``40081``)."""


@dataclass(frozen=True, slots=True)
class Instruction:
    target_type: str
    target: tuple[str, ...] | str  # heading: texts from the top level (() = the document)
    operation: str
    scope: str = "content"
    payload: str | None = None  # which of content / value / destination was given
    content: str | None = None
    value: Any = None
    destination: Any = None
    create_target_if_missing: bool = False
    reject_if_content_preexists: bool = False
    if_match: str | None = None
    within: int | None = None


def _enum(problems: list[str], field: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        listed = " | ".join(f"'{item}'" for item in allowed)
        problems.append(f"{field}: Invalid enum value. Expected {listed}, received {value!r}")


def _target(problems: list[str], target_type: Any, raw: Any) -> tuple[str, ...] | str:
    if target_type == "heading":
        if raw is None:
            return ()
        if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
            return tuple(raw)
        problems.append("target: a heading target is an array of heading texts, or null")
        return ()
    if not isinstance(raw, str) or not raw:
        problems.append("target: Expected a non-empty string")
        return ""
    return raw


def _flag(problems: list[str], candidate: Mapping[str, Any], field: str) -> bool:
    value = candidate.get(field, False)
    if not isinstance(value, bool):
        problems.append(f"{field}: Expected boolean, received {type(value).__name__}")
        return False
    return value


def parse_instruction(candidate: Mapping[str, Any]) -> Instruction:
    problems: list[str] = []
    unknown = sorted(set(candidate) - _FIELDS)
    if unknown:
        listed = ", ".join(f"'{key}'" for key in unknown)
        problems.append(f"Unrecognized key(s) in object: {listed}")
    for field in ("targetType", "target", "operation"):
        if field not in candidate:
            problems.append(f"{field}: Required")
    target_type = candidate.get("targetType")
    operation = candidate.get("operation")
    scope = candidate.get("scope", "content")
    if "targetType" in candidate:
        _enum(problems, "targetType", target_type, TARGET_TYPES)
    if "operation" in candidate:
        _enum(problems, "operation", operation, OPERATIONS)
    _enum(problems, "scope", scope, SCOPES)
    target: tuple[str, ...] | str = ()
    if "target" in candidate and target_type in TARGET_TYPES:
        target = _target(problems, target_type, candidate["target"])
    payloads = [field for field in PAYLOADS if field in candidate]
    if operation == "delete" and payloads:
        problems.append("A delete carries no payload: drop content, value and destination")
    elif operation != "delete" and len(payloads) != 1:
        problems.append("Provide exactly one of content, value, or destination")
    content = candidate.get("content")
    if "content" in candidate and not isinstance(content, str):
        problems.append("content: Expected string")
    if_match = candidate.get("ifMatch")
    if if_match is not None and not isinstance(if_match, str):
        problems.append("ifMatch: Expected string")
    within = candidate.get("within")
    if within is not None and (isinstance(within, bool) or not isinstance(within, int)):
        problems.append("within: Expected integer")
    create = _flag(problems, candidate, "createTargetIfMissing")
    reject = _flag(problems, candidate, "rejectIfContentPreexists")
    if problems:
        raise InvalidInstruction("; ".join(problems))
    return Instruction(
        target_type=str(target_type),
        target=target,
        operation=str(operation),
        scope=str(scope),
        payload=payloads[0] if payloads else None,
        content=content if isinstance(content, str) else None,
        value=candidate.get("value"),
        destination=candidate.get("destination"),
        create_target_if_missing=create,
        reject_if_content_preexists=reject,
        if_match=if_match,
        within=within,
    )
