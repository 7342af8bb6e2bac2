"""The plugin's header-driven PATCH (markdown-patch 1.x) as a pure function on note text.

``apply_patch(text, Patch(...))`` returns the patched note, or raises :class:`PatchFailed`
carrying one of the plugin's reason strings (the second line of its 400 ``40080`` answer).
The emulator serves this for the 1.x header format (plugin 3.x-4.x, and 5.x under
``Markdown-Patch-Version: 1``). vaultgate's own client never patches locally; this module is
what "correct" means in the end-to-end tests, so it follows markdown-patch 1.x closely,
quirks included. No I/O here.

Targets (NOTES.md §6):

- heading: a full path from a top-level heading, e.g. ``("Plan", "Goals")``. The section is
  everything below the heading line down to the next heading of the same or higher level
  (sub-sections included). A bare sub-heading name is not a path: it fails
  ``invalid-target``, and with ``create_target_if_missing`` a *new* heading is appended at
  the end of the deepest existing ancestor's section (for a bare leaf that is the end of the
  note) -- the duplicate-heading trap users hit. The new headings' levels count path depth
  (``#`` for the first level of the path). When several headings share one full path the
  last of them is the target: markdown-patch keys its map by path and later ones overwrite.
- block: a ``^id``; the paragraph, list item or table it labels (the first one with that id).
  A table labelled by an id on its own line includes the line break after its last row.
- frontmatter: one key. Markdown content is stored as a string; JSON content keeps its type.
  Only the key's lines change (``vaultgate.frontmatter_edit``); the plugin's engine
  re-serialises the whole block, dropping comments and restyling every line -- a departure on
  purpose. A change that cannot be made on the key's lines fails with a reason saying so.

Operations on headings and blocks splice text exactly where the engine does:
``prepend`` at the start of the target, ``append`` at its end, ``replace`` swaps it. Where a
heading section ends in a blank line before the next heading, ``append``/``replace`` keep
that blank line after the new content; an ``append`` to the last section drops surplus
blank lines at the end of the note first. ``trim_target_whitespace`` strips whitespace at
the joint (before the content for ``append``, after it for ``prepend``).

JSON content on a heading or block addresses the table that starts the target: a 2-D array
of string cells (or one row as a flat array) appended, prepended or replacing the body rows;
every row needs as many cells as the header has columns. (The real engine's catch-all
``catch`` reports every table failure as ``content-type-invalid-for-target``; this module
gives the specific reasons, which the plugin documents.)

Frontmatter ``append``/``prepend`` merge: list + list concatenates, object + object merges
(incoming keys win), string + string concatenates; anything else is
``content-not-mergeable``. With ``create_target_if_missing`` a missing key starts as
``[]``, ``""`` or ``{}`` to match a list, string or object; ``replace`` creates any type.

The duplicate-content guard (:class:`ContentGuard`) differs by plugin version: 3.x fails any
operation whose trimmed text already occurs in the target unless the client sent
``Apply-If-Content-Preexists: true``; 4.0+ checks only ``append``/``prepend`` and only when
asked with ``Reject-If-Content-Preexists: true``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import frontmatter_edit, markdown
from vaultgate.errors import SectionNotFound

__all__ = [
    "CONTENT_NOT_MERGEABLE",
    "CONTENT_PREEXISTS",
    "CONTENT_TYPE_INVALID",
    "CONTENT_TYPE_INVALID_FOR_TARGET",
    "INVALID_TARGET",
    "TABLE_COLUMN_COUNT",
    "ContentGuard",
    "Patch",
    "PatchFailed",
    "TableParts",
    "UnparseableFrontmatter",
    "apply_patch",
    "block_span",
    "is_mergeable",
    "line_ending",
    "merge_values",
    "set_frontmatter_value",
    "splice_rows",
    "split_table",
]

Operation = Literal["append", "prepend", "replace"]
TargetType = Literal["heading", "block", "frontmatter"]
ContentType = Literal["markdown", "json"]
Scope = Literal["content", "marker", "markerAndContent"]

INVALID_TARGET = "invalid-target"
CONTENT_PREEXISTS = "content-already-preexists-in-target"
TABLE_COLUMN_COUNT = "table-content-incorrect-column-count"
CONTENT_TYPE_INVALID = "content-type-invalid"
CONTENT_TYPE_INVALID_FOR_TARGET = "content-type-invalid-for-target"
CONTENT_NOT_MERGEABLE = "content-not-mergeable"


class PatchFailed(Exception):
    """The patch cannot apply; ``reason`` is the plugin's reason string.

    Not part of vaultgate's error tree: it models the plugin's answer for the emulator,
    and the MCP server never patches locally.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class UnparseableFrontmatter(Exception):
    """The note's YAML frontmatter cannot be parsed, so no patch applies (plugin: 40005)."""


