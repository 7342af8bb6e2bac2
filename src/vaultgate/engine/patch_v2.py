"""The 5.x JSON-instruction PATCH engine (markdown-patch 2.0), for what the emulator covers.

Emulated (``apply_instruction(text, instruction)``):

- scope ``content`` with every operation, on headings, blocks and frontmatter keys;
- scope ``marker`` with ``replace``: rename a heading, a block id or a frontmatter key;
- scope ``markerAndContent`` with ``delete``: remove a heading with its subtree, a labelled
  block with its id, or a frontmatter key.

Other combinations the plugin accepts (sibling inserts, moves with ``destination``,
``within``) raise InvalidInstruction saying they are not emulated, so a test notices.

Headings (content scope) are addressed by the 2.x address (texts from the top level, later
same-text siblings with ``markdown.DUPLICATE_MARKER`` suffixes; ``()`` is the whole
document). Whitespace is the engine's: content is trimmed of blank lines at both ends and
ends with one line break; ``append``/``prepend`` add it as a new block (blank line
between), ``replace`` swaps the body and keeps the blank line under the heading and the gap
before the next one; a flush section stays flush. ``#``s in content are relative: ``#`` is a
direct child of the target (a level past 6 is written and warned about). A missing heading
with ``createTargetIfMissing`` is created under its deepest existing ancestor, at the end
of that section, at the right level. Blocks are spliced literally; JSON ``value`` rows edit
a labelled table (cells escaped, one line each). Frontmatter takes ``value`` and merges as
1.x does; a type mismatch is a failed patch (400 ``40080``). A frontmatter change rewrites
only the key's lines (``vaultgate.frontmatter_edit``), where the plugin's engine rewrites the
block; one that cannot be made there is a failed patch saying why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from vaultgate import frontmatter_edit, markdown
from vaultgate.engine.instruction import Instruction, InvalidInstruction
from vaultgate.engine.representations import content_version
from vaultgate.engine.targets import heading_addresses
from vaultgate.patching import (
    PatchFailed,
    UnparseableFrontmatter,
    block_span,
    is_mergeable,
    line_ending,
    merge_values,
    set_frontmatter_value,
    splice_rows,
    split_table,
)

__all__ = [
    "CannotApply",
    "ContentPreexists",
    "KeyCollision",
    "PatchResult",
    "PreconditionFailed",
    "TargetNotFound",
    "apply_instruction",
]

_LEADING_BLANK_LINES = re.compile(r"(?:[ \t]*\r?\n)*")
_HEADING_PREFIX = re.compile(r" {0,3}#{1,6}[ \t]+")
_BLOCK_ID = re.compile(r"[A-Za-z0-9_-]+")


class PatchError(Exception):
    """A 2.x patch that cannot apply; each subclass is one HTTP answer."""


class TargetNotFound(PatchError):
    """404: the heading, block or key does not exist (and is not to be created)."""


class ContentPreexists(PatchError):
    """409: ``rejectIfContentPreexists`` and the content is already there."""


class KeyCollision(PatchError):
    """409: renaming a frontmatter key onto one that exists."""


class PreconditionFailed(PatchError):
    """412: ``ifMatch`` does not match the document's version."""


class CannotApply(PatchError):
    """400 ``40080``: anything else that stops the patch (a merge of mismatched types)."""


@dataclass(frozen=True, slots=True)
class PatchResult:
    document: str
    warnings: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Section:
    level: int  # 0 for the document root
    start: int  # the heading line (== body_start for the root)
    body_start: int
    end: int


def apply_instruction(text: str, instruction: Instruction) -> PatchResult:
    if instruction.if_match is not None and instruction.if_match != content_version(text):
        raise PreconditionFailed(
            f"The document changed since version {instruction.if_match!r}; "
            f"it is now {content_version(text)!r}."
        )
    frontmatter = markdown.parse_frontmatter(text)
    if not frontmatter.valid:
        raise UnparseableFrontmatter("The note's YAML frontmatter cannot be parsed.")
    _require_emulated(instruction)
    warnings: list[dict[str, str]] = []
    if instruction.target_type == "heading":
        document = _heading(text, frontmatter.end, instruction, warnings)
    elif instruction.target_type == "block":
        document = _block(text, instruction)
    else:
        document = _frontmatter(text, frontmatter.data, instruction)
    return PatchResult(document, warnings)


