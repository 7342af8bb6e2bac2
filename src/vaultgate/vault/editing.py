"""Changing notes safely: create without clobbering, patch by resolved target, delete, move.

Each function returns a short confirmation for the model, never the whole note: a patch
answers with the patched section only, bounded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from vaultgate import markdown
from vaultgate.backend import Backend, LinkUpdates
from vaultgate.calls import Raw, call
from vaultgate.errors import (
    DestinationExists,
    InvalidArgument,
    NoteChanged,
    ReplacedButNotMoved,
    SectionNotFound,
    VaultgateError,
)
from vaultgate.obsidian.features import FeatureSet
from vaultgate.paging import compact_json
from vaultgate.patch_request import Operation, PatchRequest, TargetType
from vaultgate.paths import validate_vault_path

ContentType = Literal["markdown", "json"]

SECTION_PREVIEW = 2_000
# Notes the copy-and-delete fallback may move: text it can read and write back unchanged.
TEXT_EXTENSIONS = (".md", ".txt", ".canvas", ".csv", ".json")


async def create_note(client: Backend, path: str, content: str, *, overwrite: bool) -> str:
    validate_vault_path(path)
    existing = await client.note_size(path)
    if existing is not None and not overwrite:
        raise _exists(path, existing)
    if existing is None and not overwrite:
        # created only where there is still no note: one another program made meanwhile
        # is left alone, never replaced
        if not await client.write_note_if_unchanged(path, None, content):
            raise _exists(path, await client.note_size(path))
    else:
        await client.write_note(path, content)
    if existing is None:
        return f"Created {path!r} ({len(content):,} chars)."
    return f"Replaced {path!r} ({existing:,} chars before, {len(content):,} now)."


def _exists(path: str, size: int | None) -> InvalidArgument:
    held = f" ({size:,} chars)" if size is not None else ""
    return InvalidArgument(
        f"{path!r} exists{held}. Pass overwrite=true to replace it, or "
        f"add to it: {call('append_to_vault_file', filename=path, content=Raw('<text>'))}."
    )


async def append_to_note(client: Backend, path: str | None, content: str) -> str:
    if path is not None:
        validate_vault_path(path)
    await client.append_note(path, content)
    where = repr(path) if path is not None else "the active file"
    return f"Appended {len(content):,} chars to {where} (created if it did not exist)."


@dataclass(frozen=True, slots=True)
class PatchSpec:
    """A patch as the model states it: the target may be a bare leaf heading name."""

    operation: Operation
    target_type: TargetType
    target: str
    content: str
    content_type: ContentType = "markdown"
    create_target_if_missing: bool = False


async def patch_note(client: Backend, path: str | None, spec: PatchSpec) -> str:
    """Resolve the target against the document map, patch, and show the patched part."""
    if path is not None:
        validate_vault_path(path)
    if spec.content_type == "json":
        _check_json(spec.content)
    target = await _resolve_target(client, path, spec)
    request = PatchRequest(
        operation=spec.operation,
        target_type=spec.target_type,
        target=target,
        content=spec.content,
        content_type=spec.content_type,
        create_target_if_missing=spec.create_target_if_missing,
    )
    document = await client.patch_note(path, request)
    where = repr(path) if path is not None else "the active file"
    shown = "::".join(target) if isinstance(target, tuple) else target
    return (
        f"Patched {where}: {spec.operation} on {spec.target_type} {shown!r}.\n"
        f"{_patched_part(document, spec.target_type, target, _reader(path))}"
    )


def _reader(path: str | None) -> Callable[[str], str]:
    """The call that reads a section of the patched note in full (the open note has no
    section reads: the whole note, then)."""
    if path is None:
        return lambda _section: call("get_active_file", maxLength=100_000)
    return lambda section: call("get_vault_file", filename=path, section=section)


async def _resolve_target(
    client: Backend, path: str | None, spec: PatchSpec
) -> tuple[str, ...] | str:
    """A heading becomes its full path from the document map; a bare leaf name that is unique
    resolves, an ambiguous one lists every full path (the plugin would otherwise fail, or with
    create-if-missing silently add a duplicate heading at the end)."""
    target = spec.target.strip()
    if not target:
        raise InvalidArgument(
            "target is empty. Give a heading ('Heading' or 'Parent::Child'), a block id, "
            "or a frontmatter key."
        )
    if spec.target_type == "frontmatter":
        return target
    doc_map = await client.read_document_map(path)
    if spec.target_type == "block":
        block = target.removeprefix("^")
        if block not in doc_map.blocks and not spec.create_target_if_missing:
            known = ", ".join(doc_map.blocks[:20]) or "none"
            raise SectionNotFound(
                f"Block ^{block} was not found; the note's block ids are: {known}.", target
            )
        return block
    paths = [tuple(heading.split("::")) for heading in doc_map.headings]
    try:
        return paths[markdown.resolve_heading_path(paths, target)]
    except SectionNotFound:
        if not spec.create_target_if_missing:
            raise
        return tuple(part.strip() for part in target.split("::"))


def _patched_part(
    document: str,
    target_type: TargetType,
    target: tuple[str, ...] | str,
    reader: Callable[[str], str],
) -> str:
    """The patched heading section, block or frontmatter value, cut to a preview."""
    match target_type:
        case "heading":
            assert isinstance(target, tuple)
            headings = markdown.parse_headings(document)
            try:
                heading = headings[
                    markdown.resolve_heading_path([h.path for h in headings], "::".join(target))
                ]
            except SectionNotFound:
                return "(The section could not be located in the result; read the note to check.)"
            part = document[heading.start : heading.end]
        case "block":
            assert isinstance(target, str)
            try:
                start, end = markdown.find_block(document, target)
            except SectionNotFound:
                return "(The block could not be located in the result; read the note to check.)"
            part = document[start:end]
        case "frontmatter":
            assert isinstance(target, str)
            value = markdown.parse_frontmatter(document).data.get(target)
            part = f"{target}: {compact_json(value)}"
    if len(part) <= SECTION_PREVIEW:
        return part
    return (
        f"{part[:SECTION_PREVIEW]}\n… ({len(part) - SECTION_PREVIEW:,} more chars in this part"
        + (f"; {reader('::'.join(target))} reads it all)" if isinstance(target, tuple) else ")")
    )


def _check_json(content: str) -> None:
    try:
        json.loads(content)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"contentType is 'json' but content is not valid JSON ({exc.msg}). Examples: "
            '"a string", 42, true, null, ["a", "b"], {"key": "value"}; table rows: '
            '[["cell 1", "cell 2"]].'
        ) from exc


async def delete_note(client: Backend, path: str | None, *, permanent: bool) -> str:
    if path is not None:
        validate_vault_path(path)
    where = repr(path) if path is not None else "the active file"
    features = await client.features()
    await client.delete_note(path, permanent=permanent)
    if not features.has("trash_delete"):
        return (
            f"Deleted {where} permanently (Local REST API {features.version} has no trash; "
            "5.0 and later move deletions to Obsidian's trash)."
        )
    if permanent:
        return f"Deleted {where} permanently."
    return f"Moved {where} to Obsidian's trash (pass permanent=true to delete outright)."


async def move_note(
    client: Backend, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
) -> str:
    validate_vault_path(source)
    validate_vault_path(destination)
    if destination.endswith("/"):
        destination += source.rsplit("/", 1)[-1]
    if destination == source:
        raise InvalidArgument(f"source and destination are the same: {source!r}.")
    features = await client.features()
    # what overwrite=true replaces goes to the trash first (GuardedClient.move_note); asked
    # now, as after the move the destination holds the moved note
    replacing = overwrite and await _holds_a_note(client, destination)
    if dry_run:
        updates = await client.move_note(source, destination, overwrite=overwrite, dry_run=True)
        would = _replaced(features, destination, planned=True) if replacing else ""
        if updates is not None:
            return _planned_move(source, destination, updates, would)
        how = (
            "Obsidian rewrites the links to it as it moves it"
            if features.has("move")
            else "this plugin version has no MOVE, so vaultgate would copy, verify and delete "
            "it, and links to it would not be updated"
        )
        return f"Nothing moved (dry run): {source!r} can move to {destination!r}; {how}.{would}"
    replaced = _replaced(features, destination, planned=False) if replacing else ""
    if not features.has("move"):
        moved = await _copy_verify_delete(
            client, source, destination, overwrite=overwrite, replacing=replacing, features=features
        )
        return moved + replaced
    updates = await client.move_note(source, destination, overwrite=overwrite)
    if updates is None:
        return f"Moved {source!r} to {destination!r} (Obsidian updated the links to it).{replaced}"
    return f"Moved {source!r} to {destination!r}; {_link_report(updates)}{replaced}"


async def _holds_a_note(client: Backend, destination: str) -> bool:
    """Is there a note a move with overwrite=true will replace? Asked before the move, as
    the answer says where it went; any refusal is the move's to give, in its own words."""
    try:
        return await client.note_size(destination) is not None
    except VaultgateError:
        return False


