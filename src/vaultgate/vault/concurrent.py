"""Several requests at once, a few at a time, for the tools that read many notes per call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

from vaultgate.errors import VaultgateError

T = TypeVar("T")
R = TypeVar("R")

READ_CONCURRENCY = 8  # as the listing's walk: a large page does not open dozens of connections


async def map_bounded(
    items: Sequence[T], work: Callable[[T], Awaitable[R]], limit: int = READ_CONCURRENCY
) -> list[R]:
    """``work`` on every item, at most ``limit`` at a time, results in the items' order.

    A failure stops the rest and is raised as itself (the first one), not wrapped in the
    task group's exception group, so the model gets our message.
    """
    results: list[R | None] = [None] * len(items)
    limiter = anyio.Semaphore(limit)

    async def run(index: int, item: T) -> None:
        async with limiter:
            results[index] = await work(item)

    try:
        async with anyio.create_task_group() as tg:
            for index, item in enumerate(items):
                tg.start_soon(run, index, item)
    except* VaultgateError as group:
        raise _first_leaf(group) from None
    return results  # type: ignore[return-value]  # every slot was filled


def _first_leaf(group: BaseExceptionGroup[VaultgateError]) -> VaultgateError:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
