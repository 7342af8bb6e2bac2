"""The notes on disk and their ``(mtime_ns, size)``: what the index is compared with (the
walk is ``engine/walk.py``, the Vault's own)."""

from __future__ import annotations

from vaultgate.engine.walk import Stat, scan_folder
from vaultgate.locations import OBSIDIAN_LINKS, LinkRules

__all__ = ["Stat", "scan_notes"]


def scan_notes(root: str, under: str = "", *, rules: LinkRules = OBSIDIAN_LINKS) -> dict[str, Stat]:
    """Every note below the folder ``under`` ('' for the whole vault), by vault path, its
    symbolic links followed as ``rules`` say."""
    return scan_folder(root, under, rules=rules).notes
