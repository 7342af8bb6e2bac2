"""Several requests at once, a few at a time: results in order, our error unwrapped."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from vaultgate.errors import NotFound
from vaultgate.vault.concurrent import map_bounded

pytestmark = pytest.mark.anyio


async def test_results_keep_the_items_order_and_at_most_limit_run_at_once() -> None:
    running = 0
    most = 0

    async def work(item: int) -> int:
        nonlocal running, most
        running += 1
        most = max(most, running)
        for _ in range(10 - item):  # later items finish first
            await anyio.lowlevel.checkpoint()
        running -= 1
        return item * 2

    results = await map_bounded(list(range(10)), work, limit=3)

    assert results == [item * 2 for item in range(10)]
    assert most == 3


async def test_a_failure_is_raised_as_itself_not_as_a_group() -> None:
    async def work(item: str) -> str:
        if item == "missing.md":
            raise NotFound(item, "list the folder.")
        await anyio.lowlevel.checkpoint()
        return item

    with pytest.raises(NotFound, match=r"'missing\.md' was not found"):
        await map_bounded(["a.md", "missing.md", "b.md"], work)


async def test_nothing_to_do_is_an_empty_list() -> None:
    async def work(item: str) -> str:
        return item

    assert await map_bounded([], work) == []


async def test_a_failure_starts_nothing_more_and_cancels_nothing_in_flight() -> None:
    finished: list[int] = []
    started: list[int] = []

    async def work(item: int) -> int:
        started.append(item)
        await anyio.lowlevel.checkpoint()  # the first three are all sent
        if item == 0:
            raise NotFound("missing.md", "list the folder.")
        for _ in range(5):  # still in flight when item 0 fails
            await anyio.lowlevel.checkpoint()
        finished.append(item)
        return item

    with pytest.raises(NotFound):
        await map_bounded(list(range(10)), work, limit=3)

    assert sorted(finished) == [1, 2]  # sent before the failure: not cancelled
    assert sorted(started) == [0, 1, 2]  # nothing started after it


async def test_an_unexpected_error_is_raised_as_itself_too() -> None:
    async def work(item: str) -> str:
        raise KeyError(item)

    with pytest.raises(KeyError):
        await map_bounded(["a.md", "b.md"], work)
