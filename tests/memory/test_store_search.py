"""Search and counts: words as data, AND then OR, filters, ranking, and totals that match pages."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultgate.memory import search as search_module
from vaultgate.memory.models import SearchOptions
from vaultgate.memory.store import MemoryStore

SaveFn = Callable[..., int]

ADVERSARIAL = [
    pytest.param('"', id="double-quote"),
    pytest.param("'", id="single-quote"),
    pytest.param("-", id="minus"),
    pytest.param("*", id="star"),
    pytest.param(":", id="colon"),
    pytest.param("(", id="parenthesis"),
    pytest.param("/", id="slash"),
    pytest.param("@", id="at"),
    pytest.param("?", id="question-mark"),
    pytest.param('foo"bar', id="quote-inside-word"),
    pytest.param('"unbalanced', id="unbalanced-quote"),
    pytest.param("it's", id="apostrophe"),
    pytest.param("POL-358", id="hyphenated-id"),
    pytest.param("tier1-test AND unicode", id="boolean-words"),
    pytest.param("NOT secret", id="leading-not"),
    pytest.param("a OR", id="dangling-or"),
    pytest.param("NEAR(a b)", id="near"),
    pytest.param("title:secret", id="column-filter"),
    pytest.param("^start", id="caret"),
    pytest.param("prefix*", id="prefix-star"),
    pytest.param("a+b {c} [d] <e>", id="brackets"),
    pytest.param("user@example.com /path/to/file?x=1", id="email-and-url"),
    pytest.param("über café", id="diacritics"),
    pytest.param("東京 データ", id="cjk"),
    pytest.param("🎉🔥", id="emoji-only"),
    pytest.param("zero\x00byte", id="nul"),
    pytest.param("", id="empty"),
    pytest.param("   \t\n", id="whitespace"),
    pytest.param("token " * 1700, id="10-kb-of-one-word"),
    pytest.param(" ".join(f"w{i}" for i in range(2500)), id="10-kb-of-distinct-words"),
]


@pytest.fixture
def corpus(store: MemoryStore, save: SaveFn) -> MemoryStore:
    save("JWT rotation policy", "Tokens rotate every hour; POL-358 tracks it.", type="decision")
    save("Cache layer", 'The cache key is foo"bar with über-fast lookups.', type="pattern")
    save("Deploy notes", "user@example.com deploys /path/to/file?x=1 on Fridays.")
    save("東京 office", "データ is stored near the users.", project="asia")
    return store


@pytest.mark.parametrize("query", ADVERSARIAL)
def test_any_query_runs_and_its_count_matches_the_page(corpus: MemoryStore, query: str) -> None:
    result = corpus.search(query, SearchOptions(limit=10))

    assert result.total == corpus.count_search_results(query, SearchOptions(limit=10))
    assert len(result.observations) == min(result.total, 10)


@pytest.mark.parametrize(
    ("query", "title"),
    [
        pytest.param('foo"bar', "Cache layer", id="inner-quote"),
        pytest.param("POL-358", "JWT rotation policy", id="hyphen"),
        pytest.param("uber", "Cache layer", id="folded-diacritics"),
        pytest.param("user@example.com", "Deploy notes", id="email"),
        pytest.param("/path/to/file?x=1", "Deploy notes", id="url"),
        pytest.param("データ", "東京 office", id="cjk"),
        pytest.param("NOT tokens", None, id="not-is-a-word"),
    ],
)
def test_symbols_in_queries_match_the_same_symbols_in_text(
    corpus: MemoryStore, query: str, title: str | None
) -> None:
    result = corpus.search(query)
    titles = [obs.title for obs in result.observations]

    if title is None:
        assert result.mode == "any"  # 'NOT' is searched as a word; none has it, so OR applies
        assert titles == ["JWT rotation policy"]
    else:
        assert titles == [title]
        assert result.mode == "all"


def test_a_ten_kilobyte_query_searches_its_first_words_and_says_how_many_were_left(
    corpus: MemoryStore,
) -> None:
    query = "rotate " + " ".join(f"w{i}" for i in range(2500))
    result = corpus.search(query)

    assert len(query) > 10_000
    assert len(result.terms) == 32
    assert result.ignored_terms == 2501 - 32
    assert [obs.title for obs in result.observations] == ["JWT rotation policy"]
    assert result.mode == "any"


@given(query=st.text(max_size=300))
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_text_makes_search_fail(corpus: MemoryStore, query: str) -> None:
    options = SearchOptions(limit=3, project="asia")
    result = corpus.search(query, options)

    assert result.total == corpus.count_search_results(query, options)
    assert len(result.observations) <= 3


# --- AND, then OR ---------------------------------------------------------------------------


@pytest.fixture
def pairs(store: MemoryStore, save: SaveFn) -> MemoryStore:
    save("alpha only", "the first word alone")
    save("beta only", "the second word alone")
    save("alpha and beta", "both words")
    return store


def test_every_word_must_match_first(pairs: MemoryStore) -> None:
    result = pairs.search("alpha beta")

    assert result.mode == "all"
    assert [obs.title for obs in result.observations] == ["alpha and beta"]
    assert result.total == 1


def test_when_no_observation_has_every_word_any_word_matches_and_the_mode_says_so(
    pairs: MemoryStore,
) -> None:
    result = pairs.search("alpha gamma")

    assert result.mode == "any"
    assert {obs.title for obs in result.observations} == {"alpha only", "alpha and beta"}
    assert pairs.count_search_results("alpha gamma") == 2


def test_a_single_unknown_word_finds_nothing_without_falling_back(pairs: MemoryStore) -> None:
    result = pairs.search("gamma")

    assert (result.mode, result.total, result.observations) == ("all", 0, [])


# --- filters, deletes, ranking --------------------------------------------------------------


def test_filters_narrow_results_and_counts_alike(store: MemoryStore, save: SaveFn) -> None:
    save("shared word", "x", project="one", type="decision")
    save("shared word", "y", project="one", scope="personal")
    save("shared word", "z", project="two", type="decision")

    cases = {
        SearchOptions(): 3,
        SearchOptions(project=" ONE "): 2,
        SearchOptions(project="one", scope="personal"): 1,
        SearchOptions(type="decision"): 2,
        SearchOptions(project="two", type="decision"): 1,
        SearchOptions(project="three"): 0,
    }
    for options, expected in cases.items():
        result = store.search("shared", options)
        assert result.total == expected == len(result.observations), options
        assert store.count_search_results("shared", options) == expected, options


def test_a_word_equal_to_a_project_or_type_name_does_not_match_by_it(
    store: MemoryStore, save: SaveFn
) -> None:
    save("unrelated", "text", project="decision", type="decision")

    assert store.search("decision").total == 0


def test_no_hits_in_a_project_reports_hits_elsewhere(store: MemoryStore, save: SaveFn) -> None:
    save("Auth flow", "jwt", project="vaultgate")
    save("Auth flow", "jwt", project="vault-gate")

    result = store.search("jwt", SearchOptions(project="vaultgate-mcp"))

    assert result.total == 0
    assert result.other_projects == 2


def test_soft_deleted_observations_leave_search_and_counts(
    store: MemoryStore, save: SaveFn
) -> None:
    kept = save("keep me", "needle")
    gone = save("remove me", "needle")
    store.delete(gone)

    result = store.search("needle")

    assert [obs.id for obs in result.observations] == [kept]
    assert result.total == store.count_search_results("needle") == 1


def test_a_restored_row_is_searchable_again(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    observation_id = file_store.save("phoenix", "rises").observation.id
    file_store.delete(observation_id)
    assert file_store.search("phoenix").total == 0

    raw.execute("UPDATE observations SET deleted_at = NULL WHERE id = ?", (observation_id,))

    assert [obs.id for obs in file_store.search("phoenix").observations] == [observation_id]


def test_title_matches_rank_above_content_matches(store: MemoryStore, save: SaveFn) -> None:
    in_content = save("Other subject", "mentions kubernetes once among many other words here")
    in_title = save("Kubernetes upgrade", "notes on the upgrade among many other words here")

    ids = [obs.id for obs in store.search("kubernetes").observations]

    assert ids == [in_title, in_content]


def test_more_occurrences_rank_higher(store: MemoryStore, save: SaveFn) -> None:
    once = save("a", "redis appears once in this text of moderate length")
    thrice = save("b", "redis redis redis appears thrice in this text of moderate length")

    assert [obs.id for obs in store.search("redis").observations] == [thrice, once]


def test_very_common_words_rank_the_newest_matches_and_keep_an_exact_total(
    store: MemoryStore, save: SaveFn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "RANK_WINDOW", 5)
    ids = [save(f"note {i}", "common " * (1 + i % 3)) for i in range(12)]

    result = store.search("common", SearchOptions(limit=3))

    assert result.total == 12
    assert result.ranked_window == 5
    assert {obs.id for obs in result.observations} <= set(ids[-5:])
    assert store.search("common", SearchOptions(limit=3, project="none")).ranked_window is None


# --- empty queries and counts ---------------------------------------------------------------


def test_an_empty_query_lists_the_most_recent(store: MemoryStore, save: SaveFn) -> None:
    ids = [save(f"n{i}", "c", project="p" if i % 2 else "q") for i in range(6)]

    result = store.search("", SearchOptions(limit=2, project="p"))

    assert result.mode == "recent"
    assert [obs.id for obs in result.observations] == [ids[5], ids[3]]
    assert result.total == 3 == store.count_search_results("", SearchOptions(project="p"))


def test_count_observations_counts_live_rows_under_the_filters(
    store: MemoryStore, save: SaveFn
) -> None:
    save("a", "1", project="p")
    save("b", "2", project="p", scope="personal")
    save("c", "3", project="q", type="decision")
    store.delete(save("d", "4", project="p"))

    assert store.count_observations() == 3
    assert store.count_observations(" P ") == 2
    assert store.count_observations("p", "personal") == 1
    assert store.count_observations(None, "project") == 2
    assert store.count_observations(type="decision") == 1


def test_count_search_results_agrees_with_a_scan_of_every_row(
    store: MemoryStore, save: SaveFn
) -> None:
    words = ["red", "green", "blue", "cyan"]
    for i in range(40):
        text = " ".join(words[j] for j in range(4) if (i >> j) & 1) or "none"
        save(f"row {i}", text, project="even" if i % 2 == 0 else "odd")

    for query in ("red", "red green", "blue cyan", "cyan magenta"):
        for project in (None, "even"):
            wanted = set(query.split())
            every = [i for i in range(40) if (project is None or i % 2 == 0)]
            texts = {i: {words[j] for j in range(4) if (i >> j) & 1} for i in every}
            expected = sum(1 for t in texts.values() if wanted <= t) or sum(
                1 for t in texts.values() if wanted & t
            )
            options = SearchOptions(project=project)
            assert store.count_search_results(query, options) == expected, (query, project)
