"""The shapes a file is served in: raw bytes, note JSON and the document map (NOTES §5)."""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
import re
from typing import Any

from vaultgate import markdown
from vaultgate.emulator.urlpath import encode_uri
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.vault import Vault

NOTE_JSON = "application/vnd.olrapi.note+json"
DOCUMENT_MAP = "application/vnd.olrapi.document-map+json"
MARKDOWN = "text/markdown"

# The plugin looks types up in mime-db (npm mime-types); these are its answers for the files
# a vault usually holds. Anything else falls back to Python's built-in table (not the
# system's, so the answer is the same on every machine), and an unknown extension gives
# the literal type "false", exactly as `${mime.lookup(path)}` does.
_MIME_DB = {
    "md": "text/markdown",
    "markdown": "text/markdown",
    "txt": "text/plain",
    "csv": "text/csv",
    "html": "text/html",
    "htm": "text/html",
    "css": "text/css",
    "js": "application/javascript",
    "json": "application/json",
    "yaml": "text/yaml",
    "yml": "text/yaml",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "bmp": "image/bmp",
    "avif": "image/avif",
    "pdf": "application/pdf",
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    "m4a": "audio/mp4",
    "ogg": "audio/ogg",
    "flac": "audio/x-flac",
    "webm": "video/webm",
    "mp4": "video/mp4",
    "mov": "video/quicktime",
    "zip": "application/zip",
}
_PYTHON_TYPES = mimetypes.MimeTypes(filenames=())
# the types for which Express's res.set("Content-Type", ...) appends a charset
_EXPRESS_CHARSET = re.compile(r"^text/|^application/(javascript|json)")


def mime_type(path: str) -> str:
    extension = posixpath.splitext(path)[1].lower().lstrip(".")
    if not extension:
        return "false"
    known = _MIME_DB.get(extension)
    if known is not None:
        return known
    guessed, _ = _PYTHON_TYPES.guess_type(f"x.{extension}", strict=False)
    return guessed or "false"


def file_headers(path: str) -> dict[str, str]:
    """Content-Type and Content-Disposition the plugin sets on every file GET.

    The plugin adds ``; charset=utf-8`` to markdown itself; Express's ``res.set`` adds it
    to the other ``text/*`` types and to ``application/json`` and ``application/javascript``.
    """
    kind = mime_type(path)
    # the plugin's .replace(",", "%2C") replaces the first comma only
    filename = encode_uri(path).replace(",", "%2C", 1)
    charset = kind == MARKDOWN or _EXPRESS_CHARSET.match(kind) is not None
    return {
        "Content-Type": f"{kind}; charset=utf-8" if charset else kind,
        "Content-Disposition": f'attachment; filename="{filename}"',
    }


def content_version(text: str) -> str:
    """The 2.x document map's ``version``: a hash of the content, the token for ``ifMatch``."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def note_json(
    state: Vault,
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
    note = state.note(path)
    result: dict[str, Any] = {
        "tags": list(note.meta.tags),
        "frontmatter": dict(note.meta.frontmatter),
        "stat": {"ctime": note.stat.ctime, "mtime": note.stat.mtime, "size": note.stat.size},
        "path": path,
        "content": state.read_from_disk(path) if include_content else "",
    }
    if behaviour.links:
        resolved, unresolved = state.links(path, note.meta)
        if backlinks is not None:
            linking = backlinks.get(path, [])
        elif behaviour.backlinks_index:
            linking = state.backlinks_index().get(path, [])
        else:
            linking = state.backlinks_of(path)
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
