"""Vault-relative paths: validate before any request is sent, encode one segment at a time.

The plugin keeps ``/`` as the separator and, since 5.0.0, treats an encoded ``%2F`` as part of
a segment (3.x and 4.x decode the whole path first), so the whole-path ``encodeURIComponent``
habit of other clients 404s there. We encode each segment (spaces, unicode, ``#``, ``%``, ``?``,
``&``) and keep the slashes literal, which every version reads alike.

Hidden paths (a segment starting with ``.``: ``.obsidian/``, ``.trash/``, ``.git/``) are
refused here, before any request. Obsidian's index leaves them out, but the plugin serves and
writes them by disk: ``.obsidian/plugins/obsidian-local-rest-api/data.json`` holds the API key
and the certificate's private key, and a file written under ``.obsidian/plugins/`` is code
that Obsidian runs.

Names the disk cannot hold are refused here too, with the limit they pass: a segment of more
than ``NAME_MAX_BYTES`` UTF-8 bytes (what ext4, APFS, Btrfs and most file systems hold in one
name; NTFS counts 255 UTF-16 units, but a vault synced elsewhere must fit there too), a whole
path of more than ``PATH_MAX_BYTES`` (macOS's limit for a whole path; the vault's own location
comes on top, so the folder backend also reports a disk that refuses a shorter one). Without
this the disk's ENAMETOOLONG came back as an internal error.

A name can also be written in two Unicode forms: macOS stores some accented names decomposed
(NFD, 'Cafe\u0301'), other systems composed (NFC, 'Café'). ``unicode_twin`` finds the entry
of a listing that is a new name in another form, so that no second note that looks the same
is created beside it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

from vaultgate.errors import HiddenPath, InvalidPath, NameTooLong
from vaultgate.unicode import lone_surrogate_at

_SEGMENT_SAFE = "-._~!$'()*+,;=:@"  # RFC 3986 pchar minus '&' (kept encoded for proxies' sake)
NAME_MAX_BYTES = 255
PATH_MAX_BYTES = 1024
_UTF8_MAX = 4  # bytes of one character: a path this much shorter than a limit cannot pass it
# The only ASCII characters that another code point composes to (NFC): KELVIN SIGN is 'K',
# GREEK QUESTION MARK ';', GREEK VARIA '`'. An ASCII name without them has no twin.
_ASCII_TWINNED = frozenset("K;`")


def validate_vault_path(path: str, *, allow_empty: bool = False) -> str:
    """Return ``path`` unchanged if it is a safe vault-relative path, else raise InvalidPath.

    A trailing ``/`` (a folder) is allowed; ``..``, ``.`` segments, a leading ``/``, a
    backslash, NUL, empty inner segments, hidden segments (HiddenPath) and names too long for
    a disk (NameTooLong) are not. Check a path as it will be written: with the ``.md`` a tool
    adds, or the file name a move into a folder keeps.
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
    if len(path) * _UTF8_MAX > NAME_MAX_BYTES:  # most paths are too short to count bytes for
        _refuse_long_names(path, segments)
    return path


def _refuse_long_names(path: str, segments: list[str]) -> None:
    for segment in segments:
        size = len(segment.encode("utf-8"))
        if size > NAME_MAX_BYTES:
            raise NameTooLong.for_name(path, segment, NAME_MAX_BYTES, size)
    size = len(path.encode("utf-8"))
    if size > PATH_MAX_BYTES:
        raise NameTooLong.for_path(path, PATH_MAX_BYTES, size)


def may_have_twin(path: str) -> bool:
    """Could a name in ``path`` be written in another Unicode form? Not an ASCII one without
    'K', ';' or '`' (most names): the check of a new name's folder is skipped for those."""
    return not path.isascii() or not _ASCII_TWINNED.isdisjoint(path)


def unicode_twin(name: str, entries: Iterable[str]) -> str | None:
    """The entry of a folder's listing (folders end in '/') that is ``name`` in another
    Unicode form (the same NFC form, other code points); None if there is none, or if
    ``name`` itself is listed (then nothing new is created)."""
    composed = unicodedata.normalize("NFC", name)
    twin = None
    for entry in entries:
        listed = entry.removesuffix("/")
        if listed == name:
            return None
        if twin is None and unicodedata.normalize("NFC", listed) == composed:
            twin = entry
    return twin


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
