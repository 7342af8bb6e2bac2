"""The case fold the index stores text in, so that a trigram match never misses a note that
the simple search's ``re.IGNORECASE`` would find.

SQLite's trigram tokenizer folds case by its own Unicode tables, which differ from Python's:
``re.IGNORECASE`` matches 'k' with KELVIN SIGN (U+212A), 's' with LONG S (U+017F), 'i' with
DOTLESS I (U+0131) and with I WITH DOT ABOVE (U+0130), 'σ' with 'ς', 'µ' with 'μ', and the
other pairs of ``re._casefix``. So the index does not let SQLite fold (``case_sensitive 1``):
it stores ``fold(text)`` and looks up ``fold(term)``, where ``fold`` maps every character to
one representative of the characters ``re.IGNORECASE`` lets it match. A term that matches
the text at some position, character by character, then folds to a substring of the folded
text at that position: the index finds every note the exact matcher finds (and maybe more,
which the exact matcher then drops).

``re`` compares a cased pattern character ``p`` with a text character ``c`` through their
simple lowercase mappings: they match when ``lower(c) == lower(p)`` or ``lower(c)`` is one of
``re._casefix._EXTRA_CASES[lower(p)]``; an uncased ``p`` matches only itself. The fold is
therefore ``lower`` followed by one representative per ``_EXTRA_CASES`` group. Both come
from ``re``'s own internals (``_sre.unicode_tolower``); where a Python lacks them, the same
relation is measured with ``re`` itself, more slowly (a test checks the fold against ``re``
for every cased character). Each character folds to exactly one character of the same UTF-16
length, so offsets and lengths are kept, in code points and in JavaScript's units alike.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

# No character beyond plane 1 has a case mapping (a test checks every code point).
_CASED_LIMIT = 0x20000


@dataclass(frozen=True, slots=True)
class Fold:
    """A character-to-character map (for ``str.translate``) and its fingerprint, which the
    index stores: text folded by another Python's Unicode tables is folded again."""

    table: Mapping[int, int]
    fingerprint: str

    def __call__(self, text: str) -> str:
        # every ASCII character folds to its lowercase (no _EXTRA_CASES group is led by
        # anything but the ASCII letter), and str.lower is many times faster than translate
        return text.lower() if text.isascii() else text.translate(self.table)


@functools.cache
def current_fold() -> Fold:
    """The fold for this Python's ``re``, built once per process (about 10 ms)."""
    groups = _groups_from_internals()
    table = _table(groups) if groups is not None else _table_measured_with_re()
    digest = hashlib.sha256(repr(sorted(table.items())).encode("ascii")).hexdigest()
    return Fold(table, digest[:16])


def fold(text: str) -> str:
    return current_fold()(text)


def _groups_from_internals() -> tuple[Callable[[int], int], Mapping[int, Iterable[int]]] | None:
    try:
        tolower = importlib.import_module("_sre").unicode_tolower
        extra = importlib.import_module("re._casefix")._EXTRA_CASES
    except (ImportError, AttributeError):
        return None
    if not callable(tolower) or not isinstance(extra, Mapping):
        return None
    return tolower, extra


def _table(groups: tuple[Callable[[int], int], Mapping[int, Iterable[int]]]) -> dict[int, int]:
    tolower, extra = groups
    parent: dict[int, int] = {}

    def find(code: int) -> int:
        while (up := parent.get(code, code)) != code:
            code = up
        return code

    for lowered, others in extra.items():
        for other in others:
            a, b = find(lowered), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    # only a character with a lowercase of its own, or in a group, can fold to another
    codes = range(_CASED_LIMIT)
    moved = [
        code for code, lowered in zip(codes, map(tolower, codes), strict=True) if lowered != code
    ]
    table: dict[int, int] = {}
    for code in sorted({*moved, *parent}):
        folded = find(tolower(code))
        if folded != code:
            table[code] = folded
    return table


def _table_measured_with_re() -> dict[int, int]:
    """The same fold, from ``re`` alone: every cased character is matched, with
    ``re.IGNORECASE``, against every other cased character and their case mappings, and
    each class of characters that match one another folds to its smallest member."""
    cased: set[str] = set()
    for code in range(_CASED_LIMIT):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        lower, upper = char.lower(), char.upper()
        if lower != char or upper != char:
            cased.add(char)
            cased.update(m for m in (lower, upper) if len(m) == 1)
    haystack = "".join(sorted(cased))
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        while (up := parent.get(char, char)) != char:
            char = up
        return char

    for char in haystack:
        for other in re.findall(re.escape(char), haystack, re.IGNORECASE):
            a, b = find(char), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    classes: dict[str, list[str]] = {}
    for char in haystack:
        classes.setdefault(find(char), []).append(char)
    table: dict[int, int] = {}
    for members in classes.values():
        # the smallest lowercase member, as lower() then _EXTRA_CASES would pick ('i', not 'I')
        lowercase = [char for char in members if char.lower() == char]
        representative = min(lowercase or members)
        table.update((ord(char), ord(representative)) for char in members if char != representative)
    return table
