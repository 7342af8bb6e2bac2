"""A match's context trimmed to whole words and whole grapheme clusters."""

from __future__ import annotations

import pytest

from vaultgate.vault.snippets import trimmed_context, words_within


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def plugin_context(note: str, word: str, length: int) -> tuple[str, int, int]:
    """The context, start and end the plugin (up to 5.1.0) sends for the first ``word``: a
    slice of UTF-16 code units, which may hold half of a surrogate pair."""
    units = note.encode("utf-16-le", "surrogatepass")
    start = utf16(note[: note.index(word)])
    end = start + utf16(word)
    lo, hi = max(start - length, 0), end + length
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass"), start, end


def trim(note: str, word: str, length: int) -> str:
    context, start, end = plugin_context(note, word, length)
    return trimmed_context(context, start=start, end=end, context_length=length)


@pytest.mark.parametrize(
    ("note", "length", "expected"),
    [
        pytest.param(
            "one two three alpha quokka omega four five six",
            10,  # "ree alpha " and " omega fou"
            "alpha quokka omega",
            id="cut words dropped on both sides",
        ),
        pytest.param(
            "alpha quokka omega four five six", 10, "alpha quokka omega", id="note start kept"
        ),
        pytest.param("x yy quokka zz w", 30, "x yy quokka zz w", id="whole note kept"),
        pytest.param(
            "a\r\n\r\nb  quokka\tc\r\nd", 40, "a b quokka c d", id="whitespace runs are one space"
        ),
        pytest.param("abc quokka def", 0, "quokka", id="no context"),
    ],
)
def test_a_context_keeps_whole_words_only(note: str, length: int, expected: str) -> None:
    assert trim(note, "quokka", length) == expected


def test_a_half_emoji_at_either_cut_is_dropped_with_its_word() -> None:
    # 21 units before the match: the cut falls between the halves of an emoji
    note = "intro 🦓🦓 word 🚀x quokka y🚀 word 🦓🦓 outro"
    context, start, end = plugin_context(note, "quokka", 13)
    assert any("\ud800" <= char <= "\udfff" for char in context)  # what the plugin sends

    trimmed = trimmed_context(context, start=start, end=end, context_length=13)

    assert trimmed == "word 🚀x quokka y🚀 word"
    trimmed.encode("utf-8")  # no lone surrogate left


def test_without_whitespace_only_whole_grapheme_clusters_stay() -> None:
    family = "👨‍👩‍👧"  # 8 UTF-16 units, one cluster
    note = "会議" + "🦓" * 40 + "会議quokka日本語" + family * 20 + "メモ"
    context, start, end = plugin_context(note, "quokka", 61)
    assert context[0] == "\udd93"  # the low half of a zebra: the cut split a pair
    assert not context.endswith(family)  # and a family on the right

    trimmed = trimmed_context(context, start=start, end=end, context_length=61)

    assert trimmed.startswith("🦓")
    assert "\udd93" not in trimmed
    assert trimmed.endswith(family)
    assert trimmed in note
    assert "会議quokka日本語" in trimmed


def test_a_combining_accent_is_not_left_without_its_letter() -> None:
    note = "xxxxxxxxe\u0301\u0301quokka"  # NFD: an e and two accents, then the match
    context, start, end = plugin_context(note, "quokka", 2)  # starts at the accents

    assert trimmed_context(context, start=start, end=end, context_length=2) == "quokka"


def test_a_match_in_the_file_name_is_the_name() -> None:
    assert trimmed_context("My  #1 note", start=3, end=5, context_length=5, in_content=False) == (
        "My #1 note"
    )


def test_words_within_cuts_at_a_whole_word_or_cluster() -> None:
    assert words_within("alpha beta gamma", 12) == "alpha beta"
    assert words_within("alpha beta gamma", 11) == "alpha beta"
    assert words_within("alpha beta", 10) == "alpha beta"
    assert words_within("会議👨‍👩‍👧メモ", 4) == "会議"
