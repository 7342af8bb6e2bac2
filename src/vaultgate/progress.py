"""The progress of the tool call being served, for code far below the tool, sent sparingly.

A tool knows its MCP context and can report progress; the backend it calls does not, and
should not. So a tool opens the call's reporting scope here (``reporting``) around its work,
and the tool and everything below it report through ``report``, which does nothing when no
tool opened one (a client that asked for no progress gets none: the SDK drops reports without
a token).

Each report is a notification to the client, so a walk of 4,000 notes must not send one per
folder: within a scope, reports pass a Throttle. At most one notification per
``MIN_INTERVAL`` seconds and ``MAX_PER_CALL`` in all; the gap allowed between two grows by a
quarter after each one sent (``GROWTH``), so the twenty spread over about a minute of work
instead of being spent in the first five seconds (a client may restart its timeout on each).
A report held back is kept, newer replacing older, and the last one is sent when the scope
ends, before the answer: the client always hears the final count.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]
"""``reporter(done, total, message)``: the shape of ``Context.report_progress``."""

MIN_INTERVAL = 0.25  # seconds between two notifications, at the least
MAX_PER_CALL = 20
GROWTH = 1.25  # each notification sent widens the next gap by this factor

_Report = tuple[float, float | None, str | None]


class Throttle:
    """One call's reports as at most ``limit`` notifications, spaced as the module says.

    ``clock`` (seconds, monotonic) is injected so tests count notifications on a fake clock.
    """

    def __init__(
        self,
        send: Reporter,
        *,
        clock: Callable[[], float] = time.monotonic,
        interval: float = MIN_INTERVAL,
        limit: int = MAX_PER_CALL,
    ) -> None:
        self._send = send
        self._clock = clock
        self._gap = interval
        self._limit = limit
        self._sent = 0
        self._next_at: float | None = None  # the earliest time the next one may go
        self._held: _Report | None = None

    @property
    def sent(self) -> int:
        return self._sent

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        now = self._clock()
        # one notification is kept back for the end, so the final count always fits
        if self._sent < self._limit - 1 and (self._next_at is None or now >= self._next_at):
            self._held = None
            await self._emit((done, total, message), now)
        else:
            self._held = (done, total, message)

    async def flush(self) -> None:
        """Send the report held back, if any: the last word of the call."""
        held, self._held = self._held, None
        if held is not None and self._sent < self._limit:
            await self._emit(held, self._clock())

    async def _emit(self, report: _Report, now: float) -> None:
        self._sent += 1
        self._next_at = now + self._gap
        self._gap *= GROWTH
        await self._send(*report)


_current: ContextVar[Throttle | None] = ContextVar("vaultgate_progress", default=None)


@asynccontextmanager
async def reporting(
    reporter: Reporter, *, clock: Callable[[], float] = time.monotonic
) -> AsyncIterator[None]:
    """Report this call's progress through ``reporter``, throttled, while the block runs; the
    report last held back is sent when it ends without an error. A scope opened inside another
    (a dispatcher's inner tool) shares the outer one's throttle, so a call has one budget."""
    if _current.get() is not None:
        yield
        return
    throttle = Throttle(reporter, clock=clock)
    token = _current.set(throttle)
    try:
        yield
    finally:
        _current.reset(token)
    await throttle.flush()


async def report(done: float, total: float | None, message: str | None) -> None:
    """Report progress of the current call, if a tool asked for it."""
    throttle = _current.get()
    if throttle is not None:
        await throttle(done, total, message)
