"""A head start for a folder vault's server: the folder walked and its index caught up in a
child process, while the server imports the MCP SDK.

A server's start is mostly imports (the SDK builds its pydantic models at import: about 0.6 s
here), and a Python process runs them on one core; a worker thread walking the folder at the
same time only waits for the GIL. The walk and the index's catch-up need none of those
imports, so the command line starts them first, in a child process (``python -m
vaultgate.folder.head_start FOLDER INDEX FOLLOW``) on another core, when the index file exists (a
first build runs in the server, which reports its progress). By the time the server is up,
the child has usually finished: the server takes its walk (the file list) and opens the index
as the child left it.

The child writes to its stdout (a pipe, never the server's own) every file's vault path, as
``os.fsencode`` bytes after a one-byte kind (``f`` a file, ``t`` a hidden ``*.tmp`` file,
``l`` a symbolic link the walk met, then ``r`` its real location), each ended by NUL (no path
holds one), then an empty record once the walk is complete; then
``s`` once the index is up to date, or ``x`` if it could not be. The walk is handed over as
soon as it is done: a long catch-up (thousands of notes changed) never holds up the file list.

A change made between the child's walk and the start of the server's watcher is not in
either: the server walks and syncs again once the calls pause (:class:`KeptIndex`).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from vaultgate.engine.walk import FolderScan, scan_folder
from vaultgate.locations import FollowLinks, served_links
from vaultgate.logs import LOG_FORMAT

log = logging.getLogger(__name__)

_FILE, _TEMPORARY, _LINK, _TARGET = b"f", b"t", b"l", b"r"
_SYNCED, _FAILED = b"s", b"x"
EXIT_SECONDS = 5.0  # the child's exit, once it has said how the catch-up went


class HeadStart:
    """The child process at work on one folder and its index; read by one thread at a time."""

    def __init__(
        self,
        folder: Path,
        location: Path,
        process: subprocess.Popen[bytes],
        follow: FollowLinks = "inside",
    ) -> None:
        self.folder, self.location = folder, location
        self.rules = served_links(follow)  # the links the child's walk followed
        self._process = process
        self._pending = b""  # read but not yet taken
        self._listing: FolderScan | None = None
        self._listed = False

    @classmethod
    def begin(
        cls, folder: Path, location: Path, follow: FollowLinks = "inside"
    ) -> HeadStart | None:
        """The child started on ``folder`` and the index at ``location``, walking links as
        ``follow`` says; None when there is no index there yet (the server builds it, with
        progress) or no child could start."""
        if not location.is_file():
            return None
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, os.fspath(folder), os.fspath(location), follow],
                stdin=subprocess.DEVNULL,  # the server's stdin is the MCP stream
                stdout=subprocess.PIPE,
                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # Windows: no console
            )
        except OSError as exc:
            log.warning("the vault's head start could not begin (%s): the server walks", exc)
            return None
        return cls(folder, location, process, follow)

    def listing(self) -> FolderScan | None:
        """The child's walk of the folder (blocks until it is complete); None when the child
        failed before giving it. ``notes`` is left empty: the child compared the stats."""
        if not self._listed:
            self._listed = True
            records = self._records_until(b"")
            if records is not None:
                files = [os.fsdecode(r[1:]) for r in records if r[:1] == _FILE]
                temporaries = [os.fsdecode(r[1:]) for r in records if r[:1] == _TEMPORARY]
                links = {
                    os.fsdecode(link[1:]): os.fsdecode(real[1:])
                    for link, real in itertools.pairwise(records)
                    if link[:1] == _LINK and real[:1] == _TARGET
                }
                self._listing = FolderScan(files, {}, temporaries, links)
        return self._listing

    def caught_up(self) -> bool:
        """Whether the child brought the index up to date (blocks until it ends); after
        ``listing``."""
        records = self._records_until(_SYNCED, _FAILED) if self._listing is not None else None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=EXIT_SECONDS)  # it has closed the index: it is leaving
        self.close()
        return records is not None and records[-1] == _SYNCED

    def close(self) -> None:
        """Stop the child if it still runs (the server is leaving, or has all it needs)."""
        process = self._process
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def _records_until(self, *ends: bytes) -> list[bytes] | None:
        """Records up to and including the first of ``ends``; None when the child's output
        ends before one (it failed, or was stopped)."""
        stdout = self._process.stdout
        if stdout is None or stdout.closed:
            return None
        records: list[bytes] = []
        while True:
            *complete, self._pending = self._pending.split(b"\0")
            for n, record in enumerate(complete):
                records.append(record)
                if record in ends:
                    self._pending = b"\0".join([*complete[n + 1 :], self._pending])
                    return records
            chunk = os.read(stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self._pending += chunk


def _write(out: IO[bytes], data: bytes) -> None:
    try:
        out.write(data)
        out.flush()
    except OSError:  # a broken pipe
        pass  # the server has gone: nothing to tell


def child(folder: Path, location: Path, out: IO[bytes], follow: FollowLinks = "inside") -> int:
    """The child's work: walk, hand the walk over, catch the index up, say how it went."""
    from vaultgate.engine.index import VaultIndex  # after the walk is on its way

    rules = served_links(follow)
    found = scan_folder(str(folder), rules=rules)
    listing = b"".join(
        [
            *(_FILE + os.fsencode(path) + b"\0" for path in found.files),
            *(_TEMPORARY + os.fsencode(path) + b"\0" for path in found.temporaries),
            *(
                _LINK + os.fsencode(link) + b"\0" + _TARGET + os.fsencode(real) + b"\0"
                for link, real in found.links.items()
            ),
            b"\0",
        ]
    )
    # the pipe holds 64 KB and the server reads once its imports are done: hand the listing
    # over from a thread, which waits for the reader without the GIL, while the index syncs
    writer = threading.Thread(target=_write, args=(out, listing))
    writer.start()
    synced = False
    try:
        with VaultIndex(folder, location=location, links=rules) as index:
            index.sync(disk=found.notes)
        synced = True
    except Exception:
        log.warning("vault index catch-up failed in the head start", exc_info=True)
    writer.join()
    _write(out, (_SYNCED if synced else _FAILED) + b"\0")
    return 0


def main(argv: list[str]) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=LOG_FORMAT)
    folder, location = (Path(os.fsdecode(arg)) for arg in argv[:2])
    follow: FollowLinks = "all" if argv[2:] == ["all"] else "inside"
    try:
        return child(folder, location, sys.stdout.buffer, follow)
    except KeyboardInterrupt:  # Ctrl-C in a terminal reaches the whole process group
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
