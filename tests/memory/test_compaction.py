"""Compaction (seed 003 and the issue's checks): identify, validate, execute, all or nothing."""

from __future__ import annotations

import sqlite3

import pytest

from vaultgate.errors import CompactionRefused, InvalidMemoryInput, MemoryStoreError
from vaultgate.memory.compaction import DEFAULT_SUMMARY_SESSION, SUMMARY_TYPE
from vaultgate.memory.models import CompactRequest, Scope
from vaultgate.memory.store import MemoryStore

from .conftest import FakeClock


def age(store: MemoryStore, clock: FakeClock, days: int, **save: str) -> int:
    """Save an observation as if ``days`` ago; the clock comes back to now."""
    clock.advance(days=-days)
    try:
        options = {"title": f"{days} days old", "content": f"written {days} days ago", **save}
        title, content = options.pop("title"), options.pop("content")
        return store.save(title, content, **options).observation.id  # type: ignore[arg-type]
    finally:
        clock.advance(days=days)


@pytest.fixture
def aged(store: MemoryStore, clock: FakeClock) -> dict[str, int]:
    return {
        "old_p": age(store, clock, 100, project="p"),
        "old_p_personal": age(store, clock, 90, project="p", scope="personal"),
        "old_q": age(store, clock, 80, project="q"),
        "mid_p": age(store, clock, 40, project="p"),
        "new_p": age(store, clock, 2, project="p"),
    }


# --- identify -------------------------------------------------------------------------------


