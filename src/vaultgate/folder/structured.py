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
order, so the answers are the engine's.
"""

from __future__ import annotations

import json
import os
from typing import Any

from vaultgate.engine import jsonlogic
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidQuery
from vaultgate.engine.index import IndexedNote, VaultIndex
from vaultgate.engine.vault import NoteMeta, Vault
from vaultgate.folder.search import NoteTexts


def indexed_jsonlogic(
    vault: Vault, index: VaultIndex, texts: NoteTexts, behaviour: Behaviour, query: Any
) -> list[dict[str, Any]] | None:
    """What ``engine.search.jsonlogic_search`` answers; None when the index cannot answer
    or the plugin version describes notes otherwise (the caller asks the engine)."""
    if not (behaviour.lazy_content and behaviour.backlinks_index):
        return None
    rows = index.notes()
    if rows is None:
        return None
    indexed = {row.path: row for row in rows}
    include_content = '"content"' in json.dumps(query, ensure_ascii=False, separators=(",", ":"))
    root = str(vault.vault)
    notes: list[tuple[str, NoteMeta, list[str], list[str]]] = []
    backlinks: dict[str, list[str]] = {}
    for path in vault.markdown_files():
        try:
            meta = _meta(vault, indexed.get(path), os.stat(os.path.join(root, path)), path)
        except OSError:
            continue  # as the engine leaves out a note it cannot read
        resolved, unresolved = vault.links(path, meta)
        notes.append((path, meta, resolved, unresolved))
        for target in resolved:
            backlinks.setdefault(target, []).append(path)
    results: list[dict[str, Any]] = []
    for path, meta, resolved, unresolved in notes:
        try:
            stat = vault.stat(path)
            content = texts.text(path) if include_content else ""
        except OSError:
            continue
        data: dict[str, Any] = {
            "tags": list(meta.tags),
            "frontmatter": dict(meta.frontmatter),
            "stat": {"ctime": stat.ctime, "mtime": stat.mtime, "size": stat.size},
            "path": path,
            "content": content,
        }
        if behaviour.links:
            data["links"] = resolved
            data["backlinks"] = list(backlinks.get(path, []))
            if behaviour.unresolved_links:
                data["unresolvedLinks"] = unresolved
        try:
            result = jsonlogic.apply(query, data)
        except jsonlogic.JsonLogicError as exc:
            raise InvalidQuery(str(exc), path=path) from exc
        if jsonlogic.is_sane_truthy(result):
            results.append({"filename": path, "result": result})
    return results


def _meta(vault: Vault, row: IndexedNote | None, st: os.stat_result, path: str) -> NoteMeta:
    if row is not None and (row.mtime_ns, row.size) == (st.st_mtime_ns, st.st_size):
        return NoteMeta(
            frontmatter=row.frontmatter,
            frontmatter_valid=row.frontmatter_valid,
            tags=list(row.tags),
            link_targets=list(row.links),
        )
    return vault.meta(path)  # changed since it was indexed: parsed now, as the engine does
