"""One change to a note section, as vaultgate asks it of any backend (``Backend.patch_note``).

A :class:`PatchRequest` is checked when built, so an invalid one never exists. It is a pure
value: ``vaultgate.obsidian.patch`` encodes it for the running plugin version, the folder
backend applies it through the engine, and ``vaultgate.protection`` reads it to tell whether
a patch would take a protection tag away. No I/O here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from vaultgate.errors import InvalidArgument

Operation = Literal["append", "prepend", "replace"]
# "delete" exists only in the 2.0 instruction (5.0+); vaultgate sends it for one frontmatter key
# (scope markerAndContent removes the key itself), never from the patch tools.
InstructionOperation = Literal["append", "prepend", "replace", "delete"]
Scope = Literal["content", "markerAndContent"]
TargetType = Literal["heading", "block", "frontmatter"]
ContentType = Literal["markdown", "json"]

HEADING_DELIMITER = "::"

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
            parse_json(self.content)

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
                bad_target(
                    self, "a heading path needs non-empty components, e.g. ('Plan', 'Goals')"
                )
            return path
        if not isinstance(self.target, str):
            bad_target(self, f"a {self.target_type} target is one string, not a path")
        value = self.target.removeprefix("^") if self.target_type == "block" else self.target
        if not value.strip():
            bad_target(self, f"the {self.target_type} target is empty")
        return value


def parse_json(text: str) -> Any:
    """The JSON value of ``content_type="json"`` content (InvalidArgument if it is none)."""
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


def bad_target(request: PatchRequest, reason: str) -> NoReturn:
    """InvalidArgument for a target of the wrong shape, saying why and what shapes work."""
    raise InvalidArgument(
        f"Invalid {request.target_type} target {request.target!r}: {reason}. Give a heading as "
        "'Parent::Child', a block id without '^', or a frontmatter key."
    )
