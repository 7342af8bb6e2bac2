"""Changing files in the vault folder, keeping the vault's index in step.

Every function takes a decoded vault-relative path and checks it again before touching the
disk: no empty, ``.`` or ``..`` segment, and the resolved location (symlinks followed) must
lie inside the vault. A path that fails is :class:`PathRefused` (the emulator's 400
``40021``), so no caller can write outside the vault whatever it checked before. Each
change is reported to the index (``record_write`` / ``record_delete``); a failing disk
operation is :class:`DiskFailed`. What the workspace makes of a moved or deleted note (the
open file) is the caller's to update.

Deleting to the trash (5.0+) moves the file to ``<vault>/.trash/<its vault path>``; when
that name is taken, `` 1``, `` 2``... is added before the extension.
"""

from __future__ import annotations

import posixpath
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vaultgate.engine.errors import DiskFailed, PathRefused
from vaultgate.engine.vault import Vault

TRASH = ".trash"


def disk_path(vault: Vault, path: str) -> Path:
    """Where ``path`` lives on disk; PathRefused if it could leave the vault."""
    location = vault.location(path)
    if location is None:
        raise PathRefused(path)
    return location


def is_file(vault: Vault, path: str) -> bool:
    return disk_path(vault, path).is_file()


def is_dir(vault: Vault, path: str) -> bool:
    return disk_path(vault, path).is_dir()


@contextmanager
def _disk_errors(path: str) -> Iterator[None]:
    """A failing disk operation (a file where a folder should be...) is DiskFailed."""
    try:
        yield
    except OSError as exc:
        raise DiskFailed(path, f"{exc.strerror or exc}") from exc


def write_bytes(vault: Vault, path: str, data: bytes) -> None:
    """Create or replace a file, making its folders first."""
    location = disk_path(vault, path)
    with _disk_errors(path):
        location.parent.mkdir(parents=True, exist_ok=True)
        location.write_bytes(data)
    vault.record_write(path)


def write_text(vault: Vault, path: str, text: str) -> None:
    write_bytes(vault, path, text.encode("utf-8", "surrogatepass"))


def read_text(vault: Vault, path: str) -> str:
    """The current text of a file, read past the cache (the next write depends on it)."""
    return disk_path(vault, path).read_bytes().decode("utf-8", "replace")


def append_text(vault: Vault, path: str, text: str) -> None:
    """Append, starting a new line if an existing file lacks a final one (even when empty).

    "Existing" means known to the index, as the plugin asks it: a hidden file is not, so
    appending to one replaces its content with the appended text.
    """
    disk_path(vault, path)
    existing = read_text(vault, path) if vault.is_file(path) else None
    if existing is not None and not existing.endswith("\n"):
        existing += "\n"
    write_text(vault, path, (existing or "") + text)


def delete(vault: Vault, path: str, *, to_trash: bool) -> str | None:
    """Remove a file, or move it into ``.trash/``; returns its path in the trash, if any."""
    location = disk_path(vault, path)
    trashed = None
    if to_trash:
        trashed = free_name(vault, posixpath.join(TRASH, path))
        target = disk_path(vault, trashed)
        with _disk_errors(path):
            target.parent.mkdir(parents=True, exist_ok=True)
            location.rename(target)
    else:
        with _disk_errors(path):
            location.unlink()
    vault.record_delete(path)
    return trashed


def trash_folder(vault: Vault, path: str) -> str:
    """Move a whole folder into ``.trash/`` (a free name there); returns where it went."""
    location = disk_path(vault, path)
    trashed = free_name(vault, posixpath.join(TRASH, path))
    target = disk_path(vault, trashed)
    with _disk_errors(path):
        target.parent.mkdir(parents=True, exist_ok=True)
        location.rename(target)
    vault.refresh()
    return trashed


def free_name(vault: Vault, path: str) -> str:
    """``path``, or ``path`` with `` 1``, `` 2``... before the extension when taken."""
    if not disk_path(vault, path).exists():
        return path
    stem, extension = posixpath.splitext(path)
    n = 1
    while disk_path(vault, f"{stem} {n}{extension}").exists():
        n += 1
    return f"{stem} {n}{extension}"


def move(vault: Vault, source: str, destination: str) -> None:
    """Rename a file (the destination must be free), making folders as needed."""
    target = disk_path(vault, destination)
    with _disk_errors(source):
        target.parent.mkdir(parents=True, exist_ok=True)
        disk_path(vault, source).rename(target)
    vault.record_delete(source)
    vault.record_write(destination)


def copy(vault: Vault, source: str, destination: str) -> None:
    target = disk_path(vault, destination)
    with _disk_errors(source):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(disk_path(vault, source), target)
    vault.record_write(destination)


def remove_for_overwrite(vault: Vault, path: str) -> None:
    """Clear a destination before MOVE/COPY with ``Allow-Overwrite: true``."""
    disk_path(vault, path).unlink()
    vault.record_delete(path)
