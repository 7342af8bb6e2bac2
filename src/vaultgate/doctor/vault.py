"""The vault-folder rows: which backend answers what, and whether the folder can serve.

``vault``    the folder lists, holds notes, and takes a write (a temporary dot-file, removed at
             once, as a real write's temporary file is); a folder with no ``.obsidian/`` is
             a warning, since that is usually a sub-folder of the vault, not its root
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from vaultgate.config import VaultSettings
from vaultgate.doctor.report import Check, warn

_OBSIDIAN_ONLY = "the open note, commands, opening a note, periodic notes, Templater, smart search"


def backend_check(vault: VaultSettings, obsidian_url: str) -> Check:
    if vault.backend == "folder":
        return Check("backend", True, f"folder {vault.folder}: Obsidian is never asked")
    if vault.backend == "auto":
        return Check(
            "backend",
            True,
            f"auto: the vault from {vault.folder}; Obsidian at {obsidian_url} only for "
            f"{_OBSIDIAN_ONLY}",
        )
    return Check("backend", True, f"obsidian: everything through the plugin at {obsidian_url}")


def vault_check(folder: Path) -> Check:
    try:
        notes = _count_notes(folder)
    except OSError as exc:
        return Check("vault", False, f"{folder} cannot be listed ({exc.strerror or exc})", _FIX)
    try:
        handle, name = tempfile.mkstemp(prefix=".vaultgate-doctor-", dir=folder)
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        return Check(
            "vault",
            False,
            f"{folder} holds {notes:,} notes but cannot be written ({exc.strerror or exc})",
            "Give vaultgate write access to the folder, or set VAULTGATE_READ_ONLY=true.",
        )
    detail = f"{folder}: {notes:,} notes, writable"
    if not (folder / ".obsidian").is_dir():
        return warn(
            "vault",
            f"{detail}, but no .obsidian/ folder",
            "Is this the vault's root? Obsidian keeps .obsidian/ at the root of each vault.",
        )
    return Check("vault", True, detail)


_FIX = "Point VAULTGATE_VAULT at the folder Obsidian opens as the vault, readable by you."


def _count_notes(folder: Path) -> int:
    """Markdown files outside hidden folders; a folder that cannot be listed is OSError."""
    count = 0
    for _root, folders, files in os.walk(folder, onerror=_raise):
        folders[:] = [name for name in folders if not name.startswith(".")]
        count += sum(1 for name in files if name.endswith(".md") and not name.startswith("."))
    return count


def _raise(error: OSError) -> None:
    raise error