class ContentGuard(enum.Enum):
    """When an already-present text makes the patch fail with ``CONTENT_PREEXISTS``."""

    OFF = "off"  # 3.x with Apply-If-Content-Preexists: true; 4.0+ by default
    EXTENDING = "extending"  # 4.0+ with Reject-If-Content-Preexists: true: append/prepend only
    ALL = "all"  # 3.x default: every operation, replace included


@dataclass(frozen=True, slots=True)
class Patch:
    """One header-driven patch instruction.

    ``target`` is a heading path tuple for headings (``()`` is the whole body), a block id
    (no ``^``) or a frontmatter key. ``content`` is text for ``content_type="markdown"`` and
    any JSON value for ``"json"``.
    """

    operation: Operation
    target_type: TargetType
    target: str | tuple[str, ...]
    content: Any
    content_type: ContentType = "markdown"
    create_target_if_missing: bool = False
    trim_target_whitespace: bool = False
    guard: ContentGuard = ContentGuard.OFF
    scope: Scope = "content"


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Node:
    """A target's label (heading line, ``^id``) and its content, as offsets into the text."""

    marker: _Span
    content: _Span


def line_ending(text: str) -> str:
    """The note's line ending as the engine picks it: CRLF if the note has any."""
    return "\r\n" if "\r\n" in text else "\n"


def apply_patch(text: str, patch: Patch) -> str:
    """``text`` with ``patch`` applied; raises PatchFailed or UnparseableFrontmatter."""
    if patch.content_type == "markdown" and not isinstance(patch.content, str):
        raise TypeError("markdown content must be a str")
    frontmatter = markdown.parse_frontmatter(text)
    # the engine parses the YAML for every patch, so broken YAML fails them all
    if not frontmatter.valid:
        raise UnparseableFrontmatter("The note's YAML frontmatter cannot be parsed.")
    if patch.target_type == "frontmatter":
        return _patch_frontmatter(text, frontmatter, patch)
    node = _find(text, patch, frontmatter.end)
    if node is None:
        if not patch.create_target_if_missing:
            raise PatchFailed(INVALID_TARGET)
        return _add_target(text, patch, frontmatter.end)
    if _guard_trips(text, node, patch):
        raise PatchFailed(CONTENT_PREEXISTS)
    span = _effective(node, patch.scope)
    if patch.content_type == "json":
        return _patch_table(text, span, patch)
    if patch.operation == "append":
        return _append(text, span, patch.content, trim=patch.trim_target_whitespace)
    if patch.operation == "prepend":
        return _prepend(text, span, patch.content, trim=patch.trim_target_whitespace)
    return _replace(text, span, patch.content)


# --- targets --------------------------------------------------------------------------------


def _heading_nodes(text: str, body_start: int) -> dict[tuple[str, ...], _Node]:
    """Heading path -> node, with ``()`` for the whole body; later duplicates overwrite."""
    nodes: dict[tuple[str, ...], _Node] = {(): _Node(_Span(0, 0), _Span(body_start, len(text)))}
    for heading in markdown.parse_headings(text):
        nodes[heading.path] = _Node(
            _Span(heading.start, heading.body_start), _Span(heading.body_start, heading.end)
        )
    return nodes


def _block_node(text: str, block_id: str) -> _Node | None:
    try:
        start, end = markdown.find_block(text, block_id)
    except SectionNotFound:
        return None
    marker = re.compile(rf"[ \t]*\^{re.escape(block_id)}[ \t]*(?:\r?\n|$)").search(text, end)
    if marker is None:  # find_block found it, so this cannot happen; stay total anyway
        return _Node(_Span(end, end), _Span(start, end))
    line_start = text.rfind("\n", 0, marker.start()) + 1
    isolated = not text[line_start : marker.start()].strip(" \t")
    if (
        isolated
        and split_table(text[start:end]) is not None
        and text.startswith(("\n", "\r\n"), end)
    ):
        # the engine's table token swallows the line break after the last row
        end += 2 if text.startswith("\r\n", end) else 1
    return _Node(_Span(marker.start(), marker.end()), _Span(start, end))


