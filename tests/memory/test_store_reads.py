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
