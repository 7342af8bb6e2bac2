"""One frontmatter property, or one tag, changed in one note, atomically where the plugin can.

- **set_property**: one PATCH of the key on every version (replace, JSON value, create the key
  if missing): the 1.x headers on 3.x/4.x, the 2.0 instruction on 5.x. The folder backend
  and the emulator change only the key's lines (``vaultgate.frontmatter_edit``); a real
  plugin rewrites the whole YAML block, as its engine does on every frontmatter PATCH.
- **delete_property**: 5.x deletes the key in one PATCH (operation ``delete``, scope
  ``markerAndContent``). Before 5.0 no PATCH deletes a key: vaultgate removes the key's lines
  from the YAML text itself (checked by parsing the result: every other property must read
  as before, else nothing is changed and the model is told why), and writes the note back
  only if it still reads as it did (``rewriting.write_if_unchanged``).
- **add_tag**: a PATCH ``append`` of ``[tag]`` to ``tags`` (created if missing): the plugin
  merges it into the list in one request. A ``tags`` written as a string (``"a, b"``) or left
  empty becomes a list, by a ``replace`` sent after the key is read again and found unchanged.
- **remove_tag**: no version can remove one item from a list, so ``tags`` (and ``tag``) are
  read, filtered and replaced, again after the key is read again and found unchanged. Inline
  ``#tag``s are removed only on request, by a checked read-modify-write of the note.

Such a ``replace`` is atomic on 5.x: it carries the document map's ``version`` (``ifMatch``),
asked before the check, so the plugin refuses it (412) if the note changed after the check
read it. Before 5.0 the check narrows the window to the moment between it and the PATCH.

Tags are matched as Obsidian matches them: without the ``#``, case-insensitively, and whole:
removing ``project`` keeps ``project/launch``, and adding ``Project`` to a note tagged
``project`` changes nothing.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from vaultgate import frontmatter_edit, markdown
from vaultgate.backend import Backend, Note
from vaultgate.calls import call
from vaultgate.errors import InvalidArgument, NoteChanged, ObsidianAPIError
from vaultgate.paging import compact_json
from vaultgate.patch_request import Operation, PatchRequest
from vaultgate.paths import validate_vault_path
from vaultgate.vault.rewriting import write_if_unchanged

log = logging.getLogger("vaultgate.vault")

TAG_KEYS = ("tags", "tag")  # Obsidian reads both
VALUE_PREVIEW = 300
_TAG_NAME = re.compile(r"[\w/-]+")
_TAG_SPLIT = re.compile(r"[,\s]+")
_MISSING: Any = object()
_AGAIN = "Call again: vaultgate reads it afresh."


# --- properties -----------------------------------------------------------------------------


async def set_property(client: Backend, path: str, key: str, value: Any) -> str:
    """Set one frontmatter key to a JSON value (the key is created if it is missing)."""
    key = _check_note_and_key(path, key)
    data = _frontmatter(await client.read_note(path), path)
    before = data.get(key, _MISSING)
    request = PatchRequest(
        operation="replace",
        target_type="frontmatter",
        target=key,
        content=_json(value),
        content_type="json",
        create_target_if_missing=True,
    )
    await client.patch_note(path, request)
    was = "a new property" if before is _MISSING else f"was {_preview(before)}"
    return f"Set {key!r} in {path!r} to {_preview(value)} ({was})."


async def delete_property(client: Backend, path: str, key: str) -> str:
    """Remove one frontmatter key; a key that is not there changes nothing."""
    key = _check_note_and_key(path, key)
    note = await client.read_note(path)
    data = _frontmatter(note, path)
    if key not in data:
        keys = ", ".join(map(repr, list(data)[:30])) or "none"
        return f"{path!r} has no property {key!r}; nothing changed. Its properties: {keys}."
    if not await _patch_deletes(client, path, key):
        new = without_key(note.content, key)
        await write_if_unchanged(client, path, note.content, new, what_next=_AGAIN)
    return f"Deleted property {key!r} from {path!r} (it was {_preview(data[key])})."


async def _patch_deletes(client: Backend, path: str, key: str) -> bool:
    """Delete the key with one PATCH where the plugin has a delete (5.0+); False where it
    has none, or refused the instruction as malformed (400): the 2.0 engine could not be
    run beside the emulator (real-handler-5.1.0-differences.md), so its answer to a
    frontmatter delete is inferred from its documentation, and a refusal falls back to
    vaultgate's own edit rather than failing."""
    if not (await client.features()).has("patch_v2"):
        return False
    request = PatchRequest(
        operation="delete",
        target_type="frontmatter",
        target=key,
        content="",
        scope="markerAndContent",
    )
    try:
        await client.patch_note(path, request)
    except ObsidianAPIError as exc:
        if exc.status != 400:
            raise
        log.info("frontmatter delete refused (%s); editing the YAML instead", exc.error_code)
        return False
    return True


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


