"""Whole-file changes with the plugin's rules: write, append, delete, move and copy.

``vaultfs.py`` changes the disk; this module decides, as the plugin does, what a change
means. The index answers "is there a note here" (so a hidden file is not one) and the disk
answers "is this name taken" (so it is). Deleting moves a note, or a whole folder the index
holds, into ``.trash/`` unless it is permanent; a permanent delete removes what is on disk,
hidden files included, and never a folder. Moving a note onto itself changes nothing;
otherwise the source must be a note, and a taken destination is replaced only when asked,
and never when it is a folder. A path ending in '/' names a folder, never a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vaultgate.engine import vaultfs
from vaultgate.engine.errors import (
    CannotReplace,
    DestinationExists,
    IsAFolder,
    NotAFile,
    NotFound,
)
from vaultgate.engine.vault import Vault


@dataclass(frozen=True, slots=True)
class Deleted:
    kind: Literal["file", "folder"]
    trashed: str | None  # where it went in ``.trash/``; None when deleted for good


def check_file_path(vault: Vault, path: str) -> None:
    """NotAFile unless ``path`` could name a file: not empty, no final '/', no folder there."""
    if not path or path.endswith("/") or vaultfs.is_dir(vault, path):
        raise NotAFile(path)


def write(vault: Vault, path: str, data: bytes) -> None:
    """Create or replace the file, making its folders."""
    vaultfs.write_bytes(vault, path, data)


def append(vault: Vault, path: str, text: str) -> None:
    """Append to the file (on a new line), creating it."""
    vaultfs.append_text(vault, path, text)


def delete(vault: Vault, path: str, *, to_trash: bool) -> Deleted:
    """Move a note or a folder to ``.trash/``, or remove a file for good.

    NotAFile for '' or a final '/'; NotFound when the index (to the trash) or the disk (for
    good) has nothing there; IsAFolder for a folder deleted for good.
    """
    if not path or path.endswith("/"):
        raise NotAFile(path)
    if to_trash:
        if vault.is_file(path):
            return Deleted("file", vaultfs.delete(vault, path, to_trash=True))
        if vault.is_folder(path):
            return Deleted("folder", vaultfs.trash_folder(vault, path))
        raise NotFound(path)
    found = vault.on_disk(path)
    if found is None:
        raise NotFound(path)
    if found == "folder":
        raise IsAFolder(path)
    vaultfs.delete(vault, path, to_trash=False)
    return Deleted("file", None)


def move(vault: Vault, source: str, destination: str, *, overwrite: bool) -> None:
    """Rename the note ``source``; a no-op onto itself (before the source is looked up)."""
    if destination == source:
        return
    _clear_destination(vault, source, destination, overwrite=overwrite, operation="move")
    vaultfs.move(vault, source, destination)


def copy(vault: Vault, source: str, destination: str, *, overwrite: bool) -> None:
    """Copy the note ``source``; DestinationExists onto itself."""
    _clear_destination(vault, source, destination, overwrite=overwrite, operation="copy")
    vaultfs.copy(vault, source, destination)


def _clear_destination(
    vault: Vault,
    source: str,
    destination: str,
    *,
    overwrite: bool,
    operation: Literal["move", "copy"],
) -> None:
    if not vault.is_file(source):  # the index: a folder or a hidden file is not a note
        raise NotFound(source)
    if destination == source:
        raise DestinationExists(destination)
    if vaultfs.disk_path(vault, destination).exists():  # the disk: hidden files count
        if not overwrite:
            raise DestinationExists(destination)
        if vaultfs.is_dir(vault, destination):
            raise CannotReplace(destination, operation)
        vaultfs.remove_for_overwrite(vault, destination)
