"""The progress of the tool call being served, for code far below the tool.

A tool knows its MCP context and can report progress; the backend it calls does not, and
should not. So a tool sets the call's reporter here (``reporting``) around its backend calls,
and the backend reports through ``report``, which does nothing when no tool set one (a
client that asked for no progress gets none: the SDK drops reports without a token).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]
"""``reporter(done, total, message)``: the shape of ``Context.report_progress``."""

_current: ContextVar[Reporter | None] = ContextVar("vaultgate_progress", default=None)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Report this call's progress through ``reporter`` while the block runs."""
    token = _current.set(reporter)
    try:
        yield
    finally:
        _current.reset(token)


async def report(done: float, total: float | None, message: str | None) -> None:
    """Report progress of the current call, if a tool asked for it."""
    reporter = _current.get()
    if reporter is not None:
        await reporter(done, total, message)
