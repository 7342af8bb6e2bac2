"""The FTS5 query a simple search's terms become."""

from __future__ import annotations

import pytest

from vaultgate.engine.index.query import (
    any_word_expression,
    match_expression,
    ranks_by_whole_words,
)


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        pytest.param("Project", '"project"', id="one term, folded"),
        pytest.param("alpha  BETA\tgamma", '"alpha" AND "beta" AND "gamma"', id="every term"),
        pytest.param("a project of", '"project"', id="short terms narrow nothing"),
        pytest.param('say "hi"', '"say" AND """hi"""', id="quotes are data"),
        pytest.param("OR NOT NEAR(", '"not" AND "near("', id="operators are data"),
        pytest.param("ab\x00cde", '"cde"', id="cut at NUL"),
        pytest.param("abc\ud800def", '"abc" AND "def"', id="cut at a lone surrogate"),
        pytest.param("word word", '"word"', id="a repeated term once"),
        pytest.param("\u212aelvin", '"kelvin"', id="KELVIN SIGN"),
    ],
)
def test_terms_become_quoted_phrases_of_the_folded_text(query: str, expression: str) -> None:
    assert match_expression(query) == expression


@pytest.mark.parametrize("query", ["", "   ", "a b", "ab cd", "x\x00y", "😀😀"])
def test_a_query_without_three_characters_to_look_up_cannot_be_narrowed(query: str) -> None:
    assert match_expression(query) is None


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        pytest.param("Compress DATA", '"compress"* OR "data"*', id="each word, folded, as a start"),
        pytest.param("the data of it", '"data"*', id="common and short words left out"),
        pytest.param("c++ x-12", '"c++" OR "x-12"', id="no start of one or two letters"),
        pytest.param("Café naïve_ünï", '"café"* OR "naïve_ünï"*', id="accents kept"),
        pytest.param(
            'o"brien NEAR(kestrel',
            '"o""brien"* OR "near(kestrel"*',
            id="quotes and operators are data",
        ),
    ],
)
def test_ranked_words_become_word_starts_for_the_word_table(query: str, expression: str) -> None:
    assert any_word_expression(query, prefixes=True) == expression


def test_ranked_words_stay_substrings_for_the_trigram_table() -> None:
    assert any_word_expression("Compress 会議メモ") == '"compress" OR "会議メモ"'


@pytest.mark.parametrize(
    ("query", "whole"),
    [
        pytest.param("rose garden 🌹 #plan 100%", True, id="latin, emoji, signs"),
        pytest.param("Привет μήλο", True, id="cyrillic and greek"),
        pytest.param("the 会議 notes", False, id="CJK"),
        pytest.param("カタカナ", False, id="katakana"),
        pytest.param("회의록", False, id="hangul"),
        pytest.param("ภาษาไทย", False, id="thai"),
    ],
)
def test_only_scripts_written_with_spaces_rank_by_whole_words(query: str, whole: bool) -> None:
    assert ranks_by_whole_words(query) is whole