def _replaced(features: FeatureSet, destination: str, *, planned: bool) -> str:
    """What becomes of the note a move replaces: what a delete that is not permanent does."""
    if features.has("trash_delete"):
        fate = "would go" if planned else "went"
        return f" The note at {destination!r} {fate} to Obsidian's trash."
    fate = "would be" if planned else "was"
    return (
        f" The note at {destination!r} {fate} deleted permanently (Local REST API "
        f"{features.version} has no trash)."
    )


_NOTES_NAMED = 20  # a move with hundreds of backlinks names the first ones and counts the rest


def _planned_move(source: str, destination: str, updates: LinkUpdates, replaced: str) -> str:
    if not updates.notes:
        report = "no other note links to it."
    else:
        report = (
            f"it would update {_links(updates.links)} in {_notes(len(updates.notes))}: "
            f"{_named(updates.notes)}."
        )
    stranded = _stranded(updates)
    return (
        f"Nothing moved (dry run): moving {source!r} to {destination!r} is possible, and "
        f"{report}{stranded}{replaced} Call again with dryRun=false to move it."
    )


def _link_report(updates: LinkUpdates) -> str:
    if not updates.notes:
        report = "no other note links to it."
    else:
        report = (
            f"updated {_links(updates.links)} to it in {_notes(len(updates.notes))}: "
            f"{_named(updates.notes)}."
        )
    if updates.failed:
        report += (
            f" Could not rewrite {_notes(len(updates.failed))} (changed on disk meanwhile): "
            f"{', '.join(map(repr, updates.failed[:_NOTES_NAMED]))}; fix their links by hand."
        )
    return report + _stranded(updates)


