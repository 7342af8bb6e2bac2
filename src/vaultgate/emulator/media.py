"""Media types: the Accept values that pick a representation, and every file's Content-Type."""

from __future__ import annotations

import mimetypes
import posixpath
import re

from vaultgate.emulator.urlpath import encode_uri

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