# --- tags -----------------------------------------------------------------------------------


async def add_tag(client: Backend, path: str, tag: str) -> str:
    """Add a tag to the note's frontmatter ``tags``; a tag the note has already changes
    nothing."""
    validate_vault_path(path)
    _require_note(path)
    name = normalize_tag(tag)
    note = await client.read_note(path)
    data = _frontmatter(note, path)
    if any(_same(name, existing) for existing in _frontmatter_tags(data)):
        return f"{path!r} already has #{name} in its frontmatter; nothing changed."
    if any(_same(name, found) for _, _, found in markdown.inline_tags(note.content)):
        return (
            f"{path!r} already has #{name} (inline, in its text); nothing changed: Obsidian "
            "reads it as tagged."
        )
    current = data.get("tags", _MISSING)
    operation: Operation
    if current is _MISSING or isinstance(current, list):
        operation = "append"
        value: list[Any] = [name]
    else:  # a string of tags, or an empty key: becomes a list
        operation = "replace"
        value = [*_tag_items(current), name]
    version = None if operation == "append" else await _unchanged(client, path, "tags", current)
    request = PatchRequest(
        operation=operation,
        target_type="frontmatter",
        target="tags",
        content=_json(value),
        content_type="json",
        create_target_if_missing=True,
        if_match=version,
    )
    await _patch(client, path, request)
    return f"Added #{name} to the frontmatter tags of {path!r}."


async def remove_tag(client: Backend, path: str, tag: str, *, inline: bool) -> str:
    """Remove a tag from the frontmatter (``tags`` and ``tag``), and from the text when
    ``inline``; a tag the note does not have changes nothing."""
    validate_vault_path(path)
    _require_note(path)
    name = normalize_tag(tag)
    note = await client.read_note(path)
    data = _frontmatter(note, path)
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
        request = PatchRequest(
            operation="replace",
            target_type="frontmatter",
            target=key,
            content=_json(kept),
            content_type="json",
            if_match=await _unchanged(client, path, key, data[key]),
        )
        await _patch(client, path, request)
        from_frontmatter += len(items) - len(kept)
    if from_frontmatter:
        note = await client.read_note(path)
    spans = [(s, e) for s, e, found in markdown.inline_tags(note.content) if _same(name, found)]
    done: list[str] = []
    if from_frontmatter:
        done.append(f"removed #{name} from the frontmatter tags")
    if spans and inline:
        new = _without_spans(note.content, spans)
        await write_if_unchanged(client, path, note.content, new, what_next=_AGAIN)
        done.append(f"removed {_times(len(spans))} inline")
    if not done and spans:
        return (
            f"{path!r} has #{name} only in its text ({_times(len(spans))}); nothing changed. "
            "Pass inline=true to remove it there."
        )
    if not done:
        return f"{path!r} has no tag #{name}; nothing changed."
    summary = f"{path!r}: {' and '.join(done)}."
    if spans and not inline:
        summary += f" It still appears {_times(len(spans))} in the text; pass inline=true."
    return summary


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


async def _unchanged(client: Backend, path: str, key: str, expected: Any) -> str | None:
    """Check that the key still reads ``expected`` (the replace about to be sent was computed
    from it) and return the token that makes the PATCH itself refuse any later change: on
    5.x the document map's ``version``, asked before the note is read again (a change after
    that read fails the PATCH with 412). Before 5.0 there is none (None): a change landing
    between this read and the PATCH is lost, as with any editor that saves."""
    version = (
        (await client.read_document_map(path)).version
        if (await client.features()).has("patch_v2")
        else None
    )
    again = markdown.parse_frontmatter((await client.read_note(path)).content)
    if again.data.get(key, _MISSING) != expected:
        raise NoteChanged(path, _AGAIN)
    return version


async def _patch(client: Backend, path: str, request: PatchRequest) -> None:
    try:
        await client.patch_note(path, request)
    except ObsidianAPIError as exc:
        if exc.status == 412 and request.if_match is not None:
            raise NoteChanged(path, _AGAIN) from exc
        raise


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
