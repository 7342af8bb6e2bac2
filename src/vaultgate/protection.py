"""Protection tags: what ``mcp-hidden``, ``mcp-readonly`` and ``mcp-protected`` forbid.

A note carries a protection tag when Obsidian counts that tag as one of the note's tags:

- in its frontmatter, under any key named ``tags`` or ``tag`` in any ASCII case (``TaGs``),
  as a YAML list or a string of tags separated by commas or blanks, each with or without its
  ``#``, YAML escapes decoded (the frontmatter is parsed, never matched as text);
- inline, as a ``#tag`` outside fenced code and code spans (``markdown.inline_tags``, the
  reading the emulator's tag lists use);
- nested: ``mcp-hidden/drafts`` is a tag ``mcp-hidden`` too, as Obsidian's ``tag:#mcp-hidden``
  search finds it.

Tags compare without case (``#MCP-Hidden`` is ``mcp-hidden``).

- ``mcp-hidden``: never listed, read or found. Reading it answers what reading a missing note
  answers; listings, searches, tag counts and link lists leave it out.
- ``mcp-readonly``: never written: no create over it, append, patch, delete or move.
- ``mcp-protected``: never deleted or moved (onto, either); it may be edited, but no write may
  take its ``mcp-protected`` tag away, wherever the note carries it.

This module is pure: the tags of a note, the rule each tag sets for each kind of write, and
the one JsonLogic query that finds every note carrying a tag. The guarded client (guard.py)
applies it to every call; the folder backend's index and head scan ask it too.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import markdown
from vaultgate.errors import ProtectedNote
from vaultgate.markdown import frontmatter_tags, is_tag_key
from vaultgate.patch_request import PatchRequest

HIDDEN = "mcp-hidden"
READONLY = "mcp-readonly"
PROTECTED = "mcp-protected"
PROTECTION_TAGS = frozenset({HIDDEN, READONLY, PROTECTED})

NOTE_SUFFIX = ".md"  # Obsidian reads frontmatter in markdown files only

# What a write does to the note at its path. "create" writes whole content (create or
# overwrite), "onto" is a move's destination, "move" its source.
WriteKind = Literal["create", "append", "patch", "delete", "move", "onto"]

# Every spelling of the key: JsonLogic cannot fold the case of keys, but 'tags' and 'tag'
# have 16 + 8 ASCII spellings, so the search for marked notes names each one.
TAG_KEY_SPELLINGS = tuple(
    "".join(spelling)
    for word in ("tags", "tag")
    for spelling in itertools.product(*((c, c.upper()) for c in word))
)
MARK_PREFIX = "mcp-"  # what every protection tag starts with, in any case
# Where an inline protection tag may start: the cheap test before the body is parsed
_INLINE_MARK = re.compile(r"#mcp-", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True, slots=True)
class Marks:
    """The protection tags of one note."""

    tags: frozenset[str]

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


def protection_tag(tag: Any) -> str | None:
    """The protection tag ``tag`` counts as (``#MCP-Hidden/drafts`` is ``mcp-hidden``), if
    any."""
    if not isinstance(tag, str):
        return None
    name = tag.strip().lstrip("#").split("/", 1)[0].strip().lower()
    return name if name in PROTECTION_TAGS else None


def tag_marks(tags: Iterable[Any]) -> frozenset[str]:
    """The protection tags among ``tags`` (any case, with or without '#', nested or not)."""
    return frozenset(mark for tag in tags if (mark := protection_tag(tag)) is not None)


def marks_of(frontmatter: Any) -> frozenset[str]:
    """The protection tags a parsed frontmatter (the plugin's, or ours) carries."""
    if not isinstance(frontmatter, Mapping):
        return frozenset()
    return tag_marks(frontmatter_tags(frontmatter))


def inline_marks(text: str) -> frozenset[str]:
    """The protection tags ``text`` carries inline, outside code."""
    if _INLINE_MARK.search(text) is None:
        return frozenset()  # the common case, without parsing the note's code blocks
    return tag_marks(tag for _start, _end, tag in markdown.inline_tags(text))


def marks_in_text(path: str, text: str) -> frozenset[str]:
    """The protection tags of the note ``path`` whose text is ``text`` (none unless .md)."""
    if not is_note(path):
        return frozenset()
    return marks_of(markdown.parse_frontmatter(text).data) | inline_marks(text)


def marks_of_note_json(note: Mapping[str, Any]) -> frozenset[str]:
    """The protection tags of a note JSON: its frontmatter, and its ``tags`` list (where the
    plugin puts the inline tags Obsidian found outside code)."""
    listed = note.get("tags")
    inline = tag_marks(listed) if isinstance(listed, list) else frozenset()
    return marks_of(note.get("frontmatter")) | inline


# One search finds every note that may carry a tag: those whose tag keys, in any spelling, or
# whose tags list (the inline tags, and a `tags` list) mention 'mcp-' in any case. Its result
# is [frontmatter, tags] for each, so that the exact check is ours and the tags can leave the
# counts. It names no `content`, so 4.0.3+ reads no note's text.
_JOINED_KEYS: list[Any] = []
for _key in TAG_KEY_SPELLINGS:
    _JOINED_KEYS += [{"var": f"frontmatter.{_key}"}, ","]
MARKED_QUERY: Any = {
    "if": [
        {"regexp": ["[Mm][Cc][Pp]-", {"cat": [*_JOINED_KEYS, {"var": "tags"}]}]},
        [{"var": "frontmatter"}, {"var": "tags"}],
        False,
    ]
}


def marked_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, Marks]:
    """The notes carrying a protection tag, from rows whose result is ``[frontmatter,
    tags]`` (``MARKED_QUERY``'s, or the index's)."""
    marked: dict[str, Marks] = {}
    for row in rows:
        path, result = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(result, list) or not result:
            continue
        frontmatter = result[0] if isinstance(result[0], Mapping) else {}
        listed = result[1] if len(result) > 1 and isinstance(result[1], list) else []
        tags = marks_of_note_json({"frontmatter": frontmatter, "tags": listed})
        if not tags:
            continue
        marked[path] = Marks(tags)
    return marked


def check_write(
    kind: WriteKind,
    path: str,
    current: frozenset[str],
    *,
    shown: str = "",
    content: str | None = None,
    patch: tuple[PatchRequest, str] | None = None,
    patched: str | None = None,
) -> None:
    """ProtectedNote if the note's ``current`` tags forbid this write.

    A hidden note is refused here only where a write would otherwise create it (the caller
    answers the other writes as for a missing note). ``content`` is what a whole-content
    write puts; ``patch`` a patch and the note's text before it, ``patched`` the text that
    patch is expected to leave (None when it cannot be told): none may take away the
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
        after = _after_patch(*patch, patched)
    if after is not None and PROTECTED not in after:
        raise ProtectedNote(path, PROTECTED, "untag", shown=shown)


def _after_patch(request: PatchRequest, before: str, patched: str | None) -> frozenset[str]:
    """The protection tags after a patch. A frontmatter patch leaves the body's tags, and
    takes one away only by replacing or deleting a tag key; a heading or block patch leaves
    the frontmatter's, and its body is ``patched`` (unknown: no inline tag is counted on)."""
    frontmatter = markdown.parse_frontmatter(before).data
    if request.target_type != "frontmatter":
        inline = inline_marks(patched) if patched is not None else frozenset()
        return marks_of(frontmatter) | inline
    inline = inline_marks(before)
    key = request.target_value()
    if (
        request.operation not in ("replace", "delete")
        or not isinstance(key, str)
        or not is_tag_key(key)
    ):
        return marks_of(frontmatter) | inline
    if request.operation == "delete":
        kept = {name: value for name, value in frontmatter.items() if name != key}
        return marks_of(kept) | inline
    value: Any = request.content
    if request.content_type == "json":
        value = json.loads(request.content)
    return marks_of({**frontmatter, key: value}) | inline