def block_span(text: str, block_id: str) -> tuple[int, int] | None:
    """(start, end) of the content ``^block_id`` labels as the engine sees it, or None."""
    node = _block_node(text, block_id)
    return None if node is None else (node.content.start, node.content.end)


def _find(text: str, patch: Patch, body_start: int) -> _Node | None:
    if patch.target_type == "heading":
        return _heading_nodes(text, body_start).get(_path(patch.target))
    return _block_node(text, str(patch.target))


def _path(target: str | tuple[str, ...]) -> tuple[str, ...]:
    return (target,) if isinstance(target, str) else target


def _effective(node: _Node, scope: Scope) -> _Span:
    # markdown-patch 1.x widens the range only for markerAndContent; "marker" edits content
    if scope != "markerAndContent":
        return node.content
    return _Span(min(node.marker.start, node.content.start), max(node.marker.end, node.content.end))


def _guard_trips(text: str, node: _Node, patch: Patch) -> bool:
    if patch.guard is ContentGuard.OFF or not isinstance(patch.content, str):
        return False
    if patch.guard is ContentGuard.EXTENDING:
        if patch.operation == "replace":
            return False
        span = _effective(node, patch.scope)
    else:
        span = node.content  # 3.x had no scopes
    return patch.content.strip() in text[span.start : span.end]


def _add_target(text: str, patch: Patch, body_start: int) -> str:
    if not isinstance(patch.content, str):
        # the engine would splice the JSON value's JS string form; refuse instead
        raise PatchFailed(CONTENT_TYPE_INVALID_FOR_TARGET)
    le = line_ending(text)
    if patch.target_type == "block":
        return f"{text}{le}{patch.content}{le}{le}^{patch.target}"
    path = _path(patch.target)
    nodes = _heading_nodes(text, body_start)
    matched, best = 0, nodes[()]
    while matched < len(path) and path[: matched + 1] in nodes:
        matched += 1
        best = nodes[path[:matched]]
    end = best.content.end
    pieces = [] if text[end - len(le) : end] == le else [le]
    for level, part in enumerate(path[matched:], start=matched + 1):
        pieces.append(f"{'#' * level} {part}{le}")
    pieces.append(patch.content)
    return text[:end] + "".join(pieces) + text[end:]


# --- text operations ------------------------------------------------------------------------


def _ends_in_blank_line(text: str, end: int, le: str) -> bool:
    return end >= 2 * len(le) and text[end - 2 * len(le) : end] == le + le


def _append(text: str, span: _Span, content: str, *, trim: bool) -> str:
    end = span.end
    suffix = text[end:]
    le = line_ending(text)
    # a section's closing blank line belongs after the new content, not before it
    blank_before_next = (
        not trim
        and bool(suffix)
        and not suffix.startswith(le)
        and _ends_in_blank_line(text, end, le)
    )
    if blank_before_next and not content.endswith(le + le):
        content += le if content.endswith(le) else le + le
    if trim:
        return text[:end].rstrip() + content + suffix
    if not suffix:  # the last section: trailing blank lines are the note's, not the section's
        while _ends_in_blank_line(text, end, le):
            end -= len(le)
    return text[:end] + content + suffix


def _prepend(text: str, span: _Span, content: str, *, trim: bool) -> str:
    rest = text[span.start :]
    return text[: span.start] + content + (rest.lstrip() if trim else rest)


def _replace(text: str, span: _Span, content: str) -> str:
    suffix = text[span.end :]
    suffix_le = "\r\n" if suffix.startswith("\r\n") else "\n"
    le = line_ending(text)
    single_break = suffix.startswith(suffix_le) and not suffix.startswith(suffix_le * 2)
    blank_before_next = (
        bool(suffix) and not suffix.startswith(le) and _ends_in_blank_line(text, span.end, le)
    )
    if single_break and not content.endswith("\n"):
        content += suffix_le  # a table's span ends on its separator line break
    elif blank_before_next and not content.endswith(le + le):
        content += le if content.endswith(le) else le + le
    return text[: span.start] + content + suffix


# --- tables ---------------------------------------------------------------------------------

_FIRST_TWO_LINES = re.compile(r"([^\r\n]*)\r?\n([^\r\n]*)(\r?\n)")
_DELIMITER_CELL = re.compile(r"\s*:?-+:?\s*")


