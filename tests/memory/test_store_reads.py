"""mem_context's data and mem_timeline's neighbours, straight from the store."""

from __future__ import annotations

import pytest

from vaultgate.errors import InvalidMemoryInput, ObservationNotFound
from vaultgate.memory.store import CONTEXT_PROMPTS, CONTEXT_SESSIONS, MemoryStore

from .conftest import FakeClock


@pytest.mark.parametrize("limit", [1, 3, 20])
def test_context_limit_really_limits_the_observations(store: MemoryStore, limit: int) -> None:
    for i in range(25):
        store.save(f"n{i}", "c", project="p")

    data = store.context("p", limit=limit)

    assert len(data.observations) == limit
    assert data.total_observations == 25
    assert [obs.title for obs in data.observations] == [f"n{24 - i}" for i in range(limit)]


def test_context_shows_a_few_recent_sessions_and_prompts_of_the_project(
    store: MemoryStore, clock: FakeClock
) -> None:
    for i in range(CONTEXT_SESSIONS + 2):
        store.start_session("p", f"s{i}")
        clock.advance(minutes=1)
    store.start_session("other", "elsewhere")
    for i in range(CONTEXT_PROMPTS + 3):
        store.save_prompt(f"prompt {i}", project="p")
    store.save_prompt("not this one", project="other")
    store.save("in s6", "x", session_id="s6")

    data = store.context("p")

    assert [item.session.id for item in data.sessions][:2] == ["auto/p/2026-11-22", "s6"]
    assert len(data.sessions) == CONTEXT_SESSIONS
    assert {item.session.id: item.observation_count for item in data.sessions}["s6"] == 1
    assert len(data.prompts) == CONTEXT_PROMPTS
    assert data.prompts[0].content == f"prompt {CONTEXT_PROMPTS + 2}"
    assert all(prompt.project == "p" for prompt in data.prompts)


def test_context_filters_observations_by_scope(store: MemoryStore) -> None:
    store.save("team", "x", project="p")
    store.save("mine", "y", project="p", scope="personal")

    data = store.context("p", "personal")

    assert [obs.title for obs in data.observations] == ["mine"]
    assert data.total_observations == 1


def test_context_limit_is_bounded(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryInput, match="limit"):
        store.context(limit=0)


@pytest.fixture
def session_of_nine(store: MemoryStore) -> list[int]:
    """Nine observations in one session, another session's rows in between."""
    ids = []
    for i in range(9):
        ids.append(store.save(f"step {i}", f"content {i}", session_id="main").observation.id)
        store.save(f"noise {i}", f"other {i}", session_id="side")
    return ids


def test_timeline_shows_neighbours_of_the_same_session_in_order(
    store: MemoryStore, session_of_nine: list[int]
) -> None:
    timeline = store.timeline(session_of_nine[4], before=2, after=3)

    assert [obs.title for obs in timeline.before] == ["step 2", "step 3"]
    assert timeline.focus.title == "step 4"
    assert [obs.title for obs in timeline.after] == ["step 5", "step 6", "step 7"]
    assert timeline.total_in_session == 9
    assert timeline.session is not None
    assert timeline.session.id == "main"


def test_timeline_at_the_edges_returns_what_exists(
    store: MemoryStore, session_of_nine: list[int]
) -> None:
    first = store.timeline(session_of_nine[0], before=5, after=0)
    last = store.timeline(session_of_nine[-1], before=0, after=5)

    assert (first.before, first.after, last.before, last.after) == ([], [], [], [])


def test_timeline_skips_deleted_neighbours_and_counts_live_rows(
    store: MemoryStore, session_of_nine: list[int]
) -> None:
    store.delete(session_of_nine[3])

    timeline = store.timeline(session_of_nine[4], before=1, after=0)

    assert [obs.title for obs in timeline.before] == ["step 2"]
    assert timeline.total_in_session == 8


def test_timeline_of_a_deleted_observation_is_not_found(
    store: MemoryStore, session_of_nine: list[int]
) -> None:
    store.delete(session_of_nine[0])

    with pytest.raises(ObservationNotFound, match="mem_search"):
        store.timeline(session_of_nine[0])


