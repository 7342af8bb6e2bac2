"""The files on disk and each note's ``(mtime_ns, size)``, in one walk of the folder.

The walk is Obsidian's view of a vault, shared by the ``Vault``'s file list (``vault.py``)
and the index's comparison with the folder: names starting with '.' are skipped at every
level, and a folder that cannot be listed is left out. Only markdown notes (``.md``, as
``Vault.markdown_files``) are stat'ed: the index keeps nothing else. The hidden ``.tmp``
files met on the way are noted, so that the temporary files a killed write left behind
(``vaultfs.sweep_temporaries``) are found without a walk of their own.

Symbolic links are followed as ``rules`` say (``vaultgate.locations``): a followed link is
resolved once, where the walk meets it, and noted in ``FolderScan.links``. Each real folder
is walked once: a folder link whose target lies inside the vault (its files are listed under
their own names) or contains the vault (a loop) is skipped, as Obsidian skips it, and so is a
second link to an outside folder already walked; the loops among them are logged once. A
folder with no link in it costs what it cost before: no call beyond ``os.scandir``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from vaultgate.locations import OBSIDIAN_LINKS, LinkRules, Location, locate, passes, real_root

log = logging.getLogger(__name__)
_LOOPS_LOGGED: set[tuple[str, str]] = set()  # each loop is logged once, not at every walk

Stat = tuple[int, int]  # (mtime_ns, size)


@dataclass(frozen=True, slots=True)
class FolderScan:
    """Every file below the folder walked (vault paths, in walk order), each note's stat, the
    hidden files named ``*.tmp`` in the folders walked (vault paths), each symbolic link the
    walk met, followed or not (its vault path → its real location; loops left out)."""

    files: list[str]
    notes: dict[str, Stat]
    temporaries: list[str]
    links: dict[str, str] = field(default_factory=dict)


def scan_folder(
    root: str, under: str = "", *, rules: LinkRules = OBSIDIAN_LINKS, stat_notes: bool = True
) -> FolderScan:
    """Walk the folder ``under`` ('' for the whole vault) below ``root`` once
    (``stat_notes=False``: for the files and links alone, ``notes`` left empty)."""
    files: list[str] = []
    notes: dict[str, Stat] = {}
    temporaries: list[str] = []
    links: dict[str, str] = {}
    base = real_root(root)
    start = os.path.join(base, *under.split("/")) if under else base
    walked = {os.path.realpath(start)}  # the real folders walked, or about to be
    pending: list[tuple[str, str]] = [(start, f"{under}/" if under else "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                if name.endswith(".tmp"):
                    temporaries.append(f"{prefix}{name}")
                continue
            path = f"{prefix}{name}"
            st: os.stat_result | None = None
            try:
                if entry.is_symlink():
                    followed = _follow(base, path, rules, walked, links)
                    if followed is None:
                        continue
                    real, is_folder = followed
                    if is_folder:
                        pending.append((real, f"{path}/"))
                        continue
                    st = os.stat(real) if stat_notes else None
                elif entry.is_dir():
                    pending.append((entry.path, f"{path}/"))
                    continue
                elif entry.is_file():
                    st = entry.stat() if stat_notes and name.endswith(".md") else None
                else:
                    continue
            except OSError:
                continue
            if st is not None and name.endswith(".md"):
                notes[path] = (st.st_mtime_ns, st.st_size)
            files.append(path)
    return FolderScan(files, notes, temporaries, links)


def _follow(
    base: str, path: str, rules: LinkRules, walked: set[str], links: dict[str, str]
) -> tuple[str, bool] | None:
    """Where the link at ``path`` leads, if the walk goes there: (its real location, whether
    it is a folder to walk); None when it is skipped. Every link met but a loop is noted in
    ``links``, followed or not: what Obsidian lists through one, the map then places."""
    location = locate(base, path)
    real = _real(base, location)
    if real is None:
        _log_loop(base, path, "is a loop of symbolic links")
        return None
    links[path] = real
    if not passes(location, rules):
        return None
    try:
        is_folder = os.path.isdir(real)
        if not is_folder and not os.path.isfile(real):
            return None  # a broken link, a device
    except OSError:
        return None
    if not is_folder:
        return real, False
    if location.inside is not None or _contains(real, base):
        if _contains(real, os.path.join(base, *path.split("/"))):
            _log_loop(base, path, "links to a folder above it (a loop)")
        return None  # Obsidian ignores folder links within the vault, and loops
    if real in walked or any(_contains(real, seen) or _contains(seen, real) for seen in walked):
        log.info("vault walk: %r leads to a folder walked already; skipped", path)
        return None
    walked.add(real)
    return real, True


def _log_loop(base: str, path: str, what: str) -> None:
    if (base, path) not in _LOOPS_LOGGED:
        _LOOPS_LOGGED.add((base, path))
        log.warning("vault folder %s: %r %s; skipped", base, path, what)


def _real(base: str, location: Location) -> str | None:
    if location.inside is not None:
        return os.path.join(base, *location.inside.split("/")) if location.inside else base
    return location.outside


def _contains(folder: str, path: str) -> bool:
    """Is ``path`` the folder ``folder`` or inside it?"""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
