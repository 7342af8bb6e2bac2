"""Protection tags: what ``mcp-hidden``, ``mcp-readonly`` and ``mcp-protected`` forbid.

A note carries a protection tag when its frontmatter says so, as Obsidian reads tags there:
any key named ``tags`` or ``tag`` in any case, holding a YAML list or a string of tags
separated by commas or blanks, each with or without its ``#``, compared case-insensitively
(``#MCP-Hidden`` is ``mcp-hidden``). Inline ``#tags`` in the body do not protect a note:
anyone who can append to a note could otherwise lock it.

- ``mcp-hidden``: never listed, read or found. Reading it answers what reading a missing note
  answers; listings, searches, tag counts and link lists leave it out.
- ``mcp-readonly``: never written: no create over it, append, patch, delete or move.
- ``mcp-protected``: never deleted or moved (onto, either); it may be edited, but no write may
  take its ``mcp-protected`` tag away.

This module is pure: the tags of a frontmatter, the rule each tag sets for each kind of
write, and the one JsonLogic query that finds every note carrying a tag. The guarded client
(guard.py) applies it to every call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import markdown
from vaultgate.errors import ProtectedNote
from vaultgate.patch_request import PatchRequest

HIDDEN = "mcp-hidden"
READONLY = "mcp-readonly"
PROTECTED = "mcp-protected"
PROTECTION_TAGS = frozenset({HIDDEN, READONLY, PROTECTED})

NOTE_SUFFIX = ".md"  # Obsidian reads frontmatter in markdown files only

# What a write does to the note at its path. "create" writes whole content (create or
# overwrite), "onto" is a move's destination, "move" its source.
WriteKind = Literal["create", "append", "patch", "delete", "move", "onto"]

_TAG_KEY = re.compile(r"tags?", re.IGNORECASE)
_TAG_SEPARATORS = re.compile(r"[,\s]+")
# The frontmatter keys the search for marked notes looks in (JsonLogic has no case folding
# of keys); the check of each candidate then reads every key Obsidian reads.
_SEARCHED_KEYS = ("tags", "tag", "Tags", "Tag", "TAGS", "TAG")


@dataclass(frozen=True, slots=True)
class Marks:
    """The protection tags of one note, and all its tags as the plugin lists them (for
    taking a hidden note out of the tag counts)."""

    tags: frozenset[str]
    note_tags: tuple[str, ...] = ()

    @property
    def hidden(self) -> bool:
        return HIDDEN in self.tags

    @property
    def kept(self) -> bool:
        """Never deleted or moved: readonly or protected."""
        return bool(self.tags & {READONLY, PROTECTED})


UNMARKED = Marks(frozenset())


def is_note(path: str) -> bool:
    return path.lower().endswith(NOTE_SUFFIX)


def frontmatter_tags(frontmatter: Mapping[str, Any]) -> list[str]:
    """Every tag of a parsed frontmatter, lower-cased and without '#', in order."""
    tags: list[str] = []
    for key, value in frontmatter.items():
        if not _TAG_KEY.fullmatch(str(key)):
            continue
        if isinstance(value, str):
            items: Iterable[Any] = _TAG_SEPARATORS.split(value)
        elif isinstance(value, list):
            items = value
        else:
            continue
        for item in items:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                continue
            tag = str(item).strip().lstrip("#").strip().lower()
            if tag:
                tags.append(tag)
    return tags


def marks_of(frontmatter: Any) -> frozenset[str]:
    """The protection tags a parsed frontmatter (the plugin's, or ours) carries."""
    if not isinstance(frontmatter, Mapping):
        return frozenset()
    return frozenset(frontmatter_tags(frontmatter)) & PROTECTION_TAGS


def marks_in_text(path: str, text: str) -> frozenset[str]:
    """The protection tags of the note ``path`` whose text is ``text`` (none unless .md)."""
    if not is_note(path):
        return frozenset()
    return marks_of(markdown.parse_frontmatter(text).data)


MARK_PREFIX = "mcp-"  # what every protection tag starts with, in any case

# One search finds every note that may carry a tag: those whose tag keys mention 'mcp-' in
# any case. Its result is [frontmatter, tags] for each, so that the exact check is ours and
# the tags can leave the counts. It names no `content`, so 4.0.3+ reads no note's text.
_JOINED_KEYS: list[Any] = []
for _key in _SEARCHED_KEYS:
    _JOINED_KEYS += [{"var": f"frontmatter.{_key}"}, ","]
MARKED_QUERY: Any = {
    "if": [
        {"regexp": ["[Mm][Cc][Pp]-", {"cat": _JOINED_KEYS}]},
        [{"var": "frontmatter"}, {"var": "tags"}],
        False,
    ]
}


def marked_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, Marks]:
    """The notes carrying a protection tag, from the rows of ``MARKED_QUERY``."""
    marked: dict[str, Marks] = {}
    for row in rows:
        path, result = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(result, list) or not result:
            continue
        tags = marks_of(result[0])
        if not tags:
            continue
        listed = result[1] if len(result) > 1 and isinstance(result[1], list) else []
        marked[path] = Marks(tags, tuple(str(tag) for tag in listed if isinstance(tag, str)))
    return marked


def check_write(
    kind: WriteKind,
    path: str,
    current: frozenset[str],
    *,
    shown: str = "",
    content: str | None = None,
    patch: tuple[PatchRequest, str] | None = None,
) -> None:
    """ProtectedNote if the note's ``current`` tags forbid this write.

    A hidden note is refused here only where a write would otherwise create it (the caller
    answers the other writes as for a missing note). ``content`` is what a whole-content
    write puts; ``patch`` a patch and the note's text before it: neither may take away the
    ``mcp-protected`` tag of a protected note.
    """
    if HIDDEN in current:
        raise ProtectedNote(path, HIDDEN, kind, shown=shown)
    if READONLY in current:
        raise ProtectedNote(path, READONLY, kind, shown=shown)
    if PROTECTED not in current:
        return
    if kind in ("delete", "move", "onto"):
        raise ProtectedNote(path, PROTECTED, kind, shown=shown)
    after: frozenset[str] | None = None
    if kind == "create" and content is not None:
        after = marks_in_text(path, content) if is_note(path) else current
    elif kind == "patch" and patch is not None:
        after = _after_patch(*patch)
    if after is not None and PROTECTED not in after:
        raise ProtectedNote(path, PROTECTED, "untag", shown=shown)


def _after_patch(request: PatchRequest, before: str) -> frozenset[str]:
    """The protection tags after a patch: only replacing or deleting a tag key can take one
    away."""
    frontmatter = markdown.parse_frontmatter(before).data
    key = request.target_value()
    if (
        request.target_type != "frontmatter"
        or request.operation not in ("replace", "delete")
        or not isinstance(key, str)
        or not _TAG_KEY.fullmatch(key)
    ):
        return marks_of(frontmatter)
    if request.operation == "delete":
        return marks_of({name: value for name, value in frontmatter.items() if name != key})
    value: Any = request.content
    if request.content_type == "json":
        value = json.loads(request.content)
    return marks_of({**frontmatter, key: value})
