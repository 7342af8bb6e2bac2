"""Whole-file changes with the plugin's rules: write, append, delete, move and copy.

``vaultfs.py`` changes the disk; this module decides, as the plugin does, what a change
means. The index answers "is there a note here" (so a hidden file is not one) and the disk
answers "is this name taken" (so it is). Deleting moves a note, or a whole folder the index
holds, into ``.trash/`` unless it is permanent; a permanent delete removes what is on disk,
hidden files included, and never a folder. Moving a note onto itself changes nothing;
otherwise the source must be a note, and a taken destination is replaced only when asked,
and never when it is a folder. A path ending in '/' names a folder, never a file.

A move updates the links to the moved file, as Obsidian's ``fileManager.renameFile`` does
when "automatically update internal links" is on (``relink.py``), and returns what it
rewrote; ``dry_run=True`` checks the move and returns what it would rewrite, changing
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from vaultgate.engine import relink, vaultfs
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


def append(vault: Vault, path: str, text: str, *, checked: bool = True) -> None:
    """Append to the file (on a new line), creating it; ``checked`` False appends as the
    plugin does, by reading the note and writing it whole (``vaultfs.append_text``)."""
    vaultfs.append_text(vault, path, text, checked=checked)


def write_if_unchanged(vault: Vault, path: str, expected: str | None, text: str) -> bool:
    """Write the file only while it reads ``expected`` (None: while there is none), making
    its folders; False, with nothing written, when it does not."""
    return vaultfs.write_if_unchanged(vault, path, expected, text)


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


def move(
    vault: Vault,
    source: str,
    destination: str,
    *,
    overwrite: bool,
    update_links: bool = True,
    dry_run: bool = False,
    candidates: Iterable[str] | None = None,
    captures: bool = True,
) -> relink.RelinkPlan:
    """Rename the note ``source``, rewriting the links to it unless ``update_links`` is
    False; a no-op onto itself (before the source is looked up).

    Returns the links rewritten (``notes``, ``links``; ``stranded``, those no link text can
    point back; ``failed``, notes that could not be rewritten). With ``dry_run`` the same
    refusals are raised, and the plan of what would be rewritten is returned untouched.
    ``candidates``: the notes that may link to it (``relink.plan_relink``); None reads all.
    ``captures``: also rewrite the links elsewhere the move would capture (vaultgate's own
    move does; Obsidian's does not).
    """
    if destination == source:
        return relink.RelinkPlan(source, destination)
    replace = _check_destination(vault, source, destination, overwrite=overwrite, operation="move")
    plan = (
        relink.plan_relink(vault, source, destination, candidates=candidates, captures=captures)
        if update_links
        else relink.RelinkPlan(source, destination)
    )
    if dry_run:
        return plan
    if replace:
        vaultfs.remove_for_overwrite(vault, destination)
    vaultfs.move(vault, source, destination)
    return relink.apply_relink(vault, plan)


def copy(vault: Vault, source: str, destination: str, *, overwrite: bool) -> None:
    """Copy the note ``source``; DestinationExists onto itself."""
    if _check_destination(vault, source, destination, overwrite=overwrite, operation="copy"):
        vaultfs.remove_for_overwrite(vault, destination)
    vaultfs.copy(vault, source, destination)


def _check_destination(
    vault: Vault,
    source: str,
    destination: str,
    *,
    overwrite: bool,
    operation: Literal["move", "copy"],
) -> bool:
    """Refuse what the plugin refuses; True when a file at ``destination`` is to go first."""
    if not vault.is_file(source):  # the index: a folder or a hidden file is not a note
        raise NotFound(source)
    if destination == source:
        raise DestinationExists(destination)
    if not vaultfs.disk_path(vault, destination).exists():  # the disk: hidden files count
        return False
    if not overwrite:
        raise DestinationExists(destination)
    if vaultfs.is_dir(vault, destination):
        raise CannotReplace(destination, operation)
    return True
