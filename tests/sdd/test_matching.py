"""Which changes a description is about: shared words, plurals folded, common words ignored."""

from __future__ import annotations

import pytest

from vaultgate.sdd.matching import match, rank, search_words, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("add-dispatchers", {"dispatcher"}, id="slug-verb-dropped"),
        pytest.param("Fix the cache_policies", {"cache", "policy"}, id="ies-and-underscore"),
        pytest.param("Proposal: Search results", {"search", "result"}, id="stage-word-dropped"),
        pytest.param("status class access", {"status", "class", "access"}, id="no-false-plural"),
        pytest.param("a b c to of", set(), id="only-common"),
        pytest.param("Überprüfung v2", {"überprüfung", "v2"}, id="unicode-and-digits"),
    ],
)
def test_words(text: str, expected: set[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("description", "slug", "titles", "slug_words", "title_words"),
    [
        pytest.param(
            "dispatcher tools", "add-dispatchers", [], ("dispatcher",), (), id="slug-plural"
        ),
        pytest.param(
            "speed up vault search",
            "cache-results",
            ["Proposal: faster search"],
            (),
            ("search",),
            id="title-only",
        ),
        pytest.param(
            "cache search results",
            "cache-search",
            ["Cache search results"],
            ("cache", "search"),
            ("result",),
            id="slug-first-title-rest",
        ),
    ],
)
def test_a_change_matches_on_shared_slug_or_title_words(
    description: str,
    slug: str,
    titles: list[str],
    slug_words: tuple[str, ...],
    title_words: tuple[str, ...],
) -> None:
    found = match(words(description), slug, titles, slug)

    assert found is not None
    assert (found.slug_words, found.title_words) == (slug_words, title_words)


def test_no_shared_word_is_no_match() -> None:
    assert match(words("add a new tool"), "add-dispatchers", ["Proposal: add"], "x") is None


def test_rank_puts_more_shared_words_first_then_slug_words_then_the_given_order() -> None:
    wanted = words("cache search results ranking")
    candidates = [
        ("a-ranking", ["Cache"]),  # 2 shared, 1 from the slug
        ("b-search-cache", []),  # 2 shared, both from the slug
        ("c-cache", []),  # 1 shared
        ("d-results-ranking", []),  # 2 shared, both from the slug, after b
    ]
    found = [m for slug, titles in candidates if (m := match(wanted, slug, titles, slug))]

    assert [m.item for m in rank(found)] == [
        "b-search-cache",
        "d-results-ranking",
        "a-ranking",
        "c-cache",
    ]


@pytest.mark.parametrize(
    ("text", "query"),
    [
        pytest.param("add-dispatchers", "dispatchers", id="keeps-plural-for-fts"),
        pytest.param("fix-it", "fix it", id="only-common-words-kept"),
        pytest.param("cache-cache-search", "cache search", id="distinct"),
    ],
)
def test_search_words_for_memory(text: str, query: str) -> None:
    assert search_words(text) == query
