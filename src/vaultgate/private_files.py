"""Files at rest are their owner's alone: vaultgate's databases, created 0600 in 0700 folders
whatever the umask, and tightened when found wider.

Why: the vault index (``engine/index``) holds the text of every note, hidden ones included,
and the memory store (``memory/``) what the model was asked to remember. Left to SQLite under
the usual umask 022 they are 0644 in 0755 folders, so another local account that cannot read a
0700 vault would read its notes from the index.

The process umask is not changed: other threads write notes, which keep the user's modes. So
the database file is made here, ``os.open(..., 0o600)`` then ``chmod`` (a umask only narrows
it, and a very narrow one would leave the owner without write), before SQLite opens it; SQLite
gives the ``-wal``, ``-shm`` and ``-journal`` files it makes the database file's mode, and any
found from an earlier run are tightened here. A folder made for a database is 0700, as the
XDG base directory spec asks. An existing folder is tightened only when it is vaultgate's own
(its user cache and user data folders, and what lies in them): a folder the user chose
(``VAULTGATE_MEMORY_DB=~/memory.db``) keeps its mode. Whatever is tightened is said in one log
line. On Windows mode bits mean little: the folders are made, nothing more.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger(__name__)

OWNER_FILE = 0o600
OWNER_FOLDER = 0o700
COMPANIONS = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database


def cache_folder() -> Path:
    """vaultgate's user cache folder (``~/.cache/vaultgate`` on Linux): the vault index."""
    import platformdirs  # only what keeps a file at rest needs it

    return Path(platformdirs.user_cache_dir("vaultgate"))


def data_folder() -> Path:
    """vaultgate's user data folder (``~/.local/share/vaultgate`` on Linux): memory.db."""
    import platformdirs

    return Path(platformdirs.user_data_dir("vaultgate", appauthor=False))


def own_folders() -> tuple[Path, ...]:
    """The folders vaultgate owns: it may tighten them, and any folder in them."""
    return (cache_folder(), data_folder())


def prepare_database(path: Path, *, owned: Iterable[Path] | None = None) -> None:
    """Make ``path`` ready for SQLite to open, readable by its owner alone: its missing
    folders made 0700, the file made 0600 when missing; the file, its companions and the
    folders from one of ``owned`` (default: :func:`own_folders`) down to it tightened when
    wider, said in one log line. An OSError making a folder or the file is raised, as
    ``mkdir`` and SQLite's open would raise it; one tightening a mode is only logged."""
    if os.name != "posix":
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    path = Path(os.path.abspath(path))
    _make_folders(path.parent)
    tightened: list[str] = []
    roots = {Path(os.path.abspath(root)) for root in (own_folders() if owned is None else owned)}
    for folder in _owned(path.parent, roots):
        _tighten(folder, stat.S_ISDIR, tightened)
    if not _make_file(path):
        _tighten(path, stat.S_ISREG, tightened)
    for suffix in COMPANIONS:
        _tighten(Path(f"{path}{suffix}"), stat.S_ISREG, tightened)
    if tightened:
        log.warning(
            "made owner-only, as other local accounts could read them: %s", ", ".join(tightened)
        )


def _make_folders(folder: Path) -> None:
    """``folder`` and its missing parents, each made 0700."""
    missing: list[Path] = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(OWNER_FOLDER)
        except FileExistsError:  # made meanwhile by another process: not ours to change
            continue
        made.chmod(OWNER_FOLDER)


def _make_file(path: Path) -> bool:
    """Whether ``path`` was made here (empty, 0600): SQLite takes it for a new database."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OWNER_FILE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, OWNER_FILE)
    finally:
        os.close(fd)
    return True


def _owned(folder: Path, roots: set[Path]) -> list[Path]:
    """The folders from the first of ``roots`` above ``folder`` (or itself) down to it."""
    chain = [folder, *folder.parents]
    for n, above in enumerate(chain):
        if above in roots:
            return chain[n::-1]
    return []


def _tighten(path: Path, is_kind: Callable[[int], bool], tightened: list[str]) -> None:
    """Take the group's and others' bits off ``path`` when it is of the kind and has any."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not is_kind(mode) or not stat.S_IMODE(mode) & 0o077:
        return
    was = stat.S_IMODE(mode)
    try:
        os.chmod(path, was & 0o700)
    except OSError as exc:  # another account's file: SQLite will say whether it can be used
        log.warning("%s is readable by other local accounts and stays so (%s)", path, exc)
        return
    tightened.append(f"{path} (was {was:04o})")
