"""The vault-folder rows: which backend answers what, and whether the folder can serve.

``vault``    the folder lists, holds notes, and would take a write; a folder with no
             ``.obsidian/`` is a warning, since that is usually a sub-folder of the vault, not
             its root

The doctor writes nothing into the vault (issue 36: it used to create and remove a dot-file,
which changed the folder's time and showed a sync client a file, even under
VAULTGATE_READ_ONLY). Whether a write would succeed is asked of the kernel's permission check
(``os.access`` with the effective ids: permissions, ACLs, a read-only mount); under
VAULTGATE_READ_ONLY it is not asked at all, since the server writes nothing there either.
"""

from __future__ import annotations

import os
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


def vault_check(folder: Path, *, read_only: bool = False) -> Check:
    """The vault row; reads the folder and never writes into it."""
    try:
        notes = _count_notes(folder)
    except OSError as exc:
        return Check("vault", False, f"{folder} cannot be listed ({exc.strerror or exc})", _FIX)
    if read_only:
        detail = f"{folder}: {notes:,} notes, read-only (VAULTGATE_READ_ONLY: nothing is written)"
    elif not _writable(folder):
        return Check(
            "vault",
            False,
            f"{folder} holds {notes:,} notes but cannot be written (its permissions, or a "
            "read-only disk)",
            "Give vaultgate write access to the folder, or set VAULTGATE_READ_ONLY=true.",
        )
    else:
        detail = f"{folder}: {notes:,} notes, writable"
    if not (folder / ".obsidian").is_dir():
        return warn(
            "vault",
            f"{detail}, but no .obsidian/ folder",
            "Is this the vault's root? Obsidian keeps .obsidian/ at the root of each vault.",
        )
    return Check("vault", True, detail)


_FIX = "Point VAULTGATE_VAULT at the folder Obsidian opens as the vault, readable by you."


def _writable(folder: Path) -> bool:
    """Whether a note could be created in ``folder``, asked without creating anything. A
    refusal the permission check cannot foresee (a full disk, a quota) shows at the first
    write, with its own message."""
    effective = os.access in os.supports_effective_ids
    return os.access(folder, os.W_OK | os.X_OK, effective_ids=effective)


def _count_notes(folder: Path) -> int:
    """Markdown files outside hidden folders; a folder that cannot be listed is OSError."""
    count = 0
    for _root, folders, files in os.walk(folder, onerror=_raise):
        folders[:] = [name for name in folders if not name.startswith(".")]
        count += sum(1 for name in files if name.endswith(".md") and not name.startswith("."))
    return count


def _raise(error: OSError) -> None:
    raise error
