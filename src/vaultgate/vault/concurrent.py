"""Several requests at once, a few at a time, for the tools that read many notes per call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

T = TypeVar("T")
R = TypeVar("R")

READ_CONCURRENCY = 8  # as the listing's walk: a large page does not open dozens of connections


async def map_bounded(
    items: Sequence[T], work: Callable[[T], Awaitable[R]], limit: int = READ_CONCURRENCY
) -> list[R]:
    """``work`` on every item, at most ``limit`` at a time, results in the items' order.

    A failure starts nothing more, lets the requests already sent finish, and is then raised
    as itself (the first one), not wrapped in an exception group, so the model gets our
    message. Work in flight is not cancelled: a request cancelled mid-way throws its kept-alive
    connection away (the next one pays a new TLS handshake), and httpcore leaves a connection
    cancelled during its handshake open until the garbage collector finds it.
    """
    results: list[R | None] = [None] * len(items)
    failures: list[Exception] = []
    limiter = anyio.Semaphore(limit)

    async def run(index: int, item: T) -> None:
        async with limiter:
            if failures:
                return
            try:
                results[index] = await work(item)
            except Exception as exc:  # kept, and raised as itself once the group is done
                failures.append(exc)

    async with anyio.create_task_group() as tg:
        for index, item in enumerate(items):
            tg.start_soon(run, index, item)
    if failures:
        raise failures[0]
    return results  # type: ignore[return-value]  # every slot was filled
