"""Saving, deduplicating, upserting, updating, deleting; sessions and prompts; reads by id."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from vaultgate.errors import (
    InvalidMemoryInput,
    MemoryStoreError,
    ObservationNotFound,
    RevisionNotFound,
    SessionNotFound,
)
from vaultgate.memory.inputs import MAX_CONTENT_CHARS, MAX_PROJECT_CHARS
from vaultgate.memory.models import CompactRequest
from vaultgate.memory.store import MemoryStore

from .conftest import FakeClock

SaveFn = Callable[..., int]


# --- save -----------------------------------------------------------------------------------


def test_a_save_returns_the_new_id_in_the_projects_session_of_the_day(store: MemoryStore) -> None:
    result = store.save("Auth flow", "We use JWT.", type="decision", project="VaultGate")

    assert result.status == "created"
    assert result.observation.id == 1
    assert result.observation.project == "vaultgate"
    assert result.observation.session_id == "auto/vaultgate/2026-11-22"
    assert result.session_created
    assert result.suggested_topic_key == "decision/auth-flow"
    assert store.get(1) == result.observation


def test_the_next_day_gets_its_own_session(store: MemoryStore, clock: FakeClock) -> None:
    first = store.save("a", "1", project="p").observation
    clock.advance(days=1)
    second = store.save("b", "2", project="p").observation

    assert (first.session_id, second.session_id) == ("auto/p/2026-11-22", "auto/p/2026-11-23")


def test_a_save_without_project_goes_to_a_project_less_daily_session(store: MemoryStore) -> None:
    assert store.save("a", "1").observation.session_id == "auto/2026-11-22"


@pytest.mark.parametrize("spelling", ["vaultgate", " VaultGate ", "VAULTGATE", "vaultgate\t"])
def test_spellings_of_one_project_are_one_project(store: MemoryStore, spelling: str) -> None:
    store.save("x", spelling + " text", project=spelling)
    store.save("y", "other text", project="vaultgate")

    assert store.stats().projects == [("vaultgate", 2)]


def test_stored_content_is_never_cut(store: MemoryStore) -> None:
    content = "".join(chr(0x4E00 + i % 500) for i in range(MAX_CONTENT_CHARS))

    saved = store.save("big", content).observation

    assert store.get(saved.id).content == content


def test_content_over_the_cap_is_refused_and_nothing_is_stored(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryInput, match=r"100,001 characters.*Nothing was saved"):
        store.save("big", "x" * (MAX_CONTENT_CHARS + 1))

    assert store.count_observations() == 0


def test_a_title_over_500_characters_is_refused(store: MemoryStore) -> None:
    store.save("t" * 500, "ok")
    with pytest.raises(InvalidMemoryInput, match="at most 500"):
        store.save("t" * 501, "ok")


def test_private_spans_are_stored_redacted_and_the_save_says_so(store: MemoryStore) -> None:
    result = store.save("Key <private>sk-1</private>", "use <private>hunter2</private> to log in")

    stored = store.get(result.observation.id)
    assert (stored.title, stored.content) == ("Key [REDACTED]", "use [REDACTED] to log in")
    assert result.redactions == 2
    assert store.search("hunter2").total == 0


@pytest.mark.parametrize(
    "opening", ["<private x=1>", "< PRIVATE >", "<Private\n>", "<private\tdata-k='v'>"]
)
@pytest.mark.parametrize("closing", ["</private >", "</PRIVATE>", "< /private\n>", ""])
def test_private_spans_spelled_any_way_are_neither_stored_nor_indexed(
    file_store: MemoryStore, raw: sqlite3.Connection, opening: str, closing: str
) -> None:
    secret = f"{opening}zebrasecret 日本 🔑{closing}"

    saved = file_store.save(f"Key {secret}", f"use {secret} to log in")
    file_store.save_prompt(f"remember {secret}")
    file_store.end_session(saved.observation.session_id, f"summary {secret}")

    stored = file_store.get(saved.observation.id)
    assert stored.title == "Key [REDACTED]"
    assert saved.redactions == 2
    assert file_store.search("zebrasecret").total == 0
    everything = "\n".join(raw.iterdump())  # every table, the full-text index's included
    assert "zebrasecret" not in everything
    assert "[REDACTED]" in everything


def test_a_save_into_an_existing_session_takes_its_project(store: MemoryStore) -> None:
    session = store.start_session("Atlas", "s-1").session

    saved = store.save("x", "y", session_id=session.id).observation

    assert (saved.session_id, saved.project) == ("s-1", "atlas")


def test_a_save_into_an_unknown_session_creates_it(store: MemoryStore) -> None:
    result = store.save("x", "y", project="p", session_id="fresh")

    assert result.session_created
    assert result.observation.session_id == "fresh"
    assert store.timeline(result.observation.id).session is not None


def test_an_unusable_scope_or_type_is_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryInput, match="scope"):
        store.save("x", "y", scope="team")
    with pytest.raises(InvalidMemoryInput, match="type"):
        store.save("x", "y", type="two words")


# --- duplicates within 15 minutes -------------------------------------------------------------


def test_the_same_text_within_15_minutes_bumps_duplicate_count(
    store: MemoryStore, clock: FakeClock
) -> None:
    first = store.save("Auth flow", "We use JWT.", project="p")
    clock.advance(minutes=14, seconds=59)
    again = store.save("  auth FLOW ", "we  use\njwt.", project=" P ")

    assert again.status == "duplicate"
    assert again.observation.id == first.observation.id
    assert again.observation.duplicate_count == 2
    assert store.count_observations() == 1


def test_after_15_minutes_the_same_text_is_a_new_observation(
    store: MemoryStore, clock: FakeClock
) -> None:
    store.save("Auth flow", "We use JWT.")
    clock.advance(minutes=15, seconds=1)

    assert store.save("Auth flow", "We use JWT.").status == "created"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"project": "other"}, id="other-project"),
        pytest.param({"scope": "personal"}, id="other-scope"),
    ],
)
def test_the_same_text_elsewhere_is_not_a_duplicate(
    store: MemoryStore, change: dict[str, str]
) -> None:
    store.save("Auth flow", "We use JWT.", project="p")

    assert store.save("Auth flow", "We use JWT.", **{"project": "p", **change}).status == "created"


def test_a_deleted_observation_is_not_a_duplicate_target(store: MemoryStore) -> None:
    store.delete(store.save("Auth flow", "We use JWT.").observation.id)

    assert store.save("Auth flow", "We use JWT.").status == "created"


def test_a_duplicate_bump_does_not_touch_the_search_index(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    file_store.save("Auth flow", "We use JWT.")
    before = raw.execute("SELECT count(*) FROM observations_fts_data").fetchone()[0]

    file_store.save("Auth flow", "We use JWT.")

    assert raw.execute("SELECT count(*) FROM observations_fts_data").fetchone()[0] == before


# --- topic_key upserts ----------------------------------------------------------------------


def test_a_topic_key_updates_in_place_and_bumps_revision_count(
    store: MemoryStore, clock: FakeClock
) -> None:
    first = store.save("Auth v1", "sessions", topic_key="Architecture/Auth", project="p")
    clock.advance(days=3)
    second = store.save(
        "Auth v2", "jwt", type="decision", topic_key="architecture/auth", project="p"
    )

    assert second.status == "updated"
    assert second.observation.id == first.observation.id
    assert second.observation.revision_count == 2
    assert (second.observation.title, second.observation.type) == ("Auth v2", "decision")
    assert store.count_observations() == 1
    assert store.search("sessions").total == 0
    assert store.search("jwt").total == 1


def test_a_topic_key_update_keeps_the_replaced_text_as_a_revision(
    store: MemoryStore, clock: FakeClock
) -> None:
    long_text = "Sessions in cookies 🍪, 会话 " * 400
    first = store.save("Auth 🔐 v1", long_text, topic_key="arch/auth", project="p").observation
    clock.advance(hours=1)

    second = store.save("Auth v2", "JWT 🪪", type="decision", topic_key="arch/auth", project="p")

    assert (second.status, second.replaced_revision) == ("updated", 1)
    old = store.get_revision(first.id, 1)
    assert (old.title, old.content, old.type, old.topic_key) == (
        "Auth 🔐 v1",
        long_text.strip(),
        "manual",
        "arch/auth",
    )
    assert (old.saved_at, old.replaced_at, old.current) == (
        "2026-11-22 12:00:00",
        "2026-11-22 13:00:00",
        2,
    )
    assert store.get(first.id).kept_revisions == (1,)
    current = store.get_revision(first.id, 2)
    assert (current.title, current.content, current.replaced_at) == ("Auth v2", "JWT 🪪", "")


def test_the_same_text_under_its_topic_key_is_a_duplicate_not_a_revision(
    store: MemoryStore, clock: FakeClock
) -> None:
    first = store.save("Auth", "JWT", topic_key="arch/auth").observation
    clock.advance(days=2)  # past the 15-minute window: the topic_key still finds it

    again = store.save("Auth", "JWT", topic_key="arch/auth")

    assert again.status == "duplicate"
    assert again.observation.id == first.id
    assert (again.observation.revision_count, again.observation.duplicate_count) == (1, 2)
    assert store.get(first.id).kept_revisions == ()


def test_every_update_keeps_the_text_it_replaced(store: MemoryStore) -> None:
    saved = store.save("Title ✨", "version one", topic_key="t").observation
    store.update(saved.id, content="version two")
    store.save("Renamed", "version three", topic_key="t")
    store.update(saved.id, type="bugfix", topic_key="")

    texts = [store.get_revision(saved.id, n) for n in (1, 2, 3, 4)]
    assert [(r.title, r.content, r.type, r.topic_key) for r in texts] == [
        ("Title ✨", "version one", "manual", "t"),
        ("Title ✨", "version two", "manual", "t"),
        ("Renamed", "version three", "manual", "t"),
        ("Renamed", "version three", "bugfix", None),
    ]
    assert store.get(saved.id).kept_revisions == (1, 2, 3)


def test_a_revision_not_kept_is_refused_naming_those_there_are(store: MemoryStore) -> None:
    saved = store.save("a", "b", topic_key="k").observation
    store.save("a", "c", topic_key="k")

    with pytest.raises(RevisionNotFound) as refused:
        store.get_revision(saved.id, 7)

    assert "has no revision 7 kept. Its current text is revision 2; earlier revisions kept: 1." in (
        str(refused.value)
    )
    with pytest.raises(InvalidMemoryInput, match="revision must be 1 or more"):
        store.get_revision(saved.id, 0)


def test_a_hard_delete_removes_the_revisions_too_and_a_soft_one_keeps_them(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    kept = file_store.save("a", "one", topic_key="k").observation
    file_store.save("a", "two", topic_key="k")
    gone = file_store.save("b", "one", topic_key="j").observation
    file_store.save("b", "two", topic_key="j")

    file_store.delete(kept.id)
    file_store.delete(gone.id, hard=True)

    rows = raw.execute("SELECT observation_id, revision FROM observation_revisions").fetchall()
    assert rows == [(kept.id, 1)]


def test_an_update_that_would_replace_a_kept_revision_fails_whole(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    saved = file_store.save("a", "kept 🔒", topic_key="k").observation
    raw.execute(  # a revision 1 already kept (a database from elsewhere, edited by hand)
        "INSERT INTO observation_revisions VALUES (?, 1, 'manual', 'k', 't', 't', 'x', 'old')",
        (saved.id,),
    )

    with pytest.raises(MemoryStoreError):
        file_store.save("a", "new", topic_key="k")

    assert file_store.get(saved.id).content == "kept 🔒"
    assert raw.execute("SELECT content FROM observation_revisions").fetchall() == [("old",)]


def test_a_topic_key_in_another_scope_or_project_is_another_memory(store: MemoryStore) -> None:
    store.save("a", "1", topic_key="k", project="p")

    assert store.save("b", "2", topic_key="k", project="p", scope="personal").status == "created"
    assert store.save("c", "3", topic_key="k", project="q").status == "created"


# --- update and delete ----------------------------------------------------------------------


def test_update_changes_only_the_given_fields_and_bumps_revision(store: MemoryStore) -> None:
    original = store.save("Title", "old words", type="note", topic_key="t").observation

    updated = store.update(original.id, content="new <private>x</private> words")

    assert updated.title == "Title"
    assert updated.content == "new [REDACTED] words"
    assert (updated.type, updated.topic_key) == ("note", "t")
    assert updated.revision_count == 2
    assert store.search("old").total == 0
    assert store.search("new").total == 1


def test_update_can_remove_a_topic_key(store: MemoryStore) -> None:
    saved = store.save("a", "b", topic_key="k").observation

    assert store.update(saved.id, topic_key="").topic_key is None


def test_update_needs_a_field_and_a_live_observation(store: MemoryStore) -> None:
    saved = store.save("a", "b").observation
    with pytest.raises(InvalidMemoryInput, match="Nothing to update"):
        store.update(saved.id)
    store.delete(saved.id)
    with pytest.raises(ObservationNotFound, match="was deleted"):
        store.update(saved.id, title="x")
    with pytest.raises(ObservationNotFound, match="does not exist"):
        store.update(999, title="x")


def test_a_soft_delete_hides_the_observation_everywhere(store: MemoryStore) -> None:
    saved = store.save("secret plan", "details").observation

    result = store.delete(saved.id)

    assert (result.id, result.title, result.hard) == (saved.id, "secret plan", False)
    with pytest.raises(ObservationNotFound) as caught:
        store.get(saved.id)
    assert caught.value.deleted
    assert store.count_observations() == 0
    assert store.search("").observations == []
    assert store.context().observations == []
    with pytest.raises(ObservationNotFound, match="was deleted"):
        store.delete(saved.id)


def test_a_hard_delete_removes_the_row_and_purges_soft_deleted_ones(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    live = file_store.save("a", "alpha").observation.id
    soft = file_store.save("b", "beta").observation.id
    file_store.delete(soft)

    file_store.delete(live, hard=True)
    file_store.delete(soft, hard=True)

    assert raw.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
    assert raw.execute("SELECT count(*) FROM observations_fts_docsize").fetchone()[0] == 0
    with pytest.raises(ObservationNotFound, match="does not exist"):
        file_store.delete(live, hard=True)


def test_ids_are_never_reused_after_a_hard_delete(store: MemoryStore) -> None:
    last = store.save("a", "1").observation.id
    store.delete(last, hard=True)

    assert store.save("b", "2").observation.id == last + 1


# --- sessions and prompts -------------------------------------------------------------------


def test_starting_a_session_makes_an_id_and_a_known_id_continues(store: MemoryStore) -> None:
    first = store.start_session(" Atlas ", directory="/src/atlas")
    again = store.start_session("atlas", first.session.id)
    other = store.start_session("atlas")

    assert first.created
    assert not again.created
    assert first.session.project == "atlas"
    assert first.session.directory == "/src/atlas"
    assert again.session == first.session
    assert other.session.id != first.session.id


def test_ids_made_for_the_longest_project_name_are_taken_back(
    store: MemoryStore, clock: FakeClock
) -> None:
    project = "長" * 100 + "x" * (MAX_PROJECT_CHARS - 100)  # the longest a project may be
    started = store.start_session(project).session
    clock.advance(seconds=1)
    daily = store.save("a", "1", project=project).observation.session_id
    twin = store.start_session(project).session  # same second: the id gets a number

    # every id vaultgate made is accepted where a tool takes a session_id
    for made in (started.id, daily, twin.id):
        assert store.start_session(project, made).session.id == made
        assert store.save("b", made, session_id=made).observation.session_id == made
        assert store.end_session(made).id == made


def test_ending_a_session_keeps_its_summary(store: MemoryStore, clock: FakeClock) -> None:
    session = store.start_session("p", "s").session
    clock.advance(hours=1)

    ended = store.end_session(session.id, "Did <private>x</private> things")

    assert ended.ended_at == "2026-11-22 13:00:00"
    assert ended.summary == "Did [REDACTED] things"


def test_ending_an_unknown_session_says_how_to_start_one(store: MemoryStore) -> None:
    with pytest.raises(SessionNotFound, match="mem_session_start"):
        store.end_session("nope")


def test_prompts_are_stored_redacted_in_the_daily_session(store: MemoryStore) -> None:
    prompt = store.save_prompt("Fix <private>the key</private> bug", project="P")

    assert prompt.content == "Fix [REDACTED] bug"
    assert (prompt.project, prompt.session_id) == ("p", "auto/p/2026-11-22")
    assert store.context("p").prompts == [prompt]


# --- reads by id ----------------------------------------------------------------------------


def test_get_many_keeps_the_order_asked_and_lists_what_is_missing(store: MemoryStore) -> None:
    a = store.save("a", "1").observation.id
    b = store.save("b", "2").observation.id
    store.delete(b)

    found, missing = store.get_many([b, 99, a, a])

    assert [obs.id for obs in found] == [a]
    assert missing == [b, 99]


def test_get_many_takes_at_most_ten(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryInput, match="at most 10"):
        store.get_many(list(range(1, 12)))


def test_stats_count_one_project_or_all(store: MemoryStore) -> None:
    store.save("a", "1", project="p", type="decision")
    store.save("b", "2", project="q")
    store.delete(store.save("c", "3", project="p").observation.id)
    store.save_prompt("hello", project="p")

    every = store.stats()
    only_p = store.stats(" P ")

    assert (every.observations, every.deleted_observations, every.prompts) == (2, 1, 1)
    assert every.projects == [("p", 1), ("q", 1)]
    assert (only_p.observations, only_p.deleted_observations, only_p.sessions) == (1, 1, 1)
    assert only_p.types == [("decision", 1)]


# --- <private> in the keys: refused, never stored (issue 36) -----------------------------------

PRIVATE_KEY = "日本 🔑 <private>zebrakey</private> x"


@pytest.mark.parametrize(
    ("name", "write"),
    [
        pytest.param("project", lambda s: s.save("t", "c", project=PRIVATE_KEY), id="save-project"),
        pytest.param(
            "topic_key", lambda s: s.save("t", "c", topic_key=PRIVATE_KEY), id="save-topic_key"
        ),
        pytest.param(
            "session_id", lambda s: s.save("t", "c", session_id=PRIVATE_KEY), id="save-session_id"
        ),
        pytest.param("project", lambda s: s.start_session(PRIVATE_KEY), id="start-project"),
        pytest.param(
            "session_id", lambda s: s.start_session("p", PRIVATE_KEY), id="start-session_id"
        ),
        pytest.param("session_id", lambda s: s.end_session(PRIVATE_KEY, "x"), id="end-session_id"),
        pytest.param(
            "project", lambda s: s.save_prompt("c", project=PRIVATE_KEY), id="prompt-project"
        ),
        pytest.param(
            "session_id",
            lambda s: s.save_prompt("c", session_id=PRIVATE_KEY),
            id="prompt-session_id",
        ),
        pytest.param(
            "topic_key",
            lambda s: s.update(s.save("t", "c").observation.id, topic_key=PRIVATE_KEY),
            id="update-topic_key",
        ),
        pytest.param(
            "session_id",
            lambda s: s.compact(
                CompactRequest(
                    older_than_days=1,
                    ids=(s.save("t", "c").observation.id,),
                    summary_title="sum",
                    session_id=PRIVATE_KEY,
                )
            ),
            id="compact-session_id",
        ),
    ],
)
def test_a_private_tag_in_a_key_is_refused_and_nothing_of_it_is_stored(
    file_store: MemoryStore, raw: sqlite3.Connection, name: str, write: Callable[..., object]
) -> None:
    with pytest.raises(InvalidMemoryInput, match=f"{name} holds a <private> tag") as refused:
        write(file_store)

    assert "zebrakey" not in str(refused.value)  # the message never repeats the value
    assert "zebrakey" not in "\n".join(raw.iterdump())


def test_a_private_span_in_a_sessions_directory_is_stored_redacted(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    started = file_store.start_session("p", "s", "/home/<private>zebrauser</private>/项目 🔑")

    assert started.session.directory == "/home/[REDACTED]/项目 🔑"
    assert "zebrauser" not in "\n".join(raw.iterdump())
