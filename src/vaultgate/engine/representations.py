"""The shapes a note is described in: note JSON and the document map (NOTES §5).

The raw bytes and their Content-Type are the HTTP face's (``emulator/media.py``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from vaultgate import markdown
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidFrontmatter
from vaultgate.engine.tags import listed_tags
from vaultgate.engine.vault import Vault


def content_version(text: str) -> str:
    """The 2.x document map's ``version``: a hash of the content, the token for ``ifMatch``."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def note_json(
    vault: Vault,
    path: str,
    behaviour: Behaviour,
    *,
    include_content: bool = True,
    backlinks: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The note-JSON object (also the data every JsonLogic query is evaluated against).

    It does the work the plugin's ``getFileMetadataObject`` does for one note: the content
    is read from the file when it is included, and the backlinks come from ``backlinks``
    (one index for a whole search), else from a new index (4.0.3+) or a scan of every
    note's links (4.0.0-4.0.2).
    """
    note = vault.note(path)
    result: dict[str, Any] = {
        "tags": listed_tags(
            note.meta.frontmatter, note.meta.inline_tags, strings_only=behaviour.string_tags_only
        ),
        "frontmatter": dict(note.meta.frontmatter),
        "stat": {"ctime": note.stat.ctime, "mtime": note.stat.mtime, "size": note.stat.size},
        "path": path,
        "content": vault.read_from_disk(path) if include_content else "",
    }
    if behaviour.links:
        resolved, unresolved = vault.links(path, note.meta)
        if backlinks is not None:
            linking = backlinks.get(path, [])
        elif behaviour.backlinks_index:
            linking = vault.backlinks_index().get(path, [])
        else:
            linking = vault.backlinks_of(path)
        result["links"] = resolved
        result["backlinks"] = list(linking)
        if behaviour.unresolved_links:
            result["unresolvedLinks"] = unresolved
    return result


def document_map_v1(text: str) -> dict[str, Any]:
    """``{"headings": ["A", "A::B"], "blocks": [...], "frontmatterFields": [...]}``."""
    mapped = markdown.document_map(text)
    return {
        "headings": mapped.headings,
        "blocks": mapped.blocks,
        "frontmatterFields": mapped.frontmatter_fields,
    }


def document_map_v2(text: str) -> dict[str, Any]:
    """The 5.x map: a nested heading tree plus the content ``version`` token."""
    return {
        "headings": markdown.heading_tree(text),
        "blocks": markdown.block_ids(text),
        "frontmatterFields": list(markdown.parse_frontmatter(text).data),
        "version": content_version(text),
    }


def document_map(vault: Vault, behaviour: Behaviour, path: str, *, version: int) -> dict[str, Any]:
    """The note's document map in markdown-patch ``version`` 1 or 2's shape.

    InvalidFrontmatter from 4.1.5 when the note's frontmatter does not parse (earlier
    versions map what they can).
    """
    text = vault.read_text(path)
    if behaviour.frontmatter_errors and not vault.meta(path).frontmatter_valid:
        raise InvalidFrontmatter(path)
    return document_map_v1(text) if version == 1 else document_map_v2(text)