def _cells(row: str) -> list[str]:
    inner = row.strip()
    inner = inner.removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return re.split(r"(?<!\\)\|", inner)


@dataclass(frozen=True, slots=True)
class TableParts:
    """A GFM table at the start of a region: its header and rule lines, the rest, its width."""

    header: str  # the header row and the rule row, each with its line break
    body: str  # everything after the rule row
    columns: int
    line_ending: str


def split_table(region: str) -> TableParts | None:
    """The table that ``region`` starts with, or None if its first two lines are not one."""
    lines = _FIRST_TWO_LINES.match(region)
    if lines is None or "|" not in lines.group(1):
        return None
    columns = _cells(lines.group(1))
    rule = _cells(lines.group(2))
    if len(rule) != len(columns) or not all(_DELIMITER_CELL.fullmatch(c) for c in rule):
        return None
    le = lines.group(3)
    header = f"{lines.group(1)}{le}{lines.group(2)}{le}"
    return TableParts(header, region[lines.end() :], len(columns), le)


def splice_rows(table: TableParts, rows: list[str], operation: str) -> str:
    """The table rebuilt with ``rows`` (rendered, without line breaks) added or swapped in."""
    le = table.line_ending
    body = table.body
    if body and not body.endswith(("\n", "\r")):
        body += le  # keep new rows off the last row's line (the engine would glue them)
    new = "".join(row + le for row in rows)
    if operation == "append":
        return table.header + body + new
    if operation == "prepend":
        return table.header + new + body
    return table.header + new


def _rows(content: Any) -> list[list[str]]:
    if isinstance(content, list) and all(isinstance(cell, str) for cell in content):
        content = [content]  # one row given flat
    if not isinstance(content, list) or not all(
        isinstance(row, list) and all(isinstance(cell, str) for cell in row) for row in content
    ):
        raise PatchFailed(CONTENT_TYPE_INVALID)
    return content


def _patch_table(text: str, span: _Span, patch: Patch) -> str:
    table = split_table(text[span.start : span.end])
    if table is None:
        raise PatchFailed(CONTENT_TYPE_INVALID_FOR_TARGET)
    rows = _rows(patch.content)
    if any(len(row) != table.columns for row in rows):
        raise PatchFailed(TABLE_COLUMN_COUNT)
    rendered = [f"| {' | '.join(row)} |" for row in rows]
    return text[: span.start] + splice_rows(table, rendered, patch.operation) + text[span.end :]


# --- frontmatter ----------------------------------------------------------------------------


def is_mergeable(value: Any) -> bool:
    """Whether ``value`` can take part in an append/prepend merge at all."""
    return isinstance(value, (list, dict, str))


def merge_values(first: Any, second: Any) -> Any:
    """``first`` followed by ``second``: lists concatenate, objects merge, strings join."""
    if isinstance(first, list) and isinstance(second, list):
        return [*first, *second]
    if isinstance(first, dict) and isinstance(second, dict):
        return {**first, **second}
    if isinstance(first, str) and isinstance(second, str):
        return first + second
    raise PatchFailed(CONTENT_NOT_MERGEABLE)


def _patch_frontmatter(text: str, frontmatter: markdown.Frontmatter, patch: Patch) -> str:
    data = dict(frontmatter.data)
    key = str(patch.target)
    content = patch.content
    if key not in data:
        if not patch.create_target_if_missing:
            raise PatchFailed(INVALID_TARGET)
        if isinstance(content, list):
            data[key] = []
        elif isinstance(content, str):
            data[key] = ""
        elif isinstance(content, dict):
            data[key] = {}
    if patch.operation in ("append", "prepend"):
        if not is_mergeable(content):
            raise PatchFailed(CONTENT_NOT_MERGEABLE)
        existing = data[key]
        data[key] = (
            merge_values(existing, content)
            if patch.operation == "append"
            else merge_values(content, existing)
        )
    else:
        data[key] = content
    return set_frontmatter_value(text, key, data[key])


def set_frontmatter_value(text: str, key: str, value: Any) -> str:
    """``text`` with one frontmatter key set on its own lines (the rest byte for byte); a
    change that cannot be made there fails the patch with the reason, never by rewriting
    the block as the plugin's engine does."""
    try:
        return frontmatter_edit.set_value(text, key, value)
    except frontmatter_edit.NotEditableInPlace as refused:
        raise PatchFailed(str(refused)) from None
