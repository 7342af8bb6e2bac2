"""Detail levels (seed 001), navigation hints (seed 000), token budgets (seed 002), as the model
reads them."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultgate.memory import render
from vaultgate.memory.models import (
    ContextData,
    Observation,
    Prompt,
    SearchResult,
    Session,
    SessionActivity,
    StaleObservation,
    StaleReport,
    Timeline,
    TimeWindow,
)
from vaultgate.memory.render import (
    SUMMARY_FOOTER,
    DetailLevel,
    render_context,
    render_search,
    render_time_window,
    render_timeline,
)
from vaultgate.memory.store import MemoryStore
from vaultgate.paging import DEFAULT_RESPONSE_BUDGET, estimate_tokens

LEVELS: list[DetailLevel] = ["summary", "standard", "full"]


def obs(n: int, content: str = "", title: str = "", session: str = "s") -> Observation:
    return Observation(
        id=n,
        session_id=session,
        type="decision",
        project="vaultgate",
        scope="project",
        topic_key=None,
        revision_count=1,
        duplicate_count=1,
        created_at=f"2026-11-22 10:{n % 60:02d}:00",
        updated_at="2026-11-22 10:00:00",
        title=title or f"Observation number {n}",
        content=content or f"Body {n}: " + "words that explain the decision in detail. " * 20,
    )


def found(observations: list[Observation], total: int | None = None) -> SearchResult:
    return SearchResult(
        observations=observations,
        total=len(observations) if total is None else total,
        mode="all",
        terms=("decision",),
        ignored_terms=0,
        ranked_window=None,
        other_projects=None,
    )


def search_text(result: SearchResult, level: DetailLevel = "standard", tokens: int = 2000) -> str:
    return render_search(
        result, query="decision", filters="", detail_level=level, max_tokens=tokens
    )


SESSION = Session("s", "vaultgate", "/src", "2026-11-22 09:00:00", None, "S" * 400)


def context(observations: list[Observation], total: int | None = None) -> ContextData:
    return ContextData(
        sessions=[SessionActivity(SESSION, len(observations))],
        prompts=[Prompt(1, "s", "vaultgate", "2026-11-22 09:01:00", "P" * 400)],
        observations=observations,
        total_observations=len(observations) if total is None else total,
    )


def timeline(before: int, after: int, total: int | None = None, size: int = 900) -> Timeline:
    items = [obs(n, content="c" * size) for n in range(1, before + after + 2)]
    return Timeline(
        focus=items[before],
        before=items[:before],
        after=items[before + 1 :],
        total_in_session=len(items) if total is None else total,
        session=SESSION,
    )


# --- navigation hints, exactly as seed 000 ----------------------------------------------------


def test_search_hint_is_seed_000_fr_003_and_only_when_capped() -> None:
    capped = search_text(found([obs(1), obs(2)], total=7), "summary")
    complete = search_text(found([obs(1), obs(2)]), "summary")

    assert capped.splitlines()[-2] == (
        "Showing 2 of 7 results. Use limit or mem_get_observation #ID for more."
    )
    assert "Showing" not in complete


def test_context_hint_is_seed_000_fr_004_and_only_when_capped() -> None:
    capped = render_context(context([obs(1)], total=40), filters="", detail_level="standard")
    complete = render_context(context([obs(1)]), filters="", detail_level="standard")

    assert capped.splitlines()[-1] == (
        "Showing 1 of 40 observations. Increase limit or use mem_get_observation #ID for details."
    )
    assert "Showing" not in complete


def test_timeline_hint_is_seed_000_fr_005_and_only_when_the_window_is_smaller() -> None:
    capped = render_timeline(timeline(1, 1, total=12), detail_level="summary", max_tokens=2000)
    complete = render_timeline(timeline(1, 1), detail_level="summary", max_tokens=2000)

    assert "Showing 3 of 12 observations in session." in capped.splitlines()
    assert "Showing" not in complete


def test_hints_count_the_rows_actually_shown_when_the_budget_cuts() -> None:
    text = search_text(found([obs(n, content="x" * 3000) for n in range(1, 11)], total=50), "full")

    shown = text.count("\n[")
    assert f"Showing {shown} of 50 results." in text
    assert shown < 10


# --- detail levels, seed 001 -----------------------------------------------------------------


def test_search_summary_has_ids_types_and_titles_and_no_content() -> None:
    text = search_text(found([obs(7)]), "summary")

    assert "[1] #7 [decision] Observation number 7" in text.splitlines()
    assert "Body 7" not in text
    assert (
        text.splitlines()[-1]
        == SUMMARY_FOOTER
        == "Use detail_level: standard or full for more detail"
    )


def test_search_standard_snippets_are_300_characters_and_full_is_whole() -> None:
    item = obs(7)
    standard = search_text(found([item]), "standard")
    full = search_text(found([item]), "full", tokens=100_000)

    snippet = standard.splitlines()[2].strip()
    assert snippet == " ".join(item.content.split())[:300].rstrip() + "..."
    assert item.content in full
    assert SUMMARY_FOOTER not in standard + full


def test_context_levels_follow_seed_001() -> None:
    data = context([obs(3)])
    summary = render_context(data, filters="", detail_level="summary")
    standard = render_context(data, filters="", detail_level="standard")
    full = render_context(data, filters="", detail_level="full")

    assert "- vaultgate (2026-11-22 09:00:00)" in summary.splitlines()
    assert "- #3 [decision] Observation number 3" in summary.splitlines()
    assert "P" * 10 not in summary
    assert "Body 3" not in summary
    assert "S" * 10 not in summary
    assert summary.endswith(SUMMARY_FOOTER)
    assert "S" * 200 + "..." in standard
    assert "S" * 201 not in standard
    assert "P" * 200 + "..." in standard
    assert "P" * 201 not in standard
    assert " ".join(obs(3).content.split())[:300].rstrip() + "..." in standard
    assert "S" * 400 in full
    assert "P" * 400 in full
    assert obs(3).content in full


def test_timeline_levels_follow_seed_001() -> None:
    data = timeline(1, 1, size=500)
    summary = render_timeline(data, detail_level="summary", max_tokens=100_000)
    standard = render_timeline(data, detail_level="standard", max_tokens=100_000)
    full = render_timeline(data, detail_level="full", max_tokens=100_000)

    assert summary.splitlines()[1:4] == [
        "#1 [decision] Observation number 1 | 2026-11-22 10:01:00",
        ">>> #2 [decision] Observation number 2 | 2026-11-22 10:02:00 <<<",
        "#3 [decision] Observation number 3 | 2026-11-22 10:03:00",
    ]
    assert "c" * 10 not in summary
    assert summary.endswith(SUMMARY_FOOTER)
    assert standard.count("c" * 200 + "...") == 2  # neighbours
    assert "c" * 500 in standard  # the focus, whole
    assert full.count("c" * 500) == 3


@pytest.mark.parametrize(
    "render_one",
    [
        pytest.param(
            lambda level: search_text(found([obs(n) for n in range(1, 8)]), level, 100_000),
            id="mem_search",
        ),
        pytest.param(
            lambda level: render_context(
                context([obs(n) for n in range(1, 8)]), filters="", detail_level=level
            ),
            id="mem_context",
        ),
        pytest.param(
            lambda level: render_timeline(timeline(3, 3), detail_level=level, max_tokens=100_000),
            id="mem_timeline",
        ),
    ],
)
def test_summary_is_at_most_half_of_standard(render_one: object) -> None:
    assert callable(render_one)
    summary, standard = render_one("summary"), render_one("standard")

    assert len(summary) <= 0.5 * len(standard)


def test_summary_is_at_most_half_of_standard_on_stored_data(store: MemoryStore) -> None:
    for n in range(12):
        store.save(f"Decision {n} on caching", f"We chose write-through caching because {n} " * 12)
    result = store.search("caching")

    summary = search_text(result, "summary")
    standard = search_text(result, "standard")

    assert len(summary) <= 0.5 * len(standard)


# --- token budgets, seed 002 -----------------------------------------------------------------


observation_sizes = st.lists(st.integers(min_value=1, max_value=12_000), min_size=0, max_size=15)


@given(sizes=observation_sizes, tokens=st.integers(500, 6000), level=st.sampled_from(LEVELS))
@settings(max_examples=150)
def test_search_stays_within_max_tokens_unless_its_first_result_alone_is_larger(
    sizes: list[int], tokens: int, level: DetailLevel
) -> None:
    items = [obs(n + 1, content="y" * size) for n, size in enumerate(sizes)]

    text = search_text(found(items, total=len(items) + 3), level, tokens)

    shown = [n + 1 for n in range(len(items)) if f"[{n + 1}] #{n + 1} " in text]
    assert shown == list(range(1, len(shown) + 1))
    if items:
        assert shown  # the first result is always there
    if level == "full":
        assert all(items[n - 1].content in text for n in shown)  # each whole, never cut
    if estimate_tokens(text) > tokens:
        assert (level, shown) == ("full", [1])


@given(
    before=st.integers(0, 20),
    after=st.integers(0, 20),
    size=st.integers(1, 30_000),
    tokens=st.integers(500, 6000),
    level=st.sampled_from(LEVELS),
)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_timeline_stays_within_max_tokens_unless_its_whole_focus_alone_is_larger(
    before: int, after: int, size: int, tokens: int, level: DetailLevel
) -> None:
    data = timeline(before, after, size=size)

    text = render_timeline(data, detail_level=level, max_tokens=tokens)

    assert ">>> #" in text  # the focus is always there
    if level != "summary":
        assert data.focus.content in text  # whole, at standard too
    if estimate_tokens(text) > tokens:
        assert text.count(" | 2026-11-22 ") == 1  # the focus alone


@given(sizes=observation_sizes, tokens=st.integers(500, 6000), level=st.sampled_from(LEVELS))
@settings(max_examples=150)
def test_context_never_exceeds_max_tokens_and_names_what_it_left_out(
    sizes: list[int], tokens: int, level: DetailLevel
) -> None:
    items = [obs(n + 1, content="y" * size, title="t" * 400) for n, size in enumerate(sizes)]

    text = render_context(context(items), filters="", detail_level=level, max_tokens=tokens)

    assert estimate_tokens(text) <= tokens
    shown = sum(f"#{n + 1} [decision]" in text for n in range(len(items)))
    if shown < len(items):
        assert f"max_tokens={tokens}" in text
        assert f"Showing {shown} of {len(items)} observations." in text


@given(sizes=observation_sizes.filter(bool), tokens=st.integers(500, 6000))
@settings(max_examples=150)
def test_observations_in_full_are_whole_and_shown_or_named_within_max_tokens(
    sizes: list[int], tokens: int
) -> None:
    items = [obs(n + 1, content="y" * size, title="t" * 400) for n, size in enumerate(sizes)]

    text = render.observations_detail(items, [99], tokens)

    shown = [n + 1 for n in range(len(items)) if f"#{n + 1} [decision]" in text]
    assert shown[:1] == [1]  # the first always
    assert shown == list(range(1, len(shown) + 1))  # a leading run, in the order asked
    assert all(f"\n{items[n - 1].content}\n---\n" in text for n in shown)  # each whole
    if estimate_tokens(text) > tokens:
        assert shown == [1]
    if len(shown) < len(items):
        named = ", ".join(str(n) for n in range(len(shown) + 1, len(items) + 1))
        assert f"mem_get_observations(ids=[{named}])" in text
    assert text.endswith("Not found (unknown or deleted): #99")


def test_one_observation_is_never_cut_however_long() -> None:
    item = obs(7, content="abc 🧭 中文 " * 8_000)

    text = render.observation_detail(item)

    assert text == (
        f"#7 [decision] Observation number 7\n{item.content}\n---\n"
        "session: s | project: vaultgate | scope: project | topic: (none) | revisions: 1 | "
        "duplicates: 1 | created: 2026-11-22 10:07:00 | updated: 2026-11-22 10:00:00"
    )


def test_an_observation_with_kept_revisions_says_how_to_read_them() -> None:
    item = replace(obs(7), revision_count=4, kept_revisions=(2, 3))

    text = render.observation_detail(item)

    assert text.endswith(
        "\nEarlier revisions kept: 2, 3. Read one: mem_get_observation(id=7, revision=3)."
    )


@given(count=st.integers(1, 200), project=st.integers(1, 200))
@settings(max_examples=60)
def test_stale_candidates_fit_the_default_answer_and_list_only_ids_shown(
    count: int, project: int
) -> None:
    stale = [
        StaleObservation(
            n, "decision", "t" * 300, "p" * project, "project", "2025-01-02 03:04:05", ""
        )
        for n in range(1, count + 1)
    ]
    report = StaleReport(stale, total=count + 5, cutoff="2026-10-23 12:00:00")

    text = render.render_stale(report, older_than_days=30, filters="")

    assert len(text) <= DEFAULT_RESPONSE_BUDGET
    rows = [line for line in text.splitlines() if line.split(" | ")[0].isdigit()]
    ids = ",".join(row.split(" | ")[0] for row in rows)
    assert f'compact_ids: "[{ids}]"' in text
    assert f"Showing {len(rows)} of {count + 5} stale observations." in text


def test_a_budget_cut_says_how_many_were_shown_and_how_to_see_more() -> None:
    items = [obs(n, content="z" * 2000) for n in range(1, 11)]

    text = search_text(found(items), "full", 2000)

    last = text.splitlines()[-1]
    assert last.startswith("Token budget: 3 of 10 results fit in max_tokens=2000.")
    assert "mem_get_observation #4" in last
    assert "Showing 3 of 10 results." in text
    assert estimate_tokens(text) <= 2000


def test_entries_are_a_leading_run_in_rank_order() -> None:
    items = [obs(n, content="z" * (300 if n != 3 else 7500)) for n in range(1, 8)]

    text = search_text(found(items), "full", 2000)

    assert "#1 " in text
    assert "#2 " in text
    assert "[3] #3" not in text
    assert "#4 [" not in text


def test_an_oversized_focus_is_whole_and_alone_and_its_neighbours_are_named() -> None:
    data = timeline(2, 2, size=50_000)

    text = render_timeline(data, detail_level="standard", max_tokens=2000)

    assert data.focus.content in text
    assert text.count(" | 2026-11-22 ") == 1
    assert "Token budget: 1 of 5 observations fit in max_tokens=2000." in text


def test_timeline_budget_keeps_the_nearest_neighbours() -> None:
    data = timeline(5, 5, size=1200)

    text = render_timeline(data, detail_level="full", max_tokens=1500)
    shown = [
        int(line.removeprefix(">>> ").split()[0].lstrip("#"))
        for line in text.splitlines()
        if line.startswith(("#", ">>> #"))
    ]

    assert shown == [4, 5, 6, 7]  # the focus, then one before, one after, two before; in order
    assert "Token budget: 4 of 11 observations" in text
    assert "call mem_timeline(observation_id=8)" in text


# --- other texts ----------------------------------------------------------------------------


def test_search_headers_say_how_rows_were_found() -> None:
    any_mode = SearchResult([obs(1)], 1, "any", ("a", "b"), 0, None, None)
    recent = SearchResult([obs(1)], 9, "recent", (), 0, None, None)
    nothing = SearchResult([], 0, "all", ("zz",), 0, None, 4)
    windowed = SearchResult([obs(1)], 9000, "all", ("the",), 3, 2000, None)

    assert "No observation has every word" in search_text(any_mode).splitlines()[0]
    assert render_search(
        recent, query="", filters="project p", detail_level="summary", max_tokens=2000
    ).startswith("Most recent observations in project p (empty query).")
    assert "4 match in other projects" in search_text(nothing)
    windowed_text = search_text(windowed)
    assert "3 more were left out" in windowed_text.splitlines()[0]
    assert windowed_text.splitlines()[1].startswith("Ranked by relevance among the newest 2000")


def test_truncate_cuts_on_characters_and_marks_the_cut() -> None:
    assert render.truncate("ab\n  cd", 10) == "ab cd"
    assert render.truncate("é" * 10, 4) == "éééé..."


# --- timeline around a time (seed 002) -------------------------------------------------------


def window(before: int, after: int, size: int) -> TimeWindow:
    items = [obs(n, content="時 ⏱ " * size) for n in range(1, before + after + 1)]
    return TimeWindow(
        anchor="2026-11-22 10:30:00",
        before=items[:before],
        after=items[before:],
        total_before=before + 4,
        total_after=after,
        project=None,
        session_id=None,
    )


@given(
    before=st.integers(1, 20),
    after=st.integers(0, 20),
    size=st.integers(1, 8_000),
    tokens=st.integers(500, 6000),
    level=st.sampled_from(LEVELS),
)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_a_time_window_keeps_the_nearest_whole_entries_within_max_tokens(
    before: int, after: int, size: int, tokens: int, level: DetailLevel
) -> None:
    data = window(before, after, size)

    answer = json.loads(text := render_time_window(data, detail_level=level, max_tokens=tokens))

    ids = [entry["id"] for entry in answer["entries"]]
    assert ids == sorted(ids)
    assert before in ids  # the nearest, always
    assert ids == list(range(ids[0], ids[-1] + 1))  # a run around the anchor
    if level == "full":
        assert all(e["text"] == data.before[0].content for e in answer["entries"])
    if level == "standard":
        assert all(len(e["text"]) <= 200 for e in answer["entries"])
    assert answer["truncated"] is (len(ids) < before + after)
    assert answer["hasMore"] is True  # four more exist before
    if estimate_tokens(text) > tokens:
        assert ids == [before]
