"""Whether the plugin serves a given folder: asked of the plugin, compared with the disk.

A candidate is trusted only when the plugin's listing of the vault root names what the folder's
root holds (hidden entries left out, as Obsidian leaves them out; a folder with no visible
file below it is not listed by the plugin either), a few notes' size and mtime, from the
plugin's note JSON ``stat``, are the folder's files' own, and so are those of the most
recently modified notes of the whole tree, on both sides (``RECENT_NOTES``): one JsonLogic
search gives every note's stat as the plugin sees it, one walk the folder's. A copy of the
vault that kept its files' times passes the root and the sample; it fails the recent notes as
soon as a note changed on either side after the copy was taken, wherever that note lies.
Two copies still identical are both trusted, which is why two matches are never trusted
(``finder``).

A 401 is no silence: the plugin answers with another key, so Obsidian serves another vault
(or the key was changed). The verdict says so (``refused``) and the folder is not used.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio.to_thread

from vaultgate.engine.walk import scan_folder
from vaultgate.errors import (
    AuthenticationFailed,
    MalformedAnswer,
    NotFound,
    ObsidianAPIError,
    ObsidianError,
)
from vaultgate.locations import OBSIDIAN_LINKS
from vaultgate.obsidian.features import FeatureSet, quadratic_search

SAMPLED_NOTES = 3  # notes whose stat must match
SAMPLED_FOLDERS = 5  # folders looked into for notes when the root holds fewer
MTIME_SLACK_MS = 2  # Obsidian's mtime is the disk's in milliseconds, maybe rounded otherwise
RECENT_NOTES = 20  # the most recently modified notes of each side whose stat must match
RECENT_RETRY_SECONDS = 0.2  # a note saved between the two reads: compared once more
# every note's [mtime, size] as the plugin sees it (3.x to 5.x evaluate against note JSON)
STAT_QUERY = {"merge": [{"var": "stat.mtime"}, {"var": "stat.size"}]}
REFUSED = (
    "the plugin refused the API key (401): Obsidian serves another vault, or its key was changed"
)


class PluginListing(Protocol):
    """What verification asks of the plugin (``ObsidianClient`` answers it)."""

    async def list_directory(self, directory: str) -> list[str]: ...

    async def read_note_json(self, path: str | None) -> dict[str, Any]: ...

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]: ...

    async def features(self) -> FeatureSet: ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """One candidate checked: ``matches``, with ``how`` in words (what matched, or what did
    not); ``answered`` False when the plugin did not answer at all (nothing was learned);
    ``refused`` when it answered 401 (another vault or another key)."""

    folder: Path
    matches: bool
    how: str
    answered: bool = True
    refused: bool = False


async def verify_folder(folder: Path, plugin: PluginListing, *, whole_tree: bool = True) -> Verdict:
    """Whether ``plugin`` serves ``folder`` (see the module's docstring). ``whole_tree``
    False leaves the recent notes out: the periodic recheck, which must stay cheap (the
    JsonLogic search reads every note, and each change is checked on its own notes)."""
    try:
        root = await plugin.list_directory("")  # as the disk spells them: stat reads them
    except AuthenticationFailed:
        return Verdict(folder, False, REFUSED, refused=True)
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
        recent = await _recent_problem(folder, plugin) if whole_tree else None
        if recent is not None and recent.problem is not None:
            await anyio.sleep(RECENT_RETRY_SECONDS)
            recent = await _recent_problem(folder, plugin)
    except NotFound:
        return Verdict(folder, False, "a note the plugin lists is not there to read")
    except AuthenticationFailed:
        return Verdict(folder, False, REFUSED, refused=True)
    except ObsidianError as exc:
        return Verdict(folder, False, f"the plugin did not answer ({exc})", False)
    if recent is not None and recent.problem is not None:
        return Verdict(folder, False, recent.problem)
    tree = (
        f", and so do the {recent.compared} most recently modified notes of the whole tree"
        if recent is not None
        else ""
    )
    return Verdict(
        folder,
        True,
        f"the plugin's root listing ({len(root)} entries) and {len(notes)} notes' size and "
        f"modification time match the folder's{tree}",
    )


@dataclass(frozen=True, slots=True)
class _Recent:
    compared: int
    problem: str | None


async def _recent_problem(folder: Path, plugin: PluginListing) -> _Recent | None:
    """The most recently modified notes of each side compared with the other's (see the
    module's docstring). None: not compared, on the plugin versions whose JsonLogic search
    is quadratic in the notes (4.0.0-4.0.2), where the sampled notes alone decide."""
    if quadratic_search((await plugin.features()).version):
        return None
    try:
        rows = await plugin.search_jsonlogic(STAT_QUERY)
    except (ObsidianAPIError, MalformedAnswer) as exc:  # answered, but not the notes' stat
        return _Recent(0, f"the plugin's notes' stat could not be compared ({exc})")
    served: dict[str, tuple[float, float]] = {}
    for row in rows:
        name, value = row.get("filename"), row.get("result")
        if isinstance(name, str) and isinstance(value, list) and _is_stat(value):
            served[_nfc(name)] = (float(value[0]), float(value[1]))
    scan = await anyio.to_thread.run_sync(
        lambda: scan_folder(str(folder), rules=OBSIDIAN_LINKS, stat_notes=True)
    )
    own = {
        _nfc(path): (mtime_ns / 1_000_000, float(size))
        for path, (mtime_ns, size) in scan.notes.items()
    }
    newest_served = sorted(served, key=lambda name: served[name][0], reverse=True)
    newest_own = sorted(own, key=lambda name: own[name][0], reverse=True)
    compared = set(newest_served[:RECENT_NOTES]) | set(newest_own[:RECENT_NOTES])
    for name in sorted(compared):
        problem = _differs(name, served.get(name), own.get(name))
        if problem is not None:
            return _Recent(len(compared), problem)
    return _Recent(len(compared), None)


def _is_stat(value: list[Any]) -> bool:
    return len(value) == 2 and all(
        isinstance(n, (int, float)) and not isinstance(n, bool) for n in value
    )


def _differs(
    name: str, served: tuple[float, float] | None, own: tuple[float, float] | None
) -> str | None:
    """Why the note ``name`` is not the same on both sides, among the recent ones."""
    if served is None:
        return f"the folder's recently modified note {name!r} is not in the plugin's vault"
    if own is None:
        return f"the plugin's recently modified note {name!r} is not in the folder"
    if served[1] != own[1]:
        return f"{name!r} is {served[1]:.0f} bytes to the plugin, {own[1]:.0f} in the folder"
    if abs(served[0] - own[0]) > MTIME_SLACK_MS:
        return f"{name!r} was modified at another time in the plugin's vault"
    return None


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
