"""Vault paths from request URLs, decoded as the plugin decodes them.

Since 5.0.0 the plugin splits the *raw* path on its real slashes and percent-decodes each
segment alone, so ``folder%2Fnote.md`` is one segment holding a slash: never a file, only a
heading name. Before that the whole remainder is decoded at once (``dir%2Fa.md`` is
``dir/a.md``); 4.1.3's fix (GHSA-62gx-5q78-wrvx) only added the check after decoding. Paths
that resolve outside the vault are 400 ``40021`` at every version (before 4.1.3 the plugin had
no check: a departure on purpose); a malformed escape never gets this far, since Express fails
to decode the route param first (500, see ``undecodable_param``).
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


def decodes(text: str) -> bool:
    """Whether JavaScript's decodeURIComponent accepts ``text``."""
    try:
        decode_component(text)
    except ApiError:
        return False
    return True


_ROUTE_PARAMS: tuple[tuple[re.Pattern[str], bool], ...] = (
    # (pattern whose groups are Express route params, exists only with /periodic/)
    # path-to-regexp 0.1: '*' is a greedy (.*), ':name' is ([^/]+?), a final '/' optional
    (re.compile(r"/active/(.*)/?"), False),
    (re.compile(r"/vault/(.*)/?"), False),
    (re.compile(r"/periodic/([^/]+?)/(\d{4})/(\d{1,2})/(\d{1,2})/(.*)/?"), True),
    (re.compile(r"/periodic/([^/]+?)/(.*)/?"), True),
    (re.compile(r"/commands/([^/]+?)/?"), False),
    (re.compile(r"/open/(.*)/?"), False),
)


def undecodable_param(path: str, *, periodic: bool) -> str | None:
    """The first route param Express cannot decode for the raw ``path``, or None.

    Express decodes every param of a matching route before any handler runs and turns a
    failure into an error the plugin's error handler answers with 500; so a broken escape
    in ``/vault/100%ZZ.md`` never reaches the plugin's own 400 ``40021`` check.
    """
    for pattern, needs_periodic in _ROUTE_PARAMS:
        if needs_periodic and not periodic:
            continue
        match = pattern.fullmatch(path)
        if match is None:
            continue
        for value in match.groups():
            if value and not decodes(value):
                return value
    return None
