"""One frontmatter property, or one tag, changed in one note: only that key's lines change.

Every edit here is vaultgate's own read-modify-write of the whole note, on every backend and
plugin version: the note is read, the key's lines are edited with
``vaultgate.frontmatter_edit`` (comments, quoting, list style, key order, CRLF and every other
line stay byte for byte), and the note is written back only if it still reads as it did
(``rewriting.rewrite``); when another program changed it meanwhile the edit is made again on
the new text, a few times, then NoteChanged asks the model to call again.

Why not the plugin's frontmatter PATCH, which would be one request: the plugin's engine
(markdown-patch, 1.x and 2.0 alike) re-serialises the whole YAML block with
``yaml.stringify`` on every frontmatter PATCH, so a comment the user wrote is deleted,
``"Quoted title"`` loses its quotes, ``[one, two]`` becomes a block list and ``4.50`` becomes
``4.5``: lines the user never asked to change. The price is a write of the whole note and a
narrow window between the last check and the write, in which a change made in Obsidian would
be overwritten (no version has a conditional whole-note write: 5.x's ``ifMatch`` guards only
a PATCH). What cannot be changed on the key's own lines (a flow-style block, a key spelled
twice, an anchor) is refused with the reason, and nothing is written.

- **set_property**: the key's value is replaced on its lines, or the key is appended to the
  block (a note without one gets one).
- **delete_property**: the key's line and the lines its value continues on go.
- **add_tag**: the tag joins ``tags`` in the list's own style (``[a, b]`` gets ``, new``; a
  block list a ``- new`` line); a ``tags`` written as a string (``"a, b"``) or left empty
  becomes a list; a missing ``tags`` is created.
- **remove_tag**: the item leaves ``tags`` (and ``tag``); inline ``#tag``s are removed only
  on request, in the same write.

Tags are matched as Obsidian matches them: without the ``#``, case-insensitively, and whole:
removing ``project`` keeps ``project/launch``, and adding ``Project`` to a note tagged
``project`` changes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from vaultgate import frontmatter_edit, markdown
from vaultgate.backend import Backend, Note
from vaultgate.calls import call
from vaultgate.errors import InvalidArgument
from vaultgate.paging import compact_json
from vaultgate.paths import validate_vault_path
from vaultgate.vault.rewriting import rewrite

TAG_KEYS = ("tags", "tag")  # Obsidian reads both
VALUE_PREVIEW = 300
_TAG_NAME = re.compile(r"[\w/-]+")
_TAG_SPLIT = re.compile(r"[,\s]+")
_MISSING: Any = object()
_AGAIN = "Call again: vaultgate reads it afresh."


# --- properties -----------------------------------------------------------------------------


async def set_property(client: Backend, path: str, key: str, value: Any) -> str:
    """Set one frontmatter key to a JSON value (the key is created if it is missing).

    Some hosts send every ``value`` as text (their converters type it as a string): a text
    that is JSON of the type the property already holds (``"5"`` for a number, ``"false"``
    for a boolean, ``'["a"]'`` for a list) is written as that type, as the user meant. Any
    other text, and the text of a new property, stays text (docs/tool-reference.md)."""
    key = _check_note_and_key(path, key)
    _json(value)

    def edit(note: Note) -> tuple[str, str]:
        before = _frontmatter(note, path).get(key, _MISSING)
        held = as_held_type(value, before)
        new = with_value(note.content, key, held)
        if new == note.content:
            return new, f"{key!r} in {path!r} is already {_preview(held)}; nothing changed."
        was = "a new property" if before is _MISSING else f"was {_preview(before)}"
        return new, f"Set {key!r} in {path!r} to {_preview(held)} ({was})."

    return await rewrite(client, path, edit, what_next=_AGAIN)


def as_held_type(value: Any, held: Any) -> Any:
    """``value``, or the JSON it spells when it is text and that JSON has the type of ``held``
    (the property's value now) where ``held`` is no text itself."""
    if not isinstance(value, str) or held is _MISSING or held is None or isinstance(held, str):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if _json_type(parsed) == _json_type(held) else value


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


async def delete_property(client: Backend, path: str, key: str) -> str:
    """Remove one frontmatter key; a key that is not there changes nothing."""
    key = _check_note_and_key(path, key)

    def edit(note: Note) -> tuple[str, str]:
        data = _frontmatter(note, path)
        if key not in data:
            keys = ", ".join(map(repr, list(data)[:30])) or "none"
            return note.content, (
                f"{path!r} has no property {key!r}; nothing changed. Its properties: {keys}."
            )
        new = without_key(note.content, key)
        return new, f"Deleted property {key!r} from {path!r} (it was {_preview(data[key])})."

    return await rewrite(client, path, edit, what_next=_AGAIN)


def without_key(text: str, key: str) -> str:
    """``text`` without the top-level frontmatter ``key``, everything else byte for byte.

    The key's line goes with the lines that continue its value; comments, quoting and every
    other line stay. Where that cannot be done on the key's lines alone (a flow-style block,
    a key spelled twice, an anchor), InvalidArgument says so: the block is never rewritten.
    """
    try:
        return frontmatter_edit.delete_key(text, key)
    except frontmatter_edit.NotEditableInPlace as refused:
        raise InvalidArgument(f"Cannot delete {key!r}: {refused}") from None


def with_value(text: str, key: str, value: Any, *, doing: str = "set") -> str:
    """``text`` with frontmatter ``key`` set to ``value`` on the key's own lines; where that
    cannot be done, InvalidArgument says why (``doing`` names the edit) and nothing changes."""
    try:
        return frontmatter_edit.set_value(text, key, value)
    except frontmatter_edit.NotEditableInPlace as refused:
        raise InvalidArgument(f"Cannot {doing} {key!r}: {refused}") from None


# --- tags -----------------------------------------------------------------------------------


async def add_tag(client: Backend, path: str, tag: str) -> str:
    """Add a tag to the note's frontmatter ``tags``; a tag the note has already changes
    nothing."""
    validate_vault_path(path)
    _require_note(path)
    name = normalize_tag(tag)

    def edit(note: Note) -> tuple[str, str]:
        data = _frontmatter(note, path)
        if any(_same(name, existing) for existing in _frontmatter_tags(data)):
            return (
                note.content,
                f"{path!r} already has #{name} in its frontmatter; nothing changed.",
            )
        if any(_same(name, found) for _, _, found in markdown.inline_tags(note.content)):
            return note.content, (
                f"{path!r} already has #{name} (inline, in its text); nothing changed: Obsidian "
                "reads it as tagged."
            )
        # a list keeps its items (and its style); a string of tags or an empty key: a list
        value = [*_tag_items(data.get("tags")), name]
        new = with_value(note.content, "tags", value, doing="add a tag to")
        return new, f"Added #{name} to the frontmatter tags of {path!r}."

    return await rewrite(client, path, edit, what_next=_AGAIN)


async def remove_tag(client: Backend, path: str, tag: str, *, inline: bool) -> str:
    """Remove a tag from the frontmatter (``tags`` and ``tag``), and from the text when
    ``inline``; a tag the note does not have changes nothing."""
    validate_vault_path(path)
    _require_note(path)
    name = normalize_tag(tag)

    def edit(note: Note) -> tuple[str, str]:
        return _without_tag(note, path, name, inline=inline)

    return await rewrite(client, path, edit, what_next=_AGAIN)


def _without_tag(note: Note, path: str, name: str, *, inline: bool) -> tuple[str, str]:
    """The note's text without the tag ``name``, and what to answer."""
    data = _frontmatter(note, path)
    new = note.content
    from_frontmatter = 0
    for key in TAG_KEYS:
        if key not in data:
            continue
        items = _tag_items(data[key])
        kept = [item for item in items if not _same(name, _tag_text(item))]
        if len(kept) == len(items):
            continue
        if not from_frontmatter:  # name it as the note spells it
            name = next(_tag_text(i) for i in items if _same(name, _tag_text(i)))
        new = with_value(new, key, kept, doing="remove a tag from")
        from_frontmatter += len(items) - len(kept)
    spans = [(s, e) for s, e, found in markdown.inline_tags(new) if _same(name, found)]
    done: list[str] = []
    if from_frontmatter:
        done.append(f"removed #{name} from the frontmatter tags")
    if spans and inline:
        new = _without_spans(new, spans)
        done.append(f"removed {_times(len(spans))} inline")
    if not done and spans:
        return note.content, (
            f"{path!r} has #{name} only in its text ({_times(len(spans))}); nothing changed. "
            "Pass inline=true to remove it there."
        )
    if not done:
        return note.content, f"{path!r} has no tag #{name}; nothing changed."
    summary = f"{path!r}: {' and '.join(done)}."
    if spans and not inline:
        summary += f" It still appears {_times(len(spans))} in the text; pass inline=true."
    return new, summary


def normalize_tag(tag: str) -> str:
    """The tag as Obsidian names it: without '#'; letters, digits, '_', '-', '/'."""
    name = tag.strip().removeprefix("#")
    if (
        not _TAG_NAME.fullmatch(name)
        or name.isdigit()
        or name.startswith("/")
        or name.endswith("/")
        or "//" in name
    ):
        raise InvalidArgument(
            f"{tag!r} is not a tag Obsidian reads. A tag is letters, digits, '_', '-' and '/' "
            "for nesting, not only digits, with or without the '#': 'project', "
            "'#project/launch', 'status-draft'."
        )
    return name


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _frontmatter_tags(data: dict[str, Any]) -> list[str]:
    return [_tag_text(item) for key in TAG_KEYS if key in data for item in _tag_items(data[key])]


def _tag_items(value: Any) -> list[Any]:
    """The entries of a ``tags`` value: a list as it is, a string split on commas and blanks."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [part for part in _TAG_SPLIT.split(value) if part]
    return [] if value is None else [value]


def _tag_text(item: Any) -> str:
    return str(item).strip().removeprefix("#")


def _without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without each ``#tag`` span and one blank beside it, so no double space stays."""
    pieces: list[str] = []
    at = 0
    for start, end in spans:
        if start > at and text[start - 1] in " \t":
            start -= 1
        elif end < len(text) and text[end] in " \t":
            end += 1
        pieces.append(text[at:start])
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


# --- shared ---------------------------------------------------------------------------------


def _check_note_and_key(path: str, key: str) -> str:
    validate_vault_path(path)
    _require_note(path)
    if not key.strip() or "\n" in key or "\r" in key:
        raise InvalidArgument(
            f"key {key!r} is not a property name: give one frontmatter key on one line, "
            "e.g. 'status' or 'due date'."
        )
    return key


def _require_note(path: str) -> None:
    if not path.lower().endswith(".md"):
        raise InvalidArgument(
            f"{path!r} is not a note: properties and tags live in markdown notes (.md)."
        )


def _frontmatter(note: Note, path: str) -> dict[str, Any]:
    frontmatter = markdown.parse_frontmatter(note.content)
    if not frontmatter.valid:
        raise InvalidArgument(
            f"{path!r} has frontmatter that is not valid YAML, so no property can be changed "
            f"safely. Read it with {call('get_vault_file', filename=path, maxLength=2000)} "
            "and fix the YAML first."
        )
    return frontmatter.data


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"value must be JSON (a string, number, true/false, null, list or object): {exc}."
        ) from exc


def _preview(value: Any) -> str:
    text = compact_json(value)
    if len(text) <= VALUE_PREVIEW:
        return text
    return f"{text[:VALUE_PREVIEW]}… ({len(text):,} chars)"
