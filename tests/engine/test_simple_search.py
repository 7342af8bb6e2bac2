"""The simple search a plugin version runs, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.simple_search import (
    SimpleSearchOptions,
    js_slice,
    parse_int,
    simple_search,
)
from vaultgate.engine.vault import Vault


@pytest.mark.parametrize(
    ("version", "context_length"),
    [("3.4.2", None), ("3.4.3", 100), ("5.1.0", 100)],
)
def test_a_missing_context_length_is_100_from_3_4_3(
    version: str, context_length: int | None
) -> None:
    options = SimpleSearchOptions.for_version(Behaviour.for_version(version), "x", None)
    assert options.context_length == context_length


def test_a_term_in_a_name_is_a_filename_match_from_3_3(vault: Path) -> None:
    options = SimpleSearchOptions.for_version(Behaviour.for_version("5.1.0"), "space", 5)
    (hit,) = simple_search(Vault(vault), options)
    assert hit["filename"] == "Notes/space name.md"
    assert hit["matches"][0] == {
        "match": {"start": 0, "end": 5, "source": "filename"},
        "context": "space name",
    }


def test_js_slice_follows_javascript() -> None:
    assert js_slice("abcdef", 2, -1) == "cde"
    assert js_slice("abcdef", -2, 100) == "ef"
    assert js_slice("abcdef", 4, 2) == ""
    assert js_slice("a😀b", 1, 3) == "😀"


@pytest.mark.parametrize(
    ("text", "value"),
    [("10", 10), (" 7px", 7), ("-3", -3), ("abc", None), ("", None), (None, None)],
)
def test_parse_int_follows_javascript(text: str | None, value: int | None) -> None:
    assert parse_int(text) == value
