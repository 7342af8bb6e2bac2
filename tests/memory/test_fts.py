"""The FTS5 query builder: any text becomes a valid expression in which words are only data."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.memory.fts import MAX_TERMS, facet, match_expression, parse_query, quote


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        pytest.param("auth token", ("auth", "token"), id="words"),
        pytest.param("  Auth   AUTH auth ", ("Auth",), id="repeats-case-insensitive"),
        pytest.param('foo"bar', ('foo"bar',), id="inner-quote"),
        pytest.param("POL-358 tier1-test", ("POL-358", "tier1-test"), id="hyphens"),
        pytest.param("- * : ( / @ ? \" '", (), id="only-symbols"),
        pytest.param("über 東京 🎉", ("über", "東京"), id="unicode-emoji-dropped"),
        pytest.param("", (), id="empty"),
        pytest.param("NOT OR AND NEAR", ("NOT", "OR", "AND", "NEAR"), id="operators-as-words"),
    ],
)
def test_words_are_split_on_whitespace_and_kept_as_given(text: str, terms: tuple[str, ...]) -> None:
    assert parse_query(text).terms == terms


def test_words_beyond_the_limit_are_counted_as_ignored() -> None:
    parsed = parse_query(" ".join(f"w{i}" for i in range(MAX_TERMS + 5)))

    assert len(parsed.terms) == MAX_TERMS
    assert parsed.ignored == 5


def test_blank_means_only_whitespace() -> None:
    assert parse_query("  \n").blank
    assert not parse_query("?").blank
    assert not parse_query("?").has_words


@pytest.mark.parametrize(
    ("term", "quoted"),
    [("a", '"a"'), ('foo"bar', '"foo""bar"'), ('""', '""""""'), ("it's", '"it\'s"')],
)
def test_quotes_are_doubled_inside_the_phrase(term: str, quoted: str) -> None:
    assert quote(term) == quoted


def test_the_expression_confines_words_to_title_and_content_and_filters_to_facets() -> None:
    expression = match_expression(("a", "b"), project="vaultgate", scope="project", type="decision")

    assert expression == (
        '{title content} : ("a" AND "b") AND facets : "p7661756c7467617465" '
        'AND facets : "s70726f6a656374" AND facets : "t6465636973696f6e"'
    )
    assert match_expression(("a", "b"), any_term=True) == '{title content} : ("a" OR "b")'


def test_facet_tokens_are_hex_of_utf8() -> None:
    assert facet("p", "") == "p"
    assert facet("p", "é") == "pc3a9"


def test_an_expression_needs_a_word() -> None:
    with pytest.raises(ValueError, match="at least one term"):
        match_expression(())


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(title, content, facets, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    conn.execute(
        "INSERT INTO t VALUES ('foo\"bar and über', 'POL-358 (draft) a*b', ?)",
        (facet("p", "x") + " " + facet("s", "project") + " " + facet("t", "note"),),
    )
    yield conn
    conn.close()


@given(text=st.text(max_size=200))
def test_any_text_builds_an_expression_fts5_accepts(fts: sqlite3.Connection, text: str) -> None:
    parsed = parse_query(text)
    if not parsed.has_words:
        return
    for any_term in (False, True):
        expression = match_expression(parsed.terms, any_term=any_term, project="x", type="note")
        fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expression,)).fetchone()


@pytest.mark.parametrize(
    ("query", "hits"),
    [
        pytest.param('foo"bar', 1, id="quote-inside"),
        pytest.param("POL-358", 1, id="hyphen-is-not-not"),
        pytest.param("uber", 1, id="diacritics-folded"),
        pytest.param("(draft)", 1, id="parenthesis"),
        pytest.param("a*b", 1, id="star-is-not-prefix"),
        pytest.param("title:foo", 0, id="colon-is-not-a-column-filter"),
        pytest.param("p78", 0, id="words-never-match-facets"),
    ],
)
def test_symbols_are_searched_as_text(fts: sqlite3.Connection, query: str, hits: int) -> None:
    expression = match_expression(parse_query(query).terms)
    assert (
        fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expression,)).fetchone()[0] == hits
    )
