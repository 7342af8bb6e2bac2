"""The other programs that write a note while vaultgate does: appenders, an editor, a sync client.

Each records what it wrote, and what it itself dropped, so that a test can tell a line
vaultgate lost from one another program lost. The editor and the sync client replace the
note by swapping their new file in (``renameat2(RENAME_EXCHANGE)``, their own binding here,
independent of vaultgate's), and keep the file they displaced: lines in it that their own
version lacks are theirs to answer for, not vaultgate's. A sync client that finds the note
taken when it puts its copy back keeps its copy as a conflicted copy, as Dropbox does.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(first: Path, second: Path) -> bool:
    """Swap two names at once; False where this system or file system cannot."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    answer = function(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if answer != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error), str(first))
    return True


def can_exchange(folder: Path) -> bool:
    first, second = folder / "exchange-a", folder / "exchange-b"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    try:
        return exchange(first, second)
    except OSError:
        return False
    finally:
        first.unlink()
        second.unlink()


@dataclass(frozen=True)
class Written:
    """A line another program wrote, and when (monotonic seconds, before and after)."""

    line: str
    started: float
    ended: float


@dataclass
class Others:
    """The other programs at work on ``note`` until ``stop`` is set."""

    note: Path
    scratch: Path  # outside the vault, on the same file system
    run: int
    stop: threading.Event = field(default_factory=threading.Event)
    written: list[Written] = field(default_factory=list)
    # files the editor or the sync client displaced, each with the text it put in place
    displaced: list[tuple[Path, str]] = field(default_factory=list)
    conflicted: list[Path] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _names: itertools.count[int] = field(default_factory=itertools.count)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self, appenders: int = 2) -> None:
        work = [self._append] * appenders + [self._edit, self._sync]
        for n, target in enumerate(work):
            thread = threading.Thread(target=self._guarded, args=(target, n), daemon=True)
            self._threads.append(thread)
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=30)
        if self.errors:
            raise self.errors[0]

    def appended(self) -> int:
        with self._lock:
            return len(self.written)

    def dropped_by_them(self) -> set[str]:
        """Lines in a file the editor or sync client displaced that its own version lacked,
        or left in a conflicted copy: lost (or set aside) by them, not by vaultgate."""
        dropped: set[str] = set()
        for displaced, placed in self.displaced:
            kept = set(placed.splitlines())
            text = displaced.read_text("utf-8", errors="replace")
            dropped.update(line for line in text.splitlines() if line not in kept)
        for copy in self.conflicted:
            dropped.update(copy.read_text("utf-8", errors="replace").splitlines())
        return dropped

    # --- the programs ---------------------------------------------------------------------

    def _guarded(self, target: object, n: int) -> None:
        try:
            target(n)  # type: ignore[operator]
        except BaseException as error:  # reported by finish()
            self.errors.append(error)

    def _record(self, line: str, started: float) -> None:
        with self._lock:
            self.written.append(Written(line, started, time.monotonic()))

    def _append(self, n: int) -> None:
        """A program appending lines the ordinary way: opened for appending (``O_APPEND``, as
        ``open(..., "a")`` does), one write, closed."""
        for i in itertools.count():
            if self.stop.wait(0.0005):
                return
            line = f"ext {self.run}-{n}-{i} 🙂 日本 #tag 100%"
            started = time.monotonic()
            # appending to the note as it is, never creating one the sync client has away
            try:
                descriptor = os.open(self.note, os.O_WRONLY | os.O_APPEND)
            except FileNotFoundError:
                continue
            with open(descriptor, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            self._record(line, started)

    def _edit(self, n: int) -> None:
        """An editor saving the note with a line added: write a new file, swap it in."""
        for i in itertools.count():
            if self.stop.wait(0.003):
                return
            line = f"editor {self.run}-{i} 编辑\r"  # an editor keeping CRLF endings
            started = time.monotonic()
            try:
                text = self.note.read_text("utf-8", errors="replace")
            except FileNotFoundError:  # the sync client has it away: try later
                continue
            new = text + ("" if text.endswith("\n") else "\n") + line + "\n"
            if self._swap_in(new):
                self._record(line.rstrip("\r"), started)

    def _sync(self, n: int) -> None:
        """A sync client: it renames the note away and back, or puts down the same text again
        as a new file (a download of what it uploaded)."""
        for i in itertools.count():
            if self.stop.wait(0.004):
                return
            if i % 2:
                try:
                    text = self.note.read_text("utf-8", errors="replace")
                except FileNotFoundError:
                    continue
                self._swap_in(text)
                continue
            aside = self._scratch_name("aside")
            try:
                os.rename(self.note, aside)
            except FileNotFoundError:
                continue
            try:
                os.link(aside, self.note)  # back, unless the name was taken meanwhile
                os.unlink(aside)
            except FileExistsError:
                self.conflicted.append(aside)

    def _swap_in(self, text: str) -> bool:
        temporary = self._scratch_name("new")
        temporary.write_text(text, encoding="utf-8", newline="")
        try:
            exchange(temporary, self.note)
        except FileNotFoundError:
            temporary.unlink()
            return False
        with self._lock:
            self.displaced.append((temporary, text))
        return True

    def _scratch_name(self, kind: str) -> Path:
        return self.scratch / f"{kind} {self.run}-{next(self._names)}.md"
