"""Vault-relative paths: validate before any request is sent, encode one segment at a time.

The plugin keeps ``/`` as the separator and, since 4.1.3, treats an encoded ``%2F`` as part of
a segment, so the whole-path ``encodeURIComponent`` habit of other clients 404s. We encode each
segment (spaces, unicode, ``#``, ``%``, ``?``, ``&``) and keep the slashes literal.

Hidden paths (a segment starting with ``.``: ``.obsidian/``, ``.trash/``, ``.git/``) are
refused here, before any request. Obsidian's index leaves them out, but the plugin serves and
writes them by disk: ``.obsidian/plugins/obsidian-local-rest-api/data.json`` holds the API key
and the certificate's private key, and a file written under ``.obsidian/plugins/`` is code
that Obsidian runs.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

from vaultgate.errors import HiddenPath, InvalidPath
from vaultgate.unicode import lone_surrogate_at

_SEGMENT_SAFE = "-._~!$'()*+,;=:@"  # RFC 3986 pchar minus '&' (kept encoded for proxies' sake)


def validate_vault_path(path: str, *, allow_empty: bool = False) -> str:
    """Return ``path`` unchanged if it is a safe vault-relative path, else raise InvalidPath.

    A trailing ``/`` (a folder) is allowed; ``..``, ``.`` segments, a leading ``/``, a
    backslash, NUL, empty inner segments and hidden segments (HiddenPath) are not.
    """
    if path == "":
        if allow_empty:
            return path
        raise InvalidPath(path, "the path is empty")
    if "\\" in path:
        raise InvalidPath(path, "backslashes are not allowed")
    if path.startswith("/"):
        raise InvalidPath(path, "it starts with '/'")
    if "\x00" in path:
        raise InvalidPath(path, "it contains a NUL character")
    if lone_surrogate_at(path) is not None:
        raise InvalidPath(path, "it holds half of a character (a lone UTF-16 surrogate)")
    segments = path.removesuffix("/").split("/")
    for segment in segments:
        if segment in ("..", "."):
            raise InvalidPath(path, f"'{segment}' segments are not allowed")
        if segment == "":
            raise InvalidPath(path, "it contains an empty segment ('//')")
    if is_hidden(path):
        raise HiddenPath(path)
    return path


def same_name(first: str, second: str) -> bool:
    """Do two paths differ only in letter case or Unicode form? (A disk that ignores those
    holds them as one file.)"""
    return _folded(first) == _folded(second)


def _folded(path: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def is_hidden(path: str) -> bool:
    """Does any segment of ``path`` start with '.' (``.obsidian/app.json``, ``a/.git/x``)?"""
    # asked of every hit and listed file: two substring checks, no split
    return path.startswith(".") or "/." in path


def refuse_hidden_pattern(pattern: str, name: str = "pattern") -> None:
    """A glob that names a hidden segment explicitly ('.obsidian/**', '**/.*') can only be
    meant for hidden files, which no tool reaches: say so instead of matching nothing."""
    if is_hidden(pattern):
        raise HiddenPath(pattern, what=name)


def normalize_directory(directory: str) -> str:
    """A validated folder path in the form the API lists it: '' for the root, else 'a/b/'."""
    directory = directory.strip()
    if directory in ("", "/"):
        return ""
    validate_vault_path(directory)
    return directory.removesuffix("/") + "/"


def encode_vault_path(path: str) -> str:
    """Percent-encode each segment of a validated vault path, keeping ``/`` literal."""
    return "/".join(quote(segment, safe=_SEGMENT_SAFE) for segment in path.split("/"))


def encode_header_value(value: str) -> str:
    """HTTP headers must be ASCII: percent-encode a target or destination as the plugin expects."""
    return quote(value, safe="/:-._~!$'()*+,;=@ ")
