"""A search match's context, trimmed to whole words and whole characters.

Every backend sends a match with ``contextLength`` UTF-16 code units on each side of it, cut
wherever that count falls: inside a word, between the halves of an emoji's surrogate pair
(the plugin up to 5.1.0 sends the lone half), or inside a grapheme cluster (a ZWJ family, a
flag, a skin tone, a letter and its combining accent). A model reads a cut word as noise and
a lone surrogate cannot even be encoded as UTF-8, so a side that was cut loses its partial
word: up to the first whitespace after the cut on the left, back to the last one on the
right. A side with no whitespace to cut at (CJK text, a long URL) loses its outermost
grapheme cluster instead, which is the only one that may be partial. A side that reached the
note's start or end was not cut and keeps everything. Runs of whitespace become one space:
a snippet is for reading, and a newline costs two characters of JSON.
"""

from __future__ import annotations

import regex

_GRAPHEMES = regex.compile(r"\X")
_WHITESPACE = regex.compile(r"\s+")
_SURROGATES = regex.compile(r"[\ud800-\udfff]")


def trimmed_context(
    context: str,
    *,
    start: int,
    end: int,
    context_length: int,
    in_content: bool = True,
    shown_side: int | None = None,
) -> str:
    """``context`` as a backend sent it for the match at UTF-16 offsets ``start``–``end`` of
    the note, with ``context_length`` units asked for on each side, trimmed to whole words.

    ``in_content`` False: a match in the file's name, whose context is the whole base name.
    ``shown_side``: at most this many characters on each side of the match (a page shortens
    its contexts to keep its number of results within its size), still cut to whole words.
    """
    if not in_content or not context:
        return _tidy(context)
    left = min(start, context_length)  # units before the match: fewer at the note's start
    span = max(end - start, 0)
    before, rest = _split_units(context, left)
    match, after = _split_units(rest, span)
    if before and left == context_length and start > 0:
        before = _after_first_cut(before)
    if _units(after) >= context_length > 0:
        after = _before_last_cut(after)
    if shown_side is not None:
        before, after = _shortened(before, after, shown_side)
    return _tidy(before + match + after)


def _shortened(before: str, after: str, side: int) -> tuple[str, str]:
    """``before`` and ``after`` kept to ``side`` characters each (nearest the match), each
    side that had to be cut losing its partial word."""
    if len(before) > side:
        before = _after_first_cut(before[len(before) - side :]) if side else ""
    if len(after) > side:
        after = _before_last_cut(after[:side]) if side else ""
    return before, after


def words_within(text: str, limit: int) -> str:
    """``text`` cut to whole words (or whole grapheme clusters, where a word is longer)
    within ``limit`` characters; ``text`` itself when it fits."""
    if len(text) <= limit:
        return text
    if text[limit].isspace():
        return _tidy(text[:limit])
    return _tidy(_before_last_cut(text[:limit]))


def _after_first_cut(text: str) -> str:
    """``text`` from its first whole word; without whitespace, without its first cluster."""
    found = _WHITESPACE.search(text)
    if found is not None:
        return text[found.end() :]
    clusters = _GRAPHEMES.findall(text)
    return "".join(clusters[1:])


def _before_last_cut(text: str) -> str:
    """``text`` up to its last whole word; without whitespace, without its last cluster."""
    cut = None
    for found in _WHITESPACE.finditer(text):
        cut = found.start()
    if cut is not None:
        return text[:cut]
    clusters = _GRAPHEMES.findall(text)
    return "".join(clusters[:-1])


def _split_units(text: str, units: int) -> tuple[str, str]:
    """``text`` split after ``units`` UTF-16 code units (an astral character counts two; a
    split inside one keeps it on the left)."""
    if text.isascii():
        return text[:units], text[units:]
    counted = 0
    for index, char in enumerate(text):
        if counted >= units:
            return text[:index], text[index:]
        counted += 2 if ord(char) > 0xFFFF else 1
    return text, ""


def _units(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _tidy(text: str) -> str:
    """One space for each run of whitespace, none at the ends, no lone surrogate (a half
    emoji the trimming kept where a side was not cut, which UTF-8 cannot carry)."""
    return _WHITESPACE.sub(" ", _SURROGATES.sub("", text)).strip()
