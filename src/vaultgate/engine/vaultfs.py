"""Changing files in the vault folder, keeping the vault's index in step.

Every function takes a decoded vault-relative path and checks it again before touching the
disk: no empty, ``.`` or ``..`` segment, and the resolved location (symlinks followed) must
lie inside the vault. A path that fails is :class:`PathRefused` (the emulator's 400
``40021``), so no caller can write outside the vault whatever it checked before. Each
change is reported to the index (``record_write`` / ``record_delete``); a failing disk
operation is :class:`DiskFailed`. What the workspace makes of a moved or deleted note (the
open file) is the caller's to update.

Writes are atomic. The new content goes to a temporary file in the note's own folder, named
``.<name>.vaultgate-<random>.tmp`` (a dot-name: neither Obsidian nor the index sees it), is
flushed and fsynced, and is then renamed over the note with ``os.replace`` (the note's
permission bits kept), so Obsidian, a sync client or an editor sees the old text or the new
one, never half of one; a failed write removes its temporary file and leaves the note as it
was. (A process killed mid-write can leave a temporary file behind, never a broken note.)

A change computed from the note's text (:func:`update_text`: patches, relinking, conditional
writes) never lands on a stale copy: the text is read with its ``(mtime_ns, size)`` and
inode, and just before the rename the note must still have them (and the same bytes, when its
mtime is recent enough for a coarse clock to hide a change). Where Linux can swap two names
(``renames.exchange``), the new file is swapped in rather than renamed over the note, so the
file it displaced is still there to check: when it is not the one read (an editor or a sync
client replaced the note, or a program appended to it, in the last microseconds), it is put
back and the change is computed again; bytes appended to the old file after the swap are
appended again to the new one (a note that was only appended to since it was read keeps the
new text with those bytes after it, rather than computing the change again), and for a
moment after the swap, so is anything written late into the old file
(``late_writes.py``). If the note keeps changing, :class:`ChangedOnDisk` after a few
attempts. Without the swap (another system, a file system that refuses it) the check before
the rename is all there is: a window of microseconds. A program that keeps the note open and
writes into it long after the rename writes into the replaced file: nothing short of a lock
every program honours could catch that.

Appending (:func:`append_text`) rewrites nothing: the bytes go to the end of the file with
the system's own append (``O_APPEND``, one write, fsync), so lines other programs append at
the same moment are all kept. Only the choice of a leading newline reads the file (its last
byte, just before the write); an appender that adds an unterminated line in between leaves
the two texts on one line. A note that must not exist yet (a create without overwrite, the
destination of a move or a copy) is created with a rename that refuses a taken name, so a
file that appeared meanwhile is never replaced.

Deleting to the trash (5.0+) moves the file to ``<vault>/.trash/<its vault path>``; when
that name is taken, `` 1``, `` 2``... is added before the extension.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar

from vaultgate.engine import renames
from vaultgate.engine.errors import ChangedOnDisk, DestinationExists, DiskFailed, PathRefused
from vaultgate.engine.late_writes import LateWrites
from vaultgate.engine.vault import Vault
from vaultgate.paths import is_hidden

TRASH = ".trash"
UPDATE_ATTEMPTS = 5
"""How many times :func:`update_text` computes a change before giving up on a busy note."""
COARSE_CLOCK_NS = 2_000_000_000
"""Below this age an unchanged (mtime, size) proves nothing: FAT keeps mtimes to 2 s, and
ext4 to a scheduler tick, so the bytes are compared too."""
_TEMPORARY_SUFFIX = ".vaultgate-{}.tmp"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)  # not inherited by a child (POSIX)
_BINARY = getattr(os, "O_BINARY", 0)  # no newline translation (Windows)
_NAME_MAX = 255  # bytes in one file name, on every file system a vault is likely to live on

R = TypeVar("R")


def disk_path(vault: Vault, path: str) -> Path:
    """Where ``path`` lives on disk; PathRefused if it could leave the vault."""
    location = vault.location(path)
    if location is None:
        raise PathRefused(path)
    return location


def is_file(vault: Vault, path: str) -> bool:
    with _disk_errors(path):  # a name too long for the disk is a failure, not "no"
        return disk_path(vault, path).is_file()


def is_dir(vault: Vault, path: str) -> bool:
    with _disk_errors(path):
        return disk_path(vault, path).is_dir()


@contextmanager
def _disk_errors(path: str) -> Iterator[None]:
    """A failing disk operation (a file where a folder should be...) is DiskFailed."""
    try:
        yield
    except OSError as exc:
        raise DiskFailed(path, f"{exc.strerror or exc}") from exc


# --- atomic writes --------------------------------------------------------------------------

_LEFT_BEHIND = re.compile(r"\..+\.vaultgate-[0-9a-f]{8}\.tmp")
LEFT_BEHIND_AGE_SECONDS = 3600.0
"""A temporary file this old is no write in progress (another vaultgate's included): a crash
left it."""


def sweep_temporaries(
    root: Path, candidates: Iterable[str], *, older_than: float = LEFT_BEHIND_AGE_SECONDS
) -> list[Path]:
    """Remove the temporary files that writes killed mid-way left in the vault: of
    ``candidates`` (vault paths of hidden files, as the start's walk found them:
    ``FolderScan.temporaries``), only ours, by name, and only old ones; returns what was
    removed."""
    removed: list[Path] = []
    cutoff = time.time() - older_than
    for candidate in candidates:
        if not _LEFT_BEHIND.fullmatch(candidate.rsplit("/", 1)[-1]):
            continue
        path = root.joinpath(*candidate.split("/"))
        with suppress(OSError):
            if path.lstat().st_mtime < cutoff:
                path.unlink()
                removed.append(path)
    return removed


def _temporary_name(name: str) -> str:
    """``.<name>.vaultgate-<random>.tmp``, with ``name`` cut (at a character boundary) when
    the whole would not fit in one file name."""
    suffix = _TEMPORARY_SUFFIX.format(secrets.token_hex(4))
    room = _NAME_MAX - 1 - len(suffix)
    encoded = os.fsencode(name)
    if len(encoded) > room:
        name = encoded[:room].decode("utf-8", "ignore") or "note"
    return f".{name}{suffix}"


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new, empty temporary file beside ``target``, opened for writing. Its mode is the
    default for a new file (0o666 less the umask): ``open`` applies the umask, so the process
    never has to change it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY
    while True:
        temporary = target.with_name(_temporary_name(target.name))
        try:
            return os.open(temporary, flags | _CLOEXEC, 0o666), temporary
        except FileExistsError:  # 32 random bits taken: draw again
            continue


def _keep_mode(target: Path, temporary: Path) -> None:
    """The replacement keeps the permission bits of the file it replaces."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    os.chmod(temporary, mode)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); elsewhere folders cannot be opened."""
    if os.name != "posix":
        return
    # some file systems refuse to open or sync a folder; the data itself is synced already
    with suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _atomic_write(
    location: Path,
    fill: Callable[[BinaryIO], object],
    *,
    replace: bool = True,
) -> None:
    """Write through a temporary file renamed over ``location``; with ``replace`` False,
    FileExistsError (nothing changed) when ``location`` is taken, however recently."""
    # a note that is a symlink (inside the vault: disk_path checked) keeps being one
    target = location.resolve() if location.is_symlink() else location
    descriptor, temporary = _create_temporary(target)
    placed = False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            _keep_mode(target, temporary)
            os.replace(temporary, target)
        else:
            renames.rename_noreplace(temporary, target)
        placed = True
    finally:
        if not placed:
            with suppress(OSError):
                os.unlink(temporary)
    _sync_folder(target.parent)


def _replace_if_unchanged(location: Path, data: bytes, snapshot: Snapshot) -> bool:
    """Put ``data`` in place of the file ``snapshot`` read; False, with whatever is there now
    left in place, when the file is no longer that one (or, read as absent, now exists)."""
    target = location.resolve() if location.is_symlink() else location
    descriptor, temporary = _create_temporary(target)
    settled = False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            ours = os.fstat(handle.fileno())
        _keep_mode(target, temporary)
        unchanged = _unchanged(target, snapshot)
        if not unchanged and not _only_appended(target, snapshot):
            return False
        if snapshot.key is None:  # read as absent: it must still be, at the rename
            try:
                renames.rename_noreplace(temporary, target)
            except FileExistsError:
                return False
            settled = True
            return True
        try:
            swapped = renames.exchange(temporary, target)
        except FileNotFoundError:  # renamed away in the last instant (a sync client)
            return False
        if swapped:
            settled = True  # the temporary name now holds what was the note
            return _settle_exchange(target, temporary, snapshot, ours)
        if not unchanged:  # without the swap, what was appended could not be carried over
            return False
        os.replace(temporary, target)
        settled = True
        return True
    finally:
        if not settled:
            with suppress(OSError):
                os.unlink(temporary)
        else:
            _sync_folder(target.parent)


def _settle_exchange(
    target: Path, displaced: Path, snapshot: Snapshot, ours: os.stat_result
) -> bool:
    """After the new file was swapped in: True when what it displaced is the file that was
    read, or that file with bytes appended (removed, the appended bytes, and any written into
    it for a moment longer, appended to the new one); else the displaced file goes back in
    place and False (compute again)."""
    descriptor = os.open(displaced, os.O_RDONLY | _CLOEXEC)
    try:
        st = os.fstat(descriptor)
        read = snapshot.key[1] if snapshot.key is not None else 0
        if _identity(st) == snapshot.identity and (
            (st.st_mtime_ns, st.st_size) == snapshot.key
            or _starts_with(descriptor, snapshot.data or b"")
        ):
            os.unlink(displaced)
            _sync_folder(target.parent)
            # what was appended to the old file since it was read is appended to the new
            # one, and so is what a writer that opened it before the swap writes later
            _LATE.watch(descriptor, read, target)
            return True
    finally:
        os.close(descriptor)
    # the note changed in the last instant: its new version goes back where it was
    try:
        renames.exchange(displaced, target)
    except FileNotFoundError:  # and was renamed away since (a sync client): theirs goes back
        try:
            renames.rename_noreplace(displaced, target)
        except FileExistsError:  # and the sync client put its copy back meanwhile
            raise _Contended(_set_aside(displaced, target)) from None
        raise _Contended from None
    descriptor = os.open(displaced, os.O_RDONLY | _CLOEXEC)
    try:
        back = os.fstat(descriptor)
        if _identity(back) == _identity(ours):
            # what was appended to ours while it was in place is appended to theirs
            os.unlink(displaced)
            _LATE.watch(descriptor, ours.st_size, target)
            return False
    finally:
        os.close(descriptor)
    # a third version replaced ours meanwhile: the newest stays, the version ours displaced
    # is set aside beside it (it may hold lines the newest lacks), and the change is refused
    renames.exchange(displaced, target)
    raise _Contended(_set_aside(displaced, target))


class _Contended(Exception):
    """Three writers within microseconds: the change gives up at once (ChangedOnDisk).
    ``set_aside``: where a version that lost the race was kept, if one was."""

    def __init__(self, set_aside: Path | None = None) -> None:
        super().__init__()
        self.set_aside = set_aside


CONFLICTED_COPY = "{stem} (conflicted copy {stamp}{n}){suffix}"
"""A version that lost a race of three writers, kept beside the note as sync clients keep
theirs: nothing another program wrote is ever deleted, and the user merges it."""


def _set_aside(version: Path, note: Path) -> Path:
    """Rename ``version`` to a free conflicted-copy name beside ``note`` (never over a file);
    returns it."""
    stamp = time.strftime("%Y-%m-%d %H%M%S")
    stem = note.stem
    for n in itertools.count(1):
        number = "" if n == 1 else f" {n}"
        name = CONFLICTED_COPY.format(stem=stem, stamp=stamp, n=number, suffix=note.suffix)
        while len(os.fsencode(name)) > _NAME_MAX and stem:
            stem = stem[:-1]  # a long name keeps its start and the copy's mark
            name = CONFLICTED_COPY.format(stem=stem, stamp=stamp, n=number, suffix=note.suffix)
        try:
            renames.rename_noreplace(version, note.with_name(name))
        except FileExistsError:
            continue
        return note.with_name(name)
    raise AssertionError("unreachable: itertools.count never ends")


def _starts_with(descriptor: int, data: bytes) -> bool:
    """Whether the open file holds ``data`` and only more after it (appended to)."""
    size = os.fstat(descriptor).st_size
    return size >= len(data) and _read_at(descriptor, len(data), 0) == data


def _only_appended(location: Path, snapshot: Snapshot) -> bool:
    """Whether the file is the one ``snapshot`` read, with bytes appended since: another
    program's append, which the new text can carry over rather than be computed again."""
    if snapshot.data is None:
        return False
    try:
        descriptor = os.open(location, os.O_RDONLY | _CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        same = _identity(os.fstat(descriptor)) == snapshot.identity
        return same and _starts_with(descriptor, snapshot.data)
    finally:
        os.close(descriptor)


def _append_bytes(location: Path, data: bytes) -> int:
    """Append ``data`` with the system's append (one write where the system allows, then
    fsync); returns the file's size before it. FileNotFoundError when there is no file."""
    flags = os.O_WRONLY | os.O_APPEND | _CLOEXEC | _BINARY
    descriptor = os.open(location, flags)
    try:
        size = os.fstat(descriptor).st_size
        _write_all(descriptor, data)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return size


_LATE = LateWrites(_append_bytes)


def _read_at(descriptor: int, length: int, offset: int) -> bytes:
    """``os.pread``, which Windows lacks (there, a seek then a read: appends still go to the
    end, ``O_APPEND`` moves there before each write)."""
    if hasattr(os, "pread"):
        return os.pread(descriptor, length, offset)
    os.lseek(descriptor, offset, os.SEEK_SET)
    return os.read(descriptor, length)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _writer(data: bytes) -> Callable[[BinaryIO], object]:
    return lambda handle: handle.write(data)


# --- reading what a change is computed from -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A file's bytes and the ``(mtime_ns, size)`` they were read with; both None when there
    was no file."""

    data: bytes | None
    key: tuple[int, int] | None
    identity: tuple[int, int] | None = None  # (st_dev, st_ino)

    @property
    def text(self) -> str | None:
        # Obsidian reads notes as UTF-8 and tolerates bad bytes
        return None if self.data is None else self.data.decode("utf-8", "replace")


def _snapshot(location: Path) -> Snapshot:
    try:
        with open(location, "rb") as handle:
            # the stat taken before the read: a write racing the read moves the file on from
            # it, so the check before the rename fails and the change is computed again
            before = os.fstat(handle.fileno())
            # what a program appended after that stat is left out: it is carried over after
            # the change, as an append made a moment later would be (_settle_exchange)
            data = handle.read(before.st_size)
    except FileNotFoundError:
        return Snapshot(None, None)
    return Snapshot(data, (before.st_mtime_ns, before.st_size), _identity(before))


def _unchanged(location: Path, snapshot: Snapshot) -> bool:
    """Whether the file is still what ``snapshot`` read."""
    try:
        st = os.stat(location)
    except FileNotFoundError:
        return snapshot.key is None
    if snapshot.key != (st.st_mtime_ns, st.st_size) or snapshot.identity != _identity(st):
        return False
    if time.time_ns() - st.st_mtime_ns >= COARSE_CLOCK_NS:
        return True  # any write since would carry a newer mtime
    return location.read_bytes() == snapshot.data


# --- changes ----------------------------------------------------------------------------------


def write_bytes(vault: Vault, path: str, data: bytes) -> None:
    """Create or replace a file atomically, making its folders first."""
    location = disk_path(vault, path)
    with _disk_errors(path):
        location.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(location, _writer(data))
    vault.record_write(path)


def write_text(vault: Vault, path: str, text: str) -> None:
    write_bytes(vault, path, text.encode("utf-8", "surrogatepass"))


def read_text(vault: Vault, path: str) -> str:
    """The current text of a file, read past the cache (the next write depends on it)."""
    return disk_path(vault, path).read_bytes().decode("utf-8", "replace")


def update_text(
    vault: Vault,
    path: str,
    change: Callable[[str | None], tuple[str, R]],
    *,
    attempts: int = UPDATE_ATTEMPTS,
    checked: bool = True,
) -> R:
    """Read the file, compute its new text with ``change``, and write it atomically, unless
    the file changed on disk meanwhile: then compute again from the current text.

    ``change`` gets the text (None when there is no file) and returns the new text and what
    the caller wants back, which this returns; it may run several times, so it must not
    count on running once. A new text equal to the old one is not written. After
    ``attempts`` changes that each lost the race: ChangedOnDisk. ``checked`` False writes
    what was computed whatever happened meanwhile, as the plugin's ``vault.read`` then
    ``vault.modify`` does (the emulator's faithful window).
    """
    location = disk_path(vault, path)
    with _disk_errors(path):
        for _ in range(attempts):
            snapshot = _snapshot(location)
            text, result = change(snapshot.text)
            data = text.encode("utf-8", "surrogatepass")
            if data == snapshot.data:
                return result
            location.parent.mkdir(parents=True, exist_ok=True)
            if not checked:
                _atomic_write(location, _writer(data))
            else:
                try:
                    if not _replace_if_unchanged(location, data, snapshot):
                        continue
                except _Contended as contended:
                    if contended.set_aside is not None:
                        raise ChangedOnDisk(
                            path, attempts, set_aside=_vault_path(vault, contended.set_aside)
                        ) from None
                    break
            vault.record_write(path)
            return result
    raise ChangedOnDisk(path, attempts)


def _vault_path(vault: Vault, location: Path) -> str:
    """The vault path of a file beside a note (the note's real folder: a note that is a link
    is written where it leads); its name alone if that is not in the vault's own folder."""
    root = Path(vault.vault).resolve()
    try:
        return location.parent.resolve().relative_to(root).joinpath(location.name).as_posix()
    except ValueError:
        return location.name


class _Differs(Exception):
    """The note is not the text a conditional write expected."""


def write_if_unchanged(vault: Vault, path: str, expected: str | None, text: str) -> bool:
    """Write ``text`` only while the note reads ``expected`` (None: while there is no file),
    checked just before the rename; False, with nothing written, when it does not. A note
    that only had lines appended since (``expected`` ended with a newline and is all still
    there) gets ``text`` with those lines after it: an append changes nothing an edit
    computed from the text before it."""

    def replaced(current: str | None) -> tuple[str, bool]:
        if current == expected:
            return text, True
        if expected is not None and current is not None and _appended_to(expected, current):
            # only appended to since: the lines appended follow the new text
            return text + current[len(expected) :], True
        raise _Differs

    try:
        return update_text(vault, path, replaced)
    except _Differs:
        return False


def _appended_to(expected: str, current: str) -> bool:
    """Whether ``current`` is ``expected`` with whole lines appended to it."""
    return expected.endswith("\n") and current.startswith(expected)


def create_bytes(vault: Vault, path: str, data: bytes) -> None:
    """Create a file that must not exist, making its folders; DestinationExists when the
    name is taken, even by a file that appeared a moment ago (nothing is replaced)."""
    location = disk_path(vault, path)
    with _disk_errors(path):
        location.parent.mkdir(parents=True, exist_ok=True)
        try:
            _atomic_write(location, _writer(data), replace=False)
        except FileExistsError:
            raise DestinationExists(path) from None
    vault.record_write(path)


def append_text(vault: Vault, path: str, text: str, *, checked: bool = True) -> None:
    """Append, starting a new line if an existing file lacks a final one (even when empty).

    An existing note gets the bytes with the system's append, so nothing another program
    writes at the same moment is lost; a missing one is created whole, never over a file
    that appeared meanwhile. A hidden file is no note to the plugin (Obsidian does not
    index it), so appending to one replaces its content with the appended text, as the
    plugin does. ``checked`` False appends as the plugin does instead: the note's text is
    read, then the whole is written (the emulator's faithful window).
    """
    location = disk_path(vault, path)
    if not checked:
        _append_as_plugin(vault, path, text)
        return
    data = text.encode("utf-8", "surrogatepass")
    with _disk_errors(path):
        if is_hidden(path):
            location.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(location, _writer(data))
            vault.record_write(path)
            return
        for _ in range(UPDATE_ATTEMPTS):
            # the note is what the disk holds now: one another program made a moment ago,
            # before the index saw it, is still appended to, never replaced
            if _append_line(location, data):
                vault.record_write(path)
                return
            location.parent.mkdir(parents=True, exist_ok=True)
            try:
                _atomic_write(location, _writer(data), replace=False)
            except FileExistsError:  # created meanwhile: append to it
                continue
            vault.record_write(path)
            return
    raise ChangedOnDisk(path, UPDATE_ATTEMPTS)


def _append_line(location: Path, data: bytes) -> bool:
    """Append ``data`` to the file, on a new line; False when there is no file."""
    flags = os.O_RDWR | os.O_APPEND | _CLOEXEC | _BINARY
    try:
        descriptor = os.open(location, flags)
    except FileNotFoundError:
        return False
    try:
        size = os.fstat(descriptor).st_size
        # the plugin's rule (a new line unless the text ends with one), decided from the
        # last byte just before the write rather than from a copy of the whole note
        if size == 0 or _read_at(descriptor, 1, size - 1) != b"\n":
            data = b"\n" + data
        written = 0
        try:
            while written < len(data):
                written += os.write(descriptor, data[written:])
            os.fsync(descriptor)
        except OSError:
            # a failed append is taken back, unless another program appended after it
            with suppress(OSError):
                if os.fstat(descriptor).st_size == size + written:
                    os.ftruncate(descriptor, size)
            raise
    finally:
        os.close(descriptor)
    return True


def _append_as_plugin(vault: Vault, path: str, text: str) -> None:
    indexed = vault.is_file(path)

    def appended(existing: str | None) -> tuple[str, None]:
        if existing is None and indexed:  # vault.read of a note gone from the disk throws
            raise DiskFailed(path, "ENOENT: no such file or directory")
        if existing is None or not indexed:
            return text, None
        return (existing if existing.endswith("\n") else existing + "\n") + text, None

    update_text(vault, path, appended, checked=False)


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
    """Rename a file, making folders as needed; DestinationExists when the destination is
    taken, even by a file that appeared since the caller looked (it is never replaced)."""
    target = disk_path(vault, destination)
    with _disk_errors(source):
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            renames.rename_noreplace(disk_path(vault, source), target)
        except FileExistsError:
            raise DestinationExists(destination) from None
    vault.record_delete(source)
    vault.record_write(destination)


def copy(vault: Vault, source: str, destination: str) -> None:
    """Copy a file atomically (the copy appears whole or not at all); DestinationExists when
    the destination is taken, even by a file that appeared since the caller looked."""
    target = disk_path(vault, destination)
    origin = disk_path(vault, source)
    with _disk_errors(source):
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(origin, "rb") as original:
            try:
                _atomic_write(target, partial(shutil.copyfileobj, original), replace=False)
            except FileExistsError:
                raise DestinationExists(destination) from None
    vault.record_write(destination)


def remove_for_overwrite(vault: Vault, path: str) -> None:
    """Clear a destination before MOVE/COPY with ``Allow-Overwrite: true``."""
    disk_path(vault, path).unlink()
    vault.record_delete(path)
