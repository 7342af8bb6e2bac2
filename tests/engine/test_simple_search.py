"""The simple search a plugin version runs, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.simple_search import (
    NoteMatches,
    SimpleSearchOptions,
    js_slice,
    parse_int,
    search_text,
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


def _naive_context(text: str, start: int, end: int, length: int, whole: bool) -> str:
    """The context straight from the definition: UTF-16 units of the whole text, sliced."""
    units = text.encode("utf-16-le", "surrogatepass")
    lo, hi = max(start - length, 0), min(end + length, len(units) // 2)

    def unit(index: int) -> int:
        return int.from_bytes(units[2 * index : 2 * index + 2], "little")

    if whole:
        if lo > 0 and 0xD800 <= unit(lo - 1) <= 0xDBFF:
            lo -= 1
        if hi < len(units) // 2 and 0xDC00 <= unit(hi) <= 0xDFFF:
            hi += 1
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")


@pytest.mark.parametrize("version", ["5.1.0", "5.1.1"])
def test_a_large_note_with_thousands_of_matches_has_every_offset_and_context(
    tmp_path: Path, version: str
) -> None:
    """Each match's offsets and context as JavaScript computes them, in a 1 MB note where
    emoji and CJK sit next to every match (converted once per note, not once per match)."""
    line = "🚀meeting 日本 cadence; "
    content = "# Big\n" + line * 50_000
    (tmp_path / "Big.md").write_text(content, encoding="utf-8")
    options = SimpleSearchOptions.for_version(Behaviour.for_version(version), "MEETING", 1)
    (hit,) = simple_search(Vault(tmp_path), options)
    assert len(content.encode("utf-8")) > 1_000_000
    assert len(hit["matches"]) == 50_000
    for n in (0, 1, 777, 49_999):
        start = 6 + n * len(line) + 1  # just after the rocket
        unit_start = len(content[:start].encode("utf-16-le", "surrogatepass")) // 2
        match = hit["matches"][n]
        assert match["match"] == {"start": unit_start, "end": unit_start + 7, "source": "content"}
        whole = version != "5.1.0"
        assert match["context"] == _naive_context(content, unit_start, unit_start + 7, 1, whole)
    # 5.1.0 cuts the rocket in half; later versions take it whole
    assert hit["matches"][1]["context"].startswith("🚀" if version != "5.1.0" else "\ude80m")


def _page_order(match: dict[str, Any]) -> tuple[bool, int]:
    return (match["match"].get("source", "content") != "content", match["match"]["start"])


_ALPHABET = "aAkK\u212asSßẞıİiσςΣ日本🚀😀 \n\r#%-"
_DENSE = "aAk \n"  # few characters: terms that interleave, in both name and text


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(alphabet=_ALPHABET.replace("\n", "").replace("\r", ""), max_size=8)
    | st.text(alphabet=_DENSE.replace("\n", ""), max_size=8),
    text=st.text(alphabet=_ALPHABET, max_size=80) | st.text(alphabet=_DENSE, max_size=30),
    query=st.text(alphabet=_ALPHABET, min_size=1, max_size=6)
    | st.text(alphabet=_DENSE, min_size=1, max_size=4),
    version=st.sampled_from(["3.2.0", "4.1.7", "5.1.0", "5.1.1"]),
    context_length=st.integers(min_value=0, max_value=6),
)
def test_a_note_s_first_matches_are_the_full_scan_s(
    name: str, text: str, query: str, version: str, context_length: int
) -> None:
    """What a page shows of one note (its first matches in the text, then in the name) and
    the count are those of every match ``simple_search`` builds, whatever the limit."""
    path = f"folder #1/{name}.md"
    options = SimpleSearchOptions.for_version(Behaviour.for_version(version), query, context_length)
    hits = search_text(path, text, options)
    every = sorted(hits[0]["matches"], key=_page_order) if hits else []
    matches = NoteMatches(path, text, options)
    assert matches.count() == len(every)
    for limit in range(len(every) + 2):
        shown = matches.in_content(limit)
        shown += matches.in_filename(limit - len(shown))
        assert shown == every[:limit]