def _require_emulated(instruction: Instruction) -> None:
    scope, operation = instruction.scope, instruction.operation
    if instruction.within is not None:
        raise InvalidInstruction("within is not emulated")
    if scope == "parent" or instruction.payload == "destination":
        raise InvalidInstruction("moving a heading (scope parent, destination) is not emulated")
    if scope == "marker" and operation != "replace":
        raise InvalidInstruction(f"scope marker with operation {operation} is not emulated")
    if scope == "markerAndContent" and operation != "delete":
        raise InvalidInstruction(
            f"scope markerAndContent with operation {operation} is not emulated"
        )
    if scope == "marker" and instruction.payload != "content":
        raise InvalidInstruction("a rename (scope marker) takes the new name as content")


def _describe(instruction: Instruction) -> str:
    target = instruction.target
    if instruction.target_type == "heading":
        parts = [part.rstrip(markdown.DUPLICATE_MARKER) for part in target]
        return f'heading "{" > ".join(parts)}"' if parts else "document root"
    if instruction.target_type == "block":
        return f'block "^{target}"'
    return f'frontmatter field "{target}"'


def _not_found(instruction: Instruction) -> TargetNotFound:
    return TargetNotFound(
        f"Cannot {instruction.operation} {_describe(instruction)}: target not found in document"
    )


def _preexists(instruction: Instruction) -> ContentPreexists:
    return ContentPreexists(
        f"Cannot {instruction.operation} {_describe(instruction)}: content already exists at target"
    )


# --- content shaping ------------------------------------------------------------------------


def normalize(content: str, le: str) -> str:
    """Blank lines trimmed at both ends; a non-empty result ends with exactly one break."""
    lines = content.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return le.join(lines) + le if lines else ""


def rebase(content: str, by: int, warnings: list[dict[str, str]]) -> str:
    """``content`` with every heading ``by`` levels deeper (relative heading levels)."""
    headings = markdown.parse_headings(content)
    if not headings or by == 0:
        return content
    pieces: list[str] = []
    cursor = 0
    for heading in headings:
        hashes = content.index("#", heading.start)
        level = heading.level + by
        if level > 6:
            warnings.append(
                {
                    "code": "heading-depth-overflow",
                    "message": f"Heading {heading.text!r} was rebased to level {level}.",
                }
            )
        pieces += (content[cursor:hashes], "#" * level)
        cursor = hashes + heading.level
    pieces.append(content[cursor:])
    return "".join(pieces)


def split_body(body: str) -> tuple[str, str, str]:
    """(blank lines under the heading, the content, blank lines before the next heading).

    An empty section is all gap: ``("", "", body)``.
    """
    lead = _LEADING_BLANK_LINES.match(body)
    assert lead is not None  # the pattern matches the empty string
    rest = body[lead.end() :]
    if not rest.strip():
        return "", "", body
    last = len(rest.rstrip())
    newline = rest.find("\n", last)
    if newline == -1:
        return lead.group(0), rest, ""
    return lead.group(0), rest[: newline + 1], rest[newline + 1 :]


def edit_body(body: str, operation: str, content: str, le: str) -> str:
    """The section body after ``operation`` with already-shaped ``content``."""
    lead, core, trail = split_body(body)
    if operation in ("replace", "delete"):
        new = content if operation == "replace" else ""
        return lead + new + trail if new else trail or lead
    if not content:
        return body
    if not core:
        return content + trail
    if operation == "append":
        joint = le if core.endswith("\n") else le + le
        return lead + core + joint + content + trail
    return lead + content + le + core + trail


# --- headings -------------------------------------------------------------------------------


def _sections(text: str, body_start: int) -> dict[tuple[str, ...], _Section]:
    sections: dict[tuple[str, ...], _Section] = {(): _Section(0, body_start, body_start, len(text))}
    headings = markdown.parse_headings(text)
    for heading, address in zip(headings, heading_addresses(headings), strict=True):
        sections[address] = _Section(heading.level, heading.start, heading.body_start, heading.end)
    return sections


