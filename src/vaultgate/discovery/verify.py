"""Whether the plugin serves a given folder: asked of the plugin, compared with the disk.

A candidate is trusted only when the plugin's listing of the vault root names what the folder's
root holds (hidden entries left out, as Obsidian leaves them out; a folder with no visible
file below it is not listed by the plugin either) and a few notes' size and mtime, from the
plugin's note JSON ``stat``, are the folder's files' own. Two copies of one vault both pass
the listing; the mtimes tell them apart unless the copy kept them, which is why two matches
are never trusted (``finder``).
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio.to_thread

from vaultgate.errors import NotFound, ObsidianError

SAMPLED_NOTES = 3  # notes whose stat must match
SAMPLED_FOLDERS = 5  # folders looked into for notes when the root holds fewer
MTIME_SLACK_MS = 2  # Obsidian's mtime is the disk's in milliseconds, maybe rounded otherwise


class PluginListing(Protocol):
    """What verification asks of the plugin (``ObsidianClient`` answers it)."""

    async def list_directory(self, directory: str) -> list[str]: ...

    async def read_note_json(self, path: str | None) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """One candidate checked: ``matches``, with ``how`` in words (what matched, or what did
    not); ``answered`` False when the plugin did not answer at all (nothing was learned)."""

    folder: Path
    matches: bool
    how: str
    answered: bool = True


async def verify_folder(folder: Path, plugin: PluginListing) -> Verdict:
    """Whether ``plugin`` serves ``folder`` (see the module's docstring)."""
    try:
        root = await plugin.list_directory("")  # as the disk spells them: stat reads them
    except ObsidianError as exc:
        return Verdict(folder, False, f"the plugin did not list its vault ({exc})", False)
    problem = await anyio.to_thread.run_sync(_root_problem, folder, root)
    if problem is not None:
        return Verdict(folder, False, problem)
    try:
        notes = await _sample_notes(plugin, root)
        if not notes:
            return Verdict(folder, False, "the plugin lists no note to compare with the folder")
        for note in notes:
            problem = _stat_problem(folder, note, (await plugin.read_note_json(note)).get("stat"))
            if problem is not None:
                return Verdict(folder, False, problem)
    except NotFound:
        return Verdict(folder, False, "a note the plugin lists is not there to read")
    except ObsidianError as exc:
        return Verdict(folder, False, f"the plugin did not answer ({exc})", False)
    return Verdict(
        folder,
        True,
        f"the plugin's root listing ({len(root)} entries) and {len(notes)} notes' size and "
        "modification time match the folder's",
    )


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _root_problem(folder: Path, listed: list[str]) -> str | None:
    """Why the folder's root is not what the plugin ``listed`` (None: it is)."""
    files: set[str] = set()
    folders: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    folders.add(_nfc(entry.name))
                elif entry.is_file():
                    files.add(_nfc(entry.name))
    except OSError as exc:
        return f"the folder cannot be listed ({exc.strerror or exc})"
    # compared in NFC: a name may be NFD on one side (macOS) and NFC on the other
    listed_files = {_nfc(name) for name in listed if not name.endswith("/")}
    listed_folders = {_nfc(name).removesuffix("/") for name in listed if name.endswith("/")}
    if listed_files != files:
        differ = sorted(listed_files ^ files)
        return f"the plugin's root and the folder's differ in {len(differ)} files ({differ[0]!r}…)"
    if not listed_folders <= folders:
        return f"the plugin lists the folder {sorted(listed_folders - folders)[0]!r}, not here"
    unlisted = sorted(folders - listed_folders)
    holding = next((name for name in unlisted if _holds_a_file(folder / name)), None)
    if holding is not None:
        return f"the folder {holding!r} holds files the plugin does not list"
    return None


def _holds_a_file(folder: Path) -> bool:
    """Whether a visible file is somewhere below ``folder`` (what makes Obsidian list it)."""
    for _, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        if any(not name.startswith(".") for name in files):
            return True
    return False


async def _sample_notes(plugin: PluginListing, root: list[str]) -> list[str]:
    """Up to SAMPLED_NOTES notes the plugin lists: the root's, then its first folders'."""
    notes = sorted(name for name in root if name.endswith(".md"))[:SAMPLED_NOTES]
    for sub in sorted(name for name in root if name.endswith("/"))[:SAMPLED_FOLDERS]:
        if len(notes) >= SAMPLED_NOTES:
            break
        inside = await plugin.list_directory(sub)
        notes += sorted(f"{sub}{name}" for name in inside if name.endswith(".md"))[
            : SAMPLED_NOTES - len(notes)
        ]
    return notes


def _stat_problem(folder: Path, note: str, stat: Any) -> str | None:
    """Why ``note``'s ``stat`` from the plugin is not the file's in ``folder``."""
    if not isinstance(stat, dict):
        return f"the plugin sent no stat for {note!r}"
    try:
        own = os.stat(folder / note)
    except OSError:
        return f"the plugin's note {note!r} is not in the folder"
    size, mtime = stat.get("size"), stat.get("mtime")
    if not isinstance(size, (int, float)) or not isinstance(mtime, (int, float)):
        return f"the plugin's stat for {note!r} has no size and mtime"
    if size != own.st_size:
        return f"{note!r} is {size} bytes to the plugin, {own.st_size} in the folder"
    if abs(mtime - own.st_mtime_ns / 1_000_000) > MTIME_SLACK_MS:
        return f"{note!r} was modified at another time in the plugin's vault"
    return None
