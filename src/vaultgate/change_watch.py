"""The loop behind change notifications (prompts, resources): wait for a hint that something
may have changed, or at most a poll interval; let a burst of changes settle; check, and
announce what the check found. A failing check never ends the server: Obsidian away for a
while is tried again next time, anything else is logged and tried again too."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from vaultgate.errors import VaultgateError

T = TypeVar("T")

log = logging.getLogger(__name__)


class StaleHint:
    """ "Something may have changed": ``mark``-ed by a write through vaultgate, waited for by
    the one loop that checks (``wait``), which then clears it."""

    def __init__(self) -> None:
        self._due = False  # marked since the waiter last looked
        self._wake: anyio.Event | None = None

    def mark(self) -> None:
        self._due = True
        if self._wake is not None:
            self._wake.set()

    async def wait(self) -> None:
        """Return once marked since the last wait (one waiter)."""
        if not self._due:
            self._wake = anyio.Event()
            await self._wake.wait()
        self._due = False


async def watch_changes(
    what: str,
    *,
    wait_until_stale: Callable[[], Awaitable[None]],
    poll_seconds: Callable[[], float],
    settle_seconds: float,
    wanted: Callable[[], bool],
    check: Callable[[], Awaitable[T]],
    announce: Callable[[T], Awaitable[None]],
) -> None:
    """For the life of the server: ``check`` once stale (or after ``poll_seconds()``) while
    ``wanted()``, and ``announce`` its result."""
    while True:
        with anyio.move_on_after(poll_seconds()):
            await wait_until_stale()
            await anyio.sleep(settle_seconds)
        if not wanted():
            continue
        try:
            found = await check()
        except VaultgateError as exc:  # Obsidian away for a while: try again next time
            log.debug("%s check failed: %s", what, exc)
            continue
        except Exception:  # a background task: whatever fails here must not end the server
            log.warning("%s check failed unexpectedly", what, exc_info=True)
            continue
        await announce(found)
