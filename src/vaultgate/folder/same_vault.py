"""Before a change goes through the plugin: is the note it touches the same in the plugin's
vault as in the found folder whose rules were checked?

The rules (``mcp-readonly``, ``mcp-hidden``, whether a note exists for a create without
overwrite) are read from the found folder, and the change is made by the plugin. If Obsidian
switched vaults since the folder was verified, the two are different vaults, and a rule read
in one would be applied to a note of the other. So, at the time of the change, each note it
touches is asked of the plugin (its note JSON ``stat``, one GET; an attachment, its folder's
listing) and compared with the folder's file: both absent, or both present with the same size
and mtime (±2 ms), as verification compares them. Otherwise nothing is sent and
``VaultMismatch`` says why. A note saved in the same instant (Obsidian learns its new stat a
moment after the disk) is asked again a few times, for ``SETTLE_SECONDS`` at most.

This proves the notes touched are the same, not the whole vault: a note absent from both
vaults is created in the one the plugin serves (what the user asked, there). What remains is
the few milliseconds between the check and the change (docs/design.md, "The found folder
checked before every write").
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from vaultgate.discovery.verify import MTIME_SLACK_MS
from vaultgate.errors import NotFound, VaultMismatch
from vaultgate.obsidian.client import ObsidianClient

SETTLE_SECONDS = 0.8  # how long a disagreement may last before it is a mismatch
_PAUSES = (0.05, 0.1, 0.25, 0.4)  # between the asks; their sum is SETTLE_SECONDS

# what each side says of a path: None (absent), or (mtime in ms, size); an attachment's
# stat is not asked of the plugin, only whether it is there: (None, None)
Seen = tuple[float | None, int | None] | None


async def check_same_notes(
    root: Path, plugin: ObsidianClient, action: str, paths: Sequence[str]
) -> None:
    """Return when every path is the same on both sides; raise ``VaultMismatch`` when one
    is not, even after ``SETTLE_SECONDS``. Errors of the plugin pass through (the caller
    tells "not answering" from the rest)."""
    for path in dict.fromkeys(paths):  # each path once, in order
        reason = await _disagreement(root, plugin, path)
        for pause in _PAUSES:
            if reason is None:
                break
            await anyio.sleep(pause)
            reason = await _disagreement(root, plugin, path)
        if reason is not None:
            raise VaultMismatch(path, action, reason)


async def _disagreement(root: Path, plugin: ObsidianClient, path: str) -> str | None:
    note = path.lower().endswith(".md")
    served = await (_served_note(plugin, path) if note else _served_file(plugin, path))
    own = await anyio.to_thread.run_sync(_own, root, path, note)
    return _differs(served, own)


async def _served_note(plugin: ObsidianClient, path: str) -> Seen:
    try:
        stat: Any = (await plugin.read_note_json(path)).get("stat")
    except NotFound:
        return None
    if not isinstance(stat, dict):
        return (None, None)
    mtime, size = stat.get("mtime"), stat.get("size")
    number = (int, float)
    return (
        float(mtime) if isinstance(mtime, number) else None,
        int(size) if isinstance(size, number) else None,
    )


async def _served_file(plugin: ObsidianClient, path: str) -> Seen:
    parent, _, name = path.rpartition("/")
    try:
        listed = await plugin.list_directory(parent)
    except NotFound:
        return None
    return (None, None) if name in listed else None


def _own(root: Path, path: str, note: bool) -> Seen:
    try:
        own = os.stat(root.joinpath(*path.split("/")))
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not note:
        return (None, None)
    return (own.st_mtime_ns / 1_000_000, own.st_size)


def _differs(served: Seen, own: Seen) -> str | None:
    if served is None and own is None:
        return None
    if served is None:
        return "the folder has it, the plugin's vault does not"
    if own is None:
        return "the plugin's vault has it, the folder does not"
    (served_mtime, served_size), (own_mtime, own_size) = served, own
    if served_size is not None and own_size is not None and served_size != own_size:
        return f"{served_size} bytes to the plugin, {own_size} in the folder"
    if (
        served_mtime is not None
        and own_mtime is not None
        and abs(served_mtime - own_mtime) > MTIME_SLACK_MS
    ):
        return "modified at another time in the plugin's vault"
    return None