def test_stale_observations_are_the_old_live_ones_oldest_first(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    store.delete(aged["old_q"])

    stale = store.find_stale_observations(older_than_days=30)

    assert [s.id for s in stale] == [aged["old_p"], aged["old_p_personal"], aged["mid_p"]]
    assert stale[0].snippet == "written 100 days ago"
    assert stale[0].created_at == "2026-08-14 12:00:00"


def test_stale_observations_follow_the_project_and_scope_filters(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    assert [s.id for s in store.find_stale_observations("P", "project", 30)] == [
        aged["old_p"],
        aged["mid_p"],
    ]
    assert [s.id for s in store.find_stale_observations(None, "personal", 30)] == [
        aged["old_p_personal"]
    ]


def test_stale_snippets_are_the_first_100_characters(store: MemoryStore, clock: FakeClock) -> None:
    age(store, clock, 50, content="x" * 300)

    assert store.find_stale_observations(older_than_days=30)[0].snippet == "x" * 100


def test_stale_listing_defaults_to_50_allows_200_and_reports_the_total(
    store: MemoryStore, clock: FakeClock
) -> None:
    for i in range(210):
        age(store, clock, 60 + i, title=f"old {i}")

    assert len(store.find_stale_observations(older_than_days=30)) == 50
    report = store.stale_report(older_than_days=30, limit=200)
    assert (len(report.observations), report.total) == (200, 210)
    with pytest.raises(InvalidMemoryInput, match="between 1 and 200"):
        store.find_stale_observations(older_than_days=30, limit=201)


@pytest.mark.parametrize("days", [0, -3, 36_501, 10**9, 2**63, 10**400])
def test_older_than_days_must_be_between_one_day_and_a_hundred_years(
    store: MemoryStore, days: int
) -> None:
    with pytest.raises(InvalidMemoryInput, match="between 1 and 36,500") as caught:
        store.find_stale_observations(older_than_days=days)
    assert len(str(caught.value)) < 300
    with pytest.raises(InvalidMemoryInput, match="between 1 and 36,500"):
        store.compact(CompactRequest(older_than_days=days, ids=(1,)))


# --- execute --------------------------------------------------------------------------------


def test_compaction_soft_deletes_and_writes_a_summary_in_the_filters_project_and_scope(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    result = store.compact(
        CompactRequest(
            older_than_days=30,
            ids=(aged["old_p"], aged["mid_p"]),
            project="p",
            scope="project",
            summary_title="Q3 auth work",
            summary_content="Kept: JWT rotation <private>key</private>.",
        )
    )

    assert result.deleted == [aged["old_p"], aged["mid_p"]]
    assert (result.before, result.after) == (3, 2)  # 3 live in p/project; 2 gone, 1 summary
    summary = result.summary
    assert summary is not None
    assert (summary.type, summary.project, summary.scope) == (SUMMARY_TYPE, "p", "project")
    assert summary.session_id == DEFAULT_SUMMARY_SESSION
    assert summary.content == "Kept: JWT rotation [REDACTED]."
    assert store.get(summary.id).title == "Q3 auth work"
    assert store.count_observations("p", "project") == 2
    assert store.search("written").total == 3  # old_p_personal, old_q, new_p


def test_without_a_project_filter_the_summary_takes_the_compacted_rows_project_and_scope(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    result = store.compact(
        CompactRequest(
            older_than_days=30,
            ids=(aged["old_p_personal"],),
            summary_title="personal bits",
            session_id="compaction-1",
        )
    )

    assert result.summary is not None
    assert (result.summary.project, result.summary.scope) == ("p", "personal")
    assert result.summary.session_id == "compaction-1"
    assert (result.before, result.after) == (5, 5)


def test_compaction_without_a_summary_only_deletes(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    result = store.compact(CompactRequest(older_than_days=30, ids=(aged["old_q"],)))

    assert result.summary is None
    assert (result.before, result.after) == (5, 4)


@pytest.mark.parametrize(
    ("ids", "project", "scope", "summary"),
    [
        pytest.param(("old_p", "old_p_personal"), "p", None, "s", id="project"),
        pytest.param(("old_p_personal",), None, "personal", "s", id="scope"),
        pytest.param(("old_p", "old_q"), None, None, "s", id="two-projects"),
        pytest.param(("old_p", "mid_p"), "p", "project", None, id="no-summary"),
    ],
)
def test_the_after_count_is_the_live_count_under_the_filter(
    store: MemoryStore,
    aged: dict[str, int],
    ids: tuple[str, ...],
    project: str | None,
    scope: Scope | None,
    summary: str | None,
) -> None:
    before = store.count_observations(project, scope)

    result = store.compact(
        CompactRequest(
            older_than_days=30,
            ids=tuple(aged[name] for name in ids),
            project=project,
            scope=scope,
            summary_title=summary,
        )
    )

    assert result.before == before
    assert result.after == store.count_observations(project, scope)


def test_two_hundred_ids_compact_in_one_call(store: MemoryStore, clock: FakeClock) -> None:
    ids = tuple(age(store, clock, 40 + i, title=f"t{i}") for i in range(200))

    result = store.compact(CompactRequest(older_than_days=30, ids=ids, summary_title="all"))

    assert len(result.deleted) == 200
    assert store.count_observations() == 1


@pytest.mark.parametrize(
    ("request_args", "message"),
    [
        pytest.param({"ids": ()}, "empty", id="empty-ids"),
        pytest.param({"ids": tuple(range(1, 202))}, "at most 200", id="too-many-ids"),
        pytest.param(
            {"ids": (1,), "summary_content": "x"}, "needs a summary_title", id="content-no-title"
        ),
    ],
)
def test_malformed_requests_are_refused(
    store: MemoryStore, aged: dict[str, int], request_args: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidMemoryInput, match=message):
        store.compact(CompactRequest(older_than_days=30, **request_args))  # type: ignore[arg-type]
    assert store.count_observations() == len(aged)


def test_unknown_deleted_and_out_of_filter_ids_are_refused_by_name_and_nothing_is_deleted(
    store: MemoryStore, aged: dict[str, int]
) -> None:
    store.delete(aged["old_q"])
    ids = (aged["old_p"], 999, aged["old_q"], aged["new_p"], aged["old_p_personal"])

    with pytest.raises(CompactionRefused) as refused:
        store.compact(CompactRequest(older_than_days=30, ids=ids, project="p", scope="project"))

    assert refused.value.unknown == [999]
    assert refused.value.deleted == [aged["old_q"]]
    assert refused.value.outside_filter == [aged["new_p"], aged["old_p_personal"]]
    message = str(refused.value)
    assert "unknown ids [999]" in message
    assert f"already deleted [{aged['old_q']}]" in message
    assert "older than 30 days" in message
    assert "mem_compact(older_than_days=<days>) without compact_ids" in message
    assert store.count_observations() == 4


def test_an_id_of_another_project_is_refused(store: MemoryStore, aged: dict[str, int]) -> None:
    with pytest.raises(CompactionRefused) as refused:
        store.compact(CompactRequest(older_than_days=30, ids=(aged["old_q"],), project="p"))

    assert refused.value.outside_filter == [aged["old_q"]]


def test_a_failure_after_the_deletes_rolls_everything_back(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = tuple(age(file_store, clock, 60 + i, project="p") for i in range(5))
    # A real failure inside the transaction, after the soft deletes: the summary insert aborts.
    raw.execute(
        "CREATE TRIGGER fail_summary BEFORE INSERT ON observations "
        f"WHEN new.type = '{SUMMARY_TYPE}' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )

    with pytest.raises(MemoryStoreError, match="nothing was changed"):
        file_store.compact(
            CompactRequest(older_than_days=30, ids=ids, summary_title="s", session_id="new-s")
        )

    assert file_store.count_observations("p") == 5
    assert (
        raw.execute("SELECT count(*) FROM observations WHERE deleted_at IS NOT NULL").fetchone()[0]
        == 0
    )
    assert raw.execute("SELECT count(*) FROM sessions WHERE id = 'new-s'").fetchone()[0] == 0
    assert file_store.search("written").total == 5
