"""Vault-relative paths: validate before any request is sent, encode one segment at a time.

The plugin keeps ``/`` as the separator and, since 4.1.3, treats an encoded ``%2F`` as part of
a segment, so the whole-path ``encodeURIComponent`` habit of other clients 404s. We encode each
segment (spaces, unicode, ``#``, ``%``, ``?``, ``&``) and keep the slashes literal.
"""

from __future__ import annotations

from urllib.parse import quote

from vaultgate.errors import InvalidPath

_SEGMENT_SAFE = "-._~!$'()*+,;=:@"  # RFC 3986 pchar minus '&' (kept encoded for proxies' sake)


def validate_vault_path(path: str, *, allow_empty: bool = False) -> str:
    """Return ``path`` unchanged if it is a safe vault-relative path, else raise InvalidPath.

    A trailing ``/`` (a folder) is allowed; ``..``, ``.`` segments, a leading ``/``, a
    backslash, NUL and empty inner segments are not.
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
    segments = path.removesuffix("/").split("/")
    for segment in segments:
        if segment in ("..", "."):
            raise InvalidPath(path, f"'{segment}' segments are not allowed")
        if segment == "":
            raise InvalidPath(path, "it contains an empty segment ('//')")
    return path


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
