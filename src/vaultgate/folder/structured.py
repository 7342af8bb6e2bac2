"""JsonLogic over every note, with each note's metadata taken from the vault index.

The engine's ``jsonlogic_search`` builds each note's JSON from the Vault, which reads and
parses every note on its first search (about 10 s on 20,000 notes) and keeps their texts.
The index already holds what that parse gives: frontmatter (JSON-safe as parsed, so its JSON
round trip is exact), tags and link targets as written. So here each note's metadata comes
from its index row when the row was read from the file as it is now (the same
``(mtime_ns, size)``, the key the Vault's own cache trusts), and from the Vault otherwise;
links are resolved by the Vault's rules, backlinks built from them as the plugin does, and
content (only when the query names it) read from the file. The JSON and the evaluation are
then the engine's (``note_json``'s shape, ``jsonlogic.apply``), note by note in the vault's
order, so the answers are the engine's. What a note's metadata and links are is kept for the
next query (:class:`LinkedNotes`), as the Vault keeps its parses.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.index import IndexedNote, VaultIndex
from vaultgate.engine.search import evaluate_notes, names_content
from vaultgate.engine.tags import listed_tags
from vaultgate.engine.vault import FileStat, NoteMeta, Vault, file_stat
from vaultgate.folder.search import NoteTexts

BULK = 200  # more notes than this to look up: read every row at once


@dataclass(frozen=True, slots=True)
class _Linked:
    key: tuple[int, int]  # (mtime_ns, size) of the file the metadata describe
    meta: NoteMeta
    resolved: list[str]
    unresolved: list[str]


class LinkedNotes:
    """Each note's metadata and resolved links, kept while the note's ``(mtime_ns, size)``
    and the Vault's file list (which links resolve against) stay the same: a second query
    looks nothing up again."""

    def __init__(self) -> None:
        self._files: object = None
        self._notes: dict[str, _Linked] = {}

    def current(
        self, vault: Vault, index: VaultIndex
    ) -> list[tuple[str, _Linked, FileStat]] | None:
        """Every note the vault lists, in its order (one that cannot be read left out), with
        its metadata and its stat (the one the metadata were checked against); None when the
        index does not answer."""
        if not index.ready:
            return None
        if vault.files is not self._files:
            self._files, self._notes = vault.files, {}
        root = str(vault.vault)
        keys: dict[str, tuple[int, int]] = {}
        stats: dict[str, FileStat] = {}
        for path in vault.markdown_files():
            try:
                st = os.stat(os.path.join(root, path))
            except OSError:
                continue  # as the engine leaves out a note it cannot read
            keys[path] = (st.st_mtime_ns, st.st_size)
            stats[path] = file_stat(st)
        stale = [p for p, key in keys.items() if (c := self._notes.get(p)) is None or c.key != key]
        if stale:
            rows = index.notes() if len(stale) > BULK else [index.note(p) for p in stale]
            if rows is None:
                return None
            indexed = {row.path: row for row in rows if row is not None}
            for path in stale:
                try:
                    meta = _meta(vault, indexed.get(path), keys[path], path)
                except OSError:
                    del keys[path]
                    continue
                resolved, unresolved = vault.links(path, meta)
                self._notes[path] = _Linked(keys[path], meta, resolved, unresolved)
        return [(path, self._notes[path], stats[path]) for path in keys]


def indexed_jsonlogic(
    vault: Vault,
    index: VaultIndex,
    linked: LinkedNotes,
    texts: NoteTexts,
    behaviour: Behaviour,
    query: Any,
) -> list[dict[str, Any]] | None:
    """What ``engine.search.jsonlogic_search`` answers; None when the index cannot answer
    or the plugin version describes notes otherwise (the caller asks the engine)."""
    if not (behaviour.lazy_content and behaviour.backlinks_index):
        return None
    notes = linked.current(vault, index)
    if notes is None:
        return None
    include_content = names_content(query)
    backlinks: dict[str, list[str]] = {}
    for path, note, _ in notes:
        for target in note.resolved:
            backlinks.setdefault(target, []).append(path)

    def note_jsons() -> Iterator[tuple[str, Any]]:
        for path, note, stat in notes:
            meta = note.meta
            try:
                content = texts.text(path) if include_content else ""
            except OSError:
                continue
            data: dict[str, Any] = {
                "tags": listed_tags(
                    meta.frontmatter, meta.inline_tags, strings_only=behaviour.string_tags_only
                ),
                "frontmatter": dict(meta.frontmatter),
                "stat": {"ctime": stat.ctime, "mtime": stat.mtime, "size": stat.size},
                "path": path,
                "content": content,
            }
            if behaviour.links:
                data["links"] = list(note.resolved)
                data["backlinks"] = list(backlinks.get(path, []))
                if behaviour.unresolved_links:
                    data["unresolvedLinks"] = list(note.unresolved)
            yield path, data

    return evaluate_notes(query, note_jsons())


def _meta(vault: Vault, row: IndexedNote | None, key: tuple[int, int], path: str) -> NoteMeta:
    if row is not None and (row.mtime_ns, row.size) == key:
        return NoteMeta(
            frontmatter=row.frontmatter,
            frontmatter_valid=row.frontmatter_valid,
            tags=list(row.tags),
            link_targets=list(row.links),
            inline_tags=list(row.inline_tags),
        )
    return vault.meta(path)  # changed since it was indexed: parsed now, as the engine does
