"""Completing a vault path as a person types it: notes and folders, for a host's argument box.

What was typed matches a path that starts with it or contains it, compared as the vault's
names are (NFC, case-folded: ``café`` typed finds an NFD ``Café``). Folders come first (a
person types their way down), then files; within each, paths that start with what was typed
before those that only contain it, then by name. At most ``MAX_COMPLETIONS`` values, as MCP
allows; ``total`` says how many matched.

The paths come from the lister's recursive listing of the vault, through the guarded client:
a hidden, denied or ``mcp-hidden`` file is never offered, nor a folder that holds only such
files. On the vault folder the listing is the vault as its index has it now (issue 36);
through the plugin alone, where only a walk of every folder can tell, the completions asked
within ``PLUGIN_LISTING_AGE`` seconds share one walk (a person typing asks once a keystroke).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from vaultgate.vault.listing import NOTE_SUFFIX, VaultLister

MAX_COMPLETIONS = 100  # the most values a completion/complete answer may carry
PLUGIN_LISTING_AGE = 2.0  # seconds: the oldest listing a completion takes through the plugin

# Prompt arguments whose name says they take a note, or a folder: completed with paths.
_FOLDER_ARGUMENT = re.compile(r"(?:^|[_-])(?:folder|directory|dir)$", re.IGNORECASE)
_NOTE_ARGUMENT = re.compile(r"(?:^|[_-])(?:note|file|filename|path|page)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Completed:
    values: tuple[str, ...]
    total: int

    @property
    def has_more(self) -> bool:
        return self.total > len(self.values)


def fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def folders_of(files: Iterable[str]) -> set[str]:
    """Every folder (ending in ``/``) that holds one of ``files``, at any depth."""
    folders: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]) + "/")
    return folders


def complete(
    files: Iterable[str], typed: str, *, folders_only: bool = False, notes_only: bool = False
) -> Completed:
    """The paths among ``files`` (and their folders) matching ``typed`` (see the module)."""
    files = list(files)
    wanted = fold(typed)
    candidates = [(folder, True) for folder in folders_of(files)]
    if not folders_only:
        candidates += [
            (path, False) for path in files if not notes_only or path.endswith(NOTE_SUFFIX)
        ]
    ranked = []
    for path, is_folder in candidates:
        folded = fold(path)
        if folded.startswith(wanted):
            ranked.append(((not is_folder, 0, folded, path), path))
        elif wanted in folded:
            ranked.append(((not is_folder, 1, folded, path), path))
    ranked.sort()
    return Completed(tuple(path for _, path in ranked[:MAX_COMPLETIONS]), len(ranked))


def argument_kind(name: str) -> str | None:
    """``"folder"`` or ``"note"`` for a prompt argument whose name says it takes one."""
    if _FOLDER_ARGUMENT.search(name):
        return "folder"
    if _NOTE_ARGUMENT.search(name):
        return "note"
    return None


async def complete_path(
    lister: VaultLister, typed: str, *, folders_only: bool = False, notes_only: bool = False
) -> Completed:
    """Complete ``typed`` against every reachable file of the vault."""
    files = (await lister.listed("", unknown_max_age=PLUGIN_LISTING_AGE)).value
    return complete(files, typed, folders_only=folders_only, notes_only=notes_only)
