"""Which vault paths the tools may read and write: the one place that decides.

VAULTGATE_ALLOW and VAULTGATE_DENY are comma-separated entries, globs on vault-relative paths.
An entry means what it matches *and everything below it*: ``Private``, ``Private/``,
``./Private/**`` and ``Private/**`` all mean the folder Private, its own path included, so
neither its listing nor a delete of the folder path gets through. Entries are normalised once,
at start; one that can never match a reachable path (a hidden part, a ``..``) is a one-line
warning on stderr instead of silently guarding nothing.

A path is reachable when it is not hidden (no segment starts with '.'), no allow list is set
or an allow entry matches it, and no deny entry matches it. VAULTGATE_READ_ONLY refuses every
write. The guarded client (guard.py) asks this policy about every path it sends and every path
it returns, so listings, search results and link lists obey it too.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from vaultgate.config import SafetySettings
from vaultgate.errors import (
    AccessDenied,
    ConfigError,
    HiddenPath,
    InvalidArgument,
    ReadOnlyMode,
)
from vaultgate.paths import is_hidden
from vaultgate.vault.listing import compile_glob

log = logging.getLogger("vaultgate.policy")

_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass(frozen=True, slots=True)
class _Entry:
    """One normalised allow/deny entry: matches a path, or a folder above it."""

    text: str
    _itself: Callable[[str], bool]
    _below: Callable[[str], bool]

    def matches(self, path: str) -> bool:
        return self._itself(path) or self._below(path)


def normalise_entry(raw: str) -> str:
    """'./Private/**', 'Private/' and 'Private' → 'Private'; an entry for the root → '**'."""
    entry = raw.strip()
    while entry.startswith("./"):
        entry = entry[2:]
    while True:
        trimmed = entry.rstrip("/").removesuffix("/**")
        if trimmed == entry:
            break
        entry = trimmed
    return entry if entry not in ("", ".") else "**"


def _compile(raw: str, setting: str) -> _Entry:
    text = normalise_entry(raw)
    try:
        itself = compile_glob(text, name=setting)
        below = compile_glob(f"{text}/**", name=setting)
    except InvalidArgument as exc:
        raise ConfigError(str(exc)) from exc
    if is_hidden(text) or ".." in text.split("/"):
        log.warning(
            "%s entry %r can never match: vaultgate never reaches hidden paths (a part starting "
            "with '.') and paths are vault-relative without '..'.",
            setting,
            raw,
        )
    return _Entry(text, itself, below)


class AccessPolicy:
    def __init__(self, safety: SafetySettings) -> None:
        self.read_only = safety.read_only
        self.restricts_paths = safety.restricts_paths
        self._allow = [_compile(entry, "VAULTGATE_ALLOW") for entry in safety.allow]
        self._deny = [_compile(entry, "VAULTGATE_DENY") for entry in safety.deny]
        # The literal folder part of each allow entry, to tell which folders can hold allowed
        # files: 'Projects/Acme/*.md' → 'Projects/Acme/'.
        self._allow_prefixes = [_literal_prefix(entry.text + "/") for entry in self._allow]

    def allows(self, path: str) -> bool:
        """May a tool read or write the file (or folder) at ``path``?"""
        path = path.removesuffix("/")
        if is_hidden(path):
            return False
        if not self.restricts_paths:  # asked of every search hit: no generator for nothing
            return True
        if self._allow and not any(entry.matches(path) for entry in self._allow):
            return False
        return not any(entry.matches(path) for entry in self._deny)

    def allows_folder(self, folder: str) -> bool:
        """Could a reachable file lie below ``folder`` ('' is the root, else 'a/b/')?"""
        base = folder.removesuffix("/")
        if base == "":
            return True
        if is_hidden(base) or any(entry.matches(base) for entry in self._deny):
            return False  # a deny entry that matches a folder covers everything below it
        if not self._allow or any(entry.matches(base) for entry in self._allow):
            return True
        below = base + "/"
        return any(
            prefix.startswith(below) or below.startswith(prefix) for prefix in self._allow_prefixes
        )

    def check_read(self, path: str, *, shown: str = "") -> None:
        """AccessDenied unless ``path`` may be read; ``shown`` names it when the model did not."""
        self._refuse_hidden(path, shown)
        if not self.allows(path):
            raise AccessDenied(path, "read", shown=shown)

    def check_write(self, path: str, *, shown: str = "") -> None:
        if self.read_only:
            raise ReadOnlyMode(shown or path)
        self._refuse_hidden(path, shown)
        if not self.allows(path):
            raise AccessDenied(path, "write", shown=shown)

    @staticmethod
    def _refuse_hidden(path: str, shown: str) -> None:
        # Hidden paths are refused for what they are, with or without a policy.
        if is_hidden(path.removesuffix("/")):
            raise HiddenPath(path, shown=shown)


def _literal_prefix(pattern: str) -> str:
    """'Projects/Acme/**' → 'Projects/Acme/'; '**/x.md' → ''."""
    found = _GLOB_CHARS.search(pattern)
    literal = pattern if found is None else pattern[: found.start()]
    return literal[: literal.rfind("/") + 1]
