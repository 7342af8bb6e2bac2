"""The notes on disk and their ``(mtime_ns, size)``: what the index is compared with.

The walk is the Vault's (``vault.py``): names starting with '.' are skipped at every level,
folders are followed as ``os.scandir`` sees them (a symlinked folder too), and a folder that
cannot be listed is left out. Only markdown notes (``.md``, as ``Vault.markdown_files``) are
kept.
"""

from __future__ import annotations

import os

Stat = tuple[int, int]  # (mtime_ns, size)


def scan_notes(root: str, under: str = "") -> dict[str, Stat]:
    """Every note below the folder ``under`` ('' for the whole vault), by vault path."""
    found: dict[str, Stat] = {}
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
                continue
            try:
                if entry.is_dir():
                    pending.append((entry.path, f"{prefix}{name}/"))
                elif name.endswith(".md") and entry.is_file():
                    st = entry.stat()
                    found[f"{prefix}{name}"] = (st.st_mtime_ns, st.st_size)
            except OSError:
                continue
    return found
