"""The FTS5 query a simple search's terms become."""

from __future__ import annotations

import pytest

from vaultgate.engine.index.query import match_expression


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
