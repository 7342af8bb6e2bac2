"""Bytes written into a note's old file after vaultgate replaced it, carried over to the note.

A program that opened the note to append just before vaultgate swapped a new version in
writes into the old file, which is no longer the note. vaultgate keeps the old file open for
``WATCH_SECONDS`` after the swap, and a single background thread appends to the note, with
the system's append, whatever the old file gains in that time. A program that keeps the
note open longer and writes later writes into the old file unseen (docs/design.md, "Changes
made elsewhere").
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

WATCH_SECONDS = 5.0
POLL_SECONDS = 0.01

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Watched:
    descriptor: int  # the old file, kept open
    size: int  # how much of it the note has already
    note: Path
    until: float


class LateWrites:
    """Old files watched for late appends; ``carry`` appends bytes to a note."""

    def __init__(self, carry: Callable[[Path, bytes], object]) -> None:
        self._carry = carry
        self._lock = threading.Lock()
        self._watched: list[_Watched] = []
        self._thread: threading.Thread | None = None

    def watch(self, descriptor: int, size: int, note: Path) -> None:
        """Carry over what the open old file holds past ``size`` now, then watch it (a copy
        of ``descriptor``, closed when the watch ends) for what it gains later."""
        entry = _Watched(os.dup(descriptor), size, note, time.monotonic() + WATCH_SECONDS)
        self._check(entry)
        with self._lock:
            self._watched.append(entry)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="vaultgate-late-writes", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(POLL_SECONDS)
            with self._lock:
                watched = list(self._watched)
            now = time.monotonic()
            ended = [entry for entry in watched if not self._check(entry) or entry.until < now]
            for entry in ended:
                if _pending(entry):
                    log.warning("A late append to %s could not be carried over", entry.note)
            with self._lock:
                for entry in ended:
                    self._watched.remove(entry)
                    os.close(entry.descriptor)
                if not self._watched:
                    self._thread = None
                    return

    def _check(self, entry: _Watched) -> bool:
        """Carry over what the old file gained; False when the watch cannot go on. A note
        away for a moment (a sync client renaming it) is tried again at the next poll."""
        try:
            grown = os.fstat(entry.descriptor).st_size
            if grown > entry.size:
                self._carry(entry.note, os.pread(entry.descriptor, grown - entry.size, entry.size))
                entry.size = grown
        except FileNotFoundError:
            return True
        except OSError as error:
            log.warning("Could not carry over a late append to %s: %s", entry.note, error)
            return False
        return True


def _pending(entry: _Watched) -> bool:
    try:
        return os.fstat(entry.descriptor).st_size > entry.size
    except OSError:
        return False