def _heading(
    text: str, body_start: int, instruction: Instruction, warnings: list[dict[str, str]]
) -> str:
    target = tuple(instruction.target)
    le = line_ending(text)
    if instruction.payload == "value":
        raise InvalidInstruction(
            "value: a heading target has no structured form; send its body as content"
        )
    sections = _sections(text, body_start)
    section = sections.get(target)
    if section is None:
        if not instruction.create_target_if_missing or instruction.operation == "delete":
            raise _not_found(instruction)
        return _create_heading(text, sections, instruction, warnings)
    if not target and instruction.scope != "content":
        raise InvalidInstruction("the document root has no marker")
    if instruction.scope == "marker":
        return _rename_heading(text, section, instruction.content or "")
    if instruction.scope == "markerAndContent":
        return text[: section.start] + text[section.end :]
    body = text[section.body_start : section.end]
    content = rebase(normalize(instruction.content or "", le), section.level, warnings)
    if (
        instruction.reject_if_content_preexists
        and instruction.operation in ("append", "prepend")
        and content.strip()
        and content.strip() in body
    ):
        raise _preexists(instruction)
    new_body = edit_body(body, instruction.operation, content, le)
    return text[: section.body_start] + new_body + text[section.end :]


def _create_heading(
    text: str,
    sections: dict[tuple[str, ...], _Section],
    instruction: Instruction,
    warnings: list[dict[str, str]],
) -> str:
    if instruction.scope != "content":
        raise _not_found(instruction)
    target = tuple(instruction.target)
    depth = max(n for n in range(len(target) + 1) if target[:n] in sections)
    parent = sections[target[:depth]]
    missing = target[depth:]
    if any(markdown.DUPLICATE_MARKER in part for part in missing):
        raise InvalidInstruction("a heading to create cannot carry the duplicate marker")
    le = line_ending(text)
    lines = [f"{'#' * (parent.level + i)} {part}{le}" for i, part in enumerate(missing, 1)]
    level = parent.level + len(missing)
    content = rebase(normalize(instruction.content or "", le), level, warnings)
    subtree = "".join(lines) + content
    body = text[parent.body_start : parent.end]
    lead, core, trail = split_body(body)
    if core:
        joint = le if core.endswith("\n") else le + le
        new_body = lead + core + joint + subtree + trail
    else:
        new_body = subtree + trail
    if parent.end == parent.body_start == len(text) and text and not text.endswith("\n"):
        new_body = le + new_body  # a heading line with no line break before it
    return text[: parent.body_start] + new_body + text[parent.end :]


def _rename_heading(text: str, section: _Section, name: str) -> str:
    if "\n" in name or "\r" in name or not name.strip():
        raise InvalidInstruction("content: a heading name is one non-empty line")
    line = text[section.start : section.body_start]
    prefix = _HEADING_PREFIX.match(line)
    assert prefix is not None  # a parsed heading line starts this way
    ending = line[len(line.rstrip("\r\n")) :]
    return text[: section.start] + prefix.group(0) + name + ending + text[section.body_start :]


# --- blocks ---------------------------------------------------------------------------------


def _block(text: str, instruction: Instruction) -> str:
    block_id = str(instruction.target)
    span = block_span(text, block_id)
    if span is None:
        if (
            not instruction.create_target_if_missing
            or instruction.operation == "delete"
            or instruction.payload != "content"
            or instruction.scope != "content"
        ):
            raise _not_found(instruction)
        le = line_ending(text)
        gap = "" if not text else (le if text.endswith("\n") else le + le)
        return f"{text}{gap}{(instruction.content or '').strip()} ^{block_id}{le}"
    start, end = span
    marker = re.compile(rf"[ \t]*\^{re.escape(block_id)}[ \t]*(?:\r?\n|$)").search(text, end)
    if instruction.scope == "marker":
        new_id = instruction.content or ""
        if not _BLOCK_ID.fullmatch(new_id):
            raise InvalidInstruction(
                "content: a block id has letters, numbers, hyphens and underscores only"
            )
        at = text.index(f"^{block_id}", end)
        return text[: at + 1] + new_id + text[at + 1 + len(block_id) :]
    if instruction.scope == "markerAndContent":
        stop = marker.end() if marker is not None else end
        return text[:start] + text[stop:]
    if instruction.payload == "value":
        return text[:start] + _table_rows(text[start:end], instruction) + text[end:]
    content = instruction.content or ""
    if (
        instruction.reject_if_content_preexists
        and instruction.operation in ("append", "prepend")
        and content.strip() in text[start:end]
    ):
        raise _preexists(instruction)
    if instruction.operation == "append":
        return text[:end] + content + text[end:]
    if instruction.operation == "prepend":
        return text[:start] + content + text[start:]
    replacement = content if instruction.operation == "replace" else ""
    return text[:start] + replacement + text[end:]


