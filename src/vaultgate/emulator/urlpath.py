"""Vault paths from request URLs, decoded as the plugin decodes them.

Since 4.1.3 the plugin splits the *raw* path on its real slashes and percent-decodes each
segment alone (GHSA-62gx-5q78-wrvx), so ``folder%2Fnote.md`` is one segment holding a
slash: never a file, only a heading name. Before that the whole remainder was decoded at
once. Malformed percent-encoding and paths that resolve outside the vault are 400 ``40021``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import quote, unquote_to_bytes

from vaultgate.emulator.apierrors import ApiError, ErrorCode

_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SYNTHETIC_ROOT = "/vault"
# encodeURI leaves these unescaped besides letters and digits
_ENCODE_URI_SAFE = ";,/?:@&=+$#-_.!~*'()"


def raw_path(scope: MutableMapping[str, Any]) -> str:
    """The request path still percent-encoded (no query string)."""
    raw = scope.get("raw_path")
    if isinstance(raw, bytes) and raw:
        # some servers put the query in raw_path; the ASGI spec says they should not
        return raw.split(b"?", 1)[0].decode("latin-1")
    return quote(str(scope.get("path", "")), safe="/")


def decode_component(text: str) -> str:
    """JavaScript's decodeURIComponent: strict about broken escapes and invalid UTF-8."""
    if "%" not in text:
        return text
    if _BAD_ESCAPE.search(text):
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED) from None


def decode_segments(encoded: str, *, per_segment: bool) -> list[str]:
    """Decoded path segments of ``encoded`` (the part after ``/vault/`` or ``/active/``)."""
    if per_segment:
        segments = [decode_component(segment) for segment in encoded.split("/")]
    else:
        segments = decode_component(encoded).split("/")
    resolved = posixpath.normpath(posixpath.join(_SYNTHETIC_ROOT, "/".join(segments)))
    if resolved != _SYNTHETIC_ROOT and not resolved.startswith(_SYNTHETIC_ROOT + "/"):
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    return segments


def encode_uri(path: str) -> str:
    """JavaScript's encodeURI, used by the plugin for Content-Location and file names."""
    return quote(path, safe=_ENCODE_URI_SAFE)
