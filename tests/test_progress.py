"""Progress: reports reach the tool's reporter, a few at a time, the last one always; counted on
a fake clock, never on the wall's."""

from __future__ import annotations

import pytest

from vaultgate.progress import MAX_PER_CALL, MIN_INTERVAL, Throttle, report, reporting

pytestmark = pytest.mark.anyio

Report = tuple[float, float | None, str | None]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Heard:
    """What the client hears, with the fake time each notification went out."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.reports: list[Report] = []
        self.times: list[float] = []

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.reports.append((done, total, message))
        self.times.append(self.clock.now)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def heard(clock: FakeClock) -> Heard:
    return Heard(clock)


async def test_a_walk_of_4000_notes_is_a_few_notifications_spaced_and_the_last_one(
    clock: FakeClock, heard: Heard
) -> None:
    async with reporting(heard, clock=clock):
        for done in range(1, 4001):
            clock.now += 0.002  # 8 s of work in all
            await report(done, 4000, f"read {done} notes")

    assert 1 < len(heard.reports) <= MAX_PER_CALL
    assert heard.reports[-1] == (4000, 4000, "read 4000 notes")
    gaps = [later - earlier for earlier, later in zip(heard.times, heard.times[1:], strict=False)]
    assert all(gap >= MIN_INTERVAL for gap in gaps[:-1])  # the last one waits for nothing
    assert [done for done, _, _ in heard.reports] == sorted({d for d, _, _ in heard.reports})


async def test_a_long_call_never_passes_the_limit_and_still_ends_with_its_last_report(
    clock: FakeClock, heard: Heard
) -> None:
    async with reporting(heard, clock=clock):
        for done in range(1, 101):
            clock.now += 60.0  # every report would be due: only the count holds them back
            await report(done, None, f"step {done}")

    assert len(heard.reports) == MAX_PER_CALL
    assert heard.reports[-1] == (100, None, "step 100")


async def test_the_gaps_grow_so_the_notifications_cover_a_minute_of_steady_work(
    clock: FakeClock, heard: Heard
) -> None:
    async with reporting(heard, clock=clock):
        for done in range(1, 60_001):
            clock.now += 0.001
            await report(done, 60_000, None)

    assert heard.times[MAX_PER_CALL - 2] > 30.0  # the 19th is not spent in the first seconds
    assert heard.reports[-1][0] == 60_000


async def test_a_quick_call_sends_its_first_and_last_report(clock: FakeClock, heard: Heard) -> None:
    async with reporting(heard, clock=clock):
        await report(0, 1, "searching the vault")
        await report(0.5, 1, "half way")
        await report(1, 1, "3 notes match")

    assert heard.reports == [(0, 1, "searching the vault"), (1, 1, "3 notes match")]


async def test_a_report_sent_at_once_is_not_sent_again_at_the_end(
    clock: FakeClock, heard: Heard
) -> None:
    async with reporting(heard, clock=clock):
        await report(1, 1, "done")

    assert heard.reports == [(1, 1, "done")]


async def test_a_scope_inside_another_shares_its_budget(clock: FakeClock, heard: Heard) -> None:
    async with reporting(heard, clock=clock):
        for done in range(1, 1001):
            clock.now += 1.0
            async with reporting(heard, clock=clock):  # a dispatcher's inner tool
                await report(done, None, None)

    assert len(heard.reports) == MAX_PER_CALL
    assert heard.reports[-1] == (1000, None, None)


async def test_progress_goes_to_the_reporter_the_tool_set(heard: Heard) -> None:
    await report(1, 2, "before")  # no tool asked: nobody hears it
    async with reporting(heard):
        await report(3, 4, "inside")
    await report(5, 6, "after")

    assert heard.reports == [(3, 4, "inside")]


async def test_a_call_that_fails_sends_nothing_held_back(clock: FakeClock, heard: Heard) -> None:
    async def failing_call() -> None:
        async with reporting(heard, clock=clock):
            await report(1, 3, "first")
            await report(2, 3, "held back")
            raise LookupError("the search failed")

    with pytest.raises(LookupError):
        await failing_call()

    assert heard.reports == [(1, 3, "first")]


async def test_a_throttle_counts_what_it_sent(clock: FakeClock, heard: Heard) -> None:
    throttle = Throttle(heard, clock=clock, interval=1.0, limit=3)
    for done in range(10):
        clock.now += 2.0
        await throttle(done, None, None)
    await throttle.flush()

    assert throttle.sent == 3
    assert [done for done, _, _ in heard.reports] == [0, 1, 9]
