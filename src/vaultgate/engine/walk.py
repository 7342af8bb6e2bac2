"""The files on disk and each note's ``(mtime_ns, size)``, in one walk of the folder.

The walk is Obsidian's view of a vault, shared by the ``Vault``'s file list (``vault.py``)
and the index's comparison with the folder: names starting with '.' are skipped at every
level, folders are followed as ``os.scandir`` sees them (a symlinked folder too), and a
folder that cannot be listed is left out. Only markdown notes (``.md``, as
``Vault.markdown_files``) are stat'ed: the index keeps nothing else. The hidden ``.tmp``
files met on the way are noted, so that the temporary files a killed write left behind
(``vaultfs.sweep_temporaries``) are found without a walk of their own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

Stat = tuple[int, int]  # (mtime_ns, size)


@dataclass(frozen=True, slots=True)
class FolderScan:
    """Every file below the folder walked (vault paths, in walk order), each note's stat, and
    the hidden files named ``*.tmp`` in the folders walked (vault paths)."""

    files: list[str]
    notes: dict[str, Stat]
    temporaries: list[str]


def scan_folder(root: str, under: str = "") -> FolderScan:
    """Walk the folder ``under`` ('' for the whole vault) below ``root`` once."""
    files: list[str] = []
    notes: dict[str, Stat] = {}
    temporaries: list[str] = []
    start = os.path.join(root, *under.split("/")) if under else root
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
            try:
                if entry.is_dir():
                    pending.append((entry.path, f"{prefix}{name}/"))
                elif entry.is_file():
                    path = f"{prefix}{name}"
                    if name.endswith(".md"):
                        st = entry.stat()
                        notes[path] = (st.st_mtime_ns, st.st_size)
                    files.append(path)
            except OSError:
                continue
    return FolderScan(files, notes, temporaries)