# --- timeline around a time (seed 002) -------------------------------------------------------


@pytest.fixture
def hourly(store: MemoryStore, clock: FakeClock) -> list[int]:
    """Ten observations an hour apart from 12:00, alternating two projects and sessions."""
    ids = []
    for n in range(10):
        project = "alpha" if n % 2 == 0 else "beta"
        ids.append(
            store.save(
                f"step {n} 🧭", f"第{n}步 " * 100, project=project, session_id=f"s{n % 2}"
            ).observation.id
        )
        clock.advance(hours=1)
    return ids


def test_around_a_time_gives_each_side_in_order_with_totals(
    store: MemoryStore, hourly: list[int]
) -> None:
    window = store.timeline_around("2026-11-22T16:30:00Z", before=2, after=3)

    assert [o.title for o in window.before] == ["step 3 🧭", "step 4 🧭"]
    assert [o.title for o in window.after] == ["step 5 🧭", "step 6 🧭", "step 7 🧭"]
    assert (window.total_before, window.total_after) == (5, 5)
    assert window.anchor == "2026-11-22 16:30:00"


def test_an_observation_at_the_anchor_counts_before_it(
    store: MemoryStore, hourly: list[int]
) -> None:
    window = store.timeline_around("2026-11-22T14:00:00", before=1, after=1)

    assert [o.title for o in (*window.before, *window.after)] == ["step 2 🧭", "step 3 🧭"]


def test_without_an_anchor_the_timeline_centres_on_now(
    store: MemoryStore, hourly: list[int], clock: FakeClock
) -> None:
    window = store.timeline_around()

    assert window.anchor == "2026-11-22 22:00:00"
    assert [o.title for o in window.before][-1] == "step 9 🧭"
    assert (window.total_before, window.total_after, window.after) == (10, 0, [])


def test_an_offset_is_read_as_the_utc_time_it_names(store: MemoryStore, hourly: list[int]) -> None:
    window = store.timeline_around("2026-11-22T18:30:00+02:00", before=1, after=1)

    assert window.anchor == "2026-11-22 16:30:00"


def test_project_and_session_filters_narrow_both_sides(
    store: MemoryStore, hourly: list[int]
) -> None:
    alpha = store.timeline_around("2026-11-22T16:30:00Z", 20, 20, project=" Alpha ")
    beta = store.timeline_around("2026-11-22T16:30:00Z", 20, 20, session_id="s1")

    assert [o.title[:6] for o in (*alpha.before, *alpha.after)] == [
        f"step {n}" for n in (0, 2, 4, 6, 8)
    ]
    assert (alpha.total_before, alpha.total_after) == (3, 2)
    assert {o.session_id for o in (*beta.before, *beta.after)} == {"s1"}
    assert (beta.total_before, beta.total_after) == (2, 3)


def test_deleted_observations_are_not_in_the_timeline_around_a_time(
    store: MemoryStore, hourly: list[int]
) -> None:
    store.delete(hourly[4])

    window = store.timeline_around("2026-11-22T16:30:00Z", before=2, after=0)

    assert [o.title for o in window.before] == ["step 2 🧭", "step 3 🧭"]
    assert window.total_before == 4


@pytest.mark.parametrize(
    ("anchor", "before", "after", "message"),
    [
        pytest.param("yesterday", 5, 5, "is not an ISO datetime", id="words"),
        pytest.param("2026-13-01", 5, 5, "is not an ISO datetime", id="month-13"),
        pytest.param("0001-01-01T00:00:00+05:00", 5, 5, "is not an ISO", id="before-year-1"),
        pytest.param(None, 0, 5, "before must be 1 to 20", id="before-0"),
        pytest.param(None, 21, 5, "before must be 1 to 20", id="before-21"),
        pytest.param(None, 5, 21, "after must be 0 to 20", id="after-21"),
    ],
)
def test_a_bad_anchor_or_count_is_refused_with_an_example(
    store: MemoryStore, anchor: str | None, before: int, after: int, message: str
) -> None:
    with pytest.raises(InvalidMemoryInput, match=message):
        store.timeline_around(anchor, before, after)