def _table_rows(region: str, instruction: Instruction) -> str:
    table = split_table(region)
    if table is None:
        raise InvalidInstruction("value: table rows need a block that labels a table")
    rows = instruction.value
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise InvalidInstruction("value: table rows are a 2-D array of strings")
    rendered: list[str] = []
    for number, row in enumerate(rows):
        if len(row) != table.columns:
            raise InvalidInstruction(
                f"value[{number}]: the row has {len(row)} cells; the table has "
                f"{table.columns} columns"
            )
        rendered.append(f"| {' | '.join(_cell(cell, number) for cell in row)} |")
    return splice_rows(table, rendered, instruction.operation)


def _cell(cell: Any, row: int) -> str:
    if not isinstance(cell, str):
        raise InvalidInstruction(f"value[{row}]: table cells are strings")
    if "\n" in cell or "\r" in cell:
        raise InvalidInstruction(f"value[{row}]: a table cell cannot contain a line break")
    return cell.replace("|", "\\|")


# --- frontmatter ----------------------------------------------------------------------------


def _contains(existing: Any, incoming: Any) -> bool:
    if isinstance(existing, list) and isinstance(incoming, list):
        return all(item in existing for item in incoming)
    if isinstance(existing, dict) and isinstance(incoming, dict):
        return all(existing.get(key) == value for key, value in incoming.items())
    return isinstance(existing, str) and isinstance(incoming, str) and incoming in existing


def _frontmatter(text: str, data: dict[str, Any], instruction: Instruction) -> str:
    key = str(instruction.target)
    data = dict(data)
    if instruction.scope == "marker":
        return _rename_key(text, data, key, instruction)
    if instruction.payload == "content":
        raise InvalidInstruction("content: a frontmatter value rides in value, not content")
    if key not in data:
        if not instruction.create_target_if_missing or instruction.operation == "delete":
            raise _not_found(instruction)
        if instruction.operation != "replace":
            data[key] = _empty_like(instruction.value)
    if instruction.scope == "markerAndContent":
        try:
            return frontmatter_edit.delete_key(text, key)
        except frontmatter_edit.NotEditableInPlace as refused:
            raise CannotApply(str(refused)) from None
    value = instruction.value
    if instruction.operation == "replace":
        data[key] = value
    elif instruction.operation == "delete":
        data[key] = None
    else:
        existing = data[key]
        if instruction.reject_if_content_preexists and _contains(existing, value):
            raise _preexists(instruction)
        if not is_mergeable(value):
            raise CannotApply(_merge_message(existing, value))
        try:
            data[key] = (
                merge_values(existing, value)
                if instruction.operation == "append"
                else merge_values(value, existing)
            )
        except PatchFailed:
            raise CannotApply(_merge_message(existing, value)) from None
    try:
        return set_frontmatter_value(text, key, data[key])
    except PatchFailed as refused:
        raise CannotApply(refused.reason) from None


def _empty_like(value: Any) -> Any:
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return "" if isinstance(value, str) else None


def _js_type(value: Any) -> str:
    if value is None or isinstance(value, (list, dict)):
        return "object"
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, (int, float)) else "string"


def _merge_message(existing: Any, value: Any) -> str:
    return (
        "Cannot merge objects of different types or unsupported types: "
        f"{_js_type(existing)} and {_js_type(value)}"
    )


def _rename_key(text: str, data: dict[str, Any], key: str, instruction: Instruction) -> str:
    new_key = instruction.content or ""
    if key not in data:
        raise _not_found(instruction)
    if not new_key:
        raise InvalidInstruction("content: the new key name is empty")
    if new_key != key and new_key in data:
        raise KeyCollision(f"Frontmatter field {new_key!r} already exists.")
    if new_key == key:
        return text
    try:
        return frontmatter_edit.rename_key(text, key, new_key)
    except frontmatter_edit.NotEditableInPlace as refused:
        raise CannotApply(str(refused)) from None
