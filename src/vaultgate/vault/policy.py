"""Which vault paths the tools may read and write: the one place that decides.

VAULTGATE_ALLOW and VAULTGATE_DENY are comma-separated globs on vault-relative paths. A file
is reachable when no allow list is set or one of its globs matches, and no deny glob matches.
VAULTGATE_READ_ONLY refuses every write. The guarded client (guard.py) asks this policy for
every path it sends and every path it returns, so listings and search results obey it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vaultgate.config import SafetySettings
from vaultgate.errors import AccessDenied, ConfigError, InvalidArgument, ReadOnlyMode
from vaultgate.vault.listing import compile_glob

_GLOB_CHARS = re.compile(r"[*?\[{]")
# Two paths below a folder, one and two levels down: a deny glob matching both hides the folder.
_PROBES = ("\x00probe", "\x00probe/\x00deeper")


class AccessPolicy:
    def __init__(self, safety: SafetySettings) -> None:
        self.read_only = safety.read_only
        self.restricts_paths = safety.restricts_paths
        try:
            self._allow = [compile_glob(p, name="VAULTGATE_ALLOW") for p in safety.allow]
            self._deny = [compile_glob(p, name="VAULTGATE_DENY") for p in safety.deny]
        except InvalidArgument as exc:
            raise ConfigError(str(exc)) from exc
        # The literal folder part of each allow glob, to tell which folders can hold allowed files.
        self._allow_prefixes = [_literal_prefix(p) for p in safety.allow]

    def allows(self, path: str) -> bool:
        """May a tool read or write the file at ``path``?"""
        if not self.restricts_paths:
            return True
        if self._allow and not _any_match(self._allow, path):
            return False
        return not _any_match(self._deny, path)

    def allows_folder(self, folder: str) -> bool:
        """Could a reachable file lie below ``folder`` ('a/b/')? Hidden folders are not walked."""
        if not self.restricts_paths:
            return True
        base = folder.removesuffix("/")
        if self._deny and all(_any_match(self._deny, f"{base}/{probe}") for probe in _PROBES):
            return False
        if not self._allow:
            return True
        below = base + "/"
        return any(
            prefix.startswith(below) or below.startswith(prefix) for prefix in self._allow_prefixes
        )

    def check_read(self, path: str) -> None:
        if not self.allows(path):
            raise AccessDenied(path, "read")

    def check_write(self, path: str) -> None:
        if self.read_only:
            raise ReadOnlyMode(path)
        if not self.allows(path):
            raise AccessDenied(path, "write")


def _any_match(matchers: list[Callable[[str], bool]], path: str) -> bool:
    return any(match(path) for match in matchers)


def _literal_prefix(pattern: str) -> str:
    """'Projects/Acme/**' → 'Projects/Acme/'; '**/x.md' → ''."""
    found = _GLOB_CHARS.search(pattern)
    literal = pattern if found is None else pattern[: found.start()]
    return literal[: literal.rfind("/") + 1]