def _stranded(updates: LinkUpdates) -> str:
    if not updates.stranded:
        return ""
    return (
        f" Wikilinks in {', '.join(map(repr, updates.stranded[:_NOTES_NAMED]))} stay as written: "
        "no wikilink can name a note with '#', '|', '[' or ']' in its name (markdown links "
        "can)."
    )


def _named(notes: tuple[tuple[str, int], ...]) -> str:
    named = ", ".join(f"{path!r} ({count})" for path, count in notes[:_NOTES_NAMED])
    more = len(notes) - _NOTES_NAMED
    return named + (f" and {more} more" if more > 0 else "")


def _links(count: int) -> str:
    return f"{count} link" if count == 1 else f"{count} links"


def _notes(count: int) -> str:
    return f"{count} note" if count == 1 else f"{count} notes"


async def _copy_verify_delete(
    client: Backend,
    source: str,
    destination: str,
    *,
    overwrite: bool,
    replacing: bool,
    features: FeatureSet,
) -> str:
    """Plugins before 4.1 cannot MOVE: copy, read the copy back, and only then delete the
    source, so a failure at any step leaves the source in place. A note the copy replaces
    is deleted first as a delete that is not permanent does (never written over)."""
    if not source.lower().endswith(TEXT_EXTENSIONS):
        raise InvalidArgument(
            f"Moving {source!r} needs Local REST API >= 4.1.0 (MOVE); older versions can only "
            "be worked around for text notes, which vaultgate copies and verifies."
        )
    # The move as a whole is checked first (the policy, protection tags, the destination),
    # so that no copy is left behind by a move that may not happen.
    await client.move_note(source, destination, overwrite=overwrite, dry_run=True)
    original = (await client.read_note(source)).content
    if not overwrite and await client.note_size(destination) is not None:
        raise DestinationExists(destination)
    if replacing:
        await client.delete_note(destination, permanent=False)
    try:
        # the copy goes only where there is no note now (one made meanwhile is kept)
        if not await client.write_note_if_unchanged(destination, None, original):
            raise DestinationExists(destination)
        copy = (await client.read_note(destination)).content
        if copy != original:
            raise InvalidArgument(
                f"The copy at {destination!r} does not match {source!r}, so the source was "
                "kept. Check both notes before retrying."
            )
    except VaultgateError as error:
        if not replacing:
            raise
        raise ReplacedButNotMoved(
            source,
            destination,
            error,
            trashed=features.has("trash_delete"),
            version=str(features.version),
        ) from error
    if (await client.read_note(source)).content != original:
        # written to since it was copied: deleting it would lose what was added
        raise NoteChanged(
            source,
            f"The copy at {destination!r} has the note as it was before; {source!r} was kept. "
            "Compare the two, then delete the one you do not need.",
        )
    await client.delete_note(source, permanent=False)
    return (
        f"Moved {source!r} to {destination!r} by copying, verifying and deleting (this plugin "
        "version has no MOVE, so links to the note were not updated)."
    )
