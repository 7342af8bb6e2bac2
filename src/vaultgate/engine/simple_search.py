"""``POST /search/simple/``: Obsidian's ``prepareSimpleSearch`` over every markdown note.

Terms are the whitespace-separated words of the query, matched case-insensitively as
substrings; a note matches when every term occurs at least once. Since 3.3.0 the searched
text is ``basename + "\\n\\n" + content`` (as the plugin builds it), so a term may be found
in the file's base name instead (``source: "filename"``, offsets into the base name,
``context`` = the base name).

Offsets count UTF-16 code units, because the plugin is JavaScript: for text without
characters beyond U+FFFF they equal Python string indexes. Up to 5.1.0 the context is
``content.slice(start - contextLength, end + contextLength)`` in those units, so it can
begin or end inside an emoji's surrogate pair; the lone half is sent as a ``\\udXXX``
escape (valid JSON, invalid Unicode), exactly as JSON.stringify writes it. Later versions
cut at whole characters: a bound inside a pair moves outward to take the whole character.

Obsidian does not document its score. Ours is deterministic: the number of matches plus
``1 / (1 + UTF-16 offset of the first match in the searched text)``, so more matches rank
higher and, among equals, an earlier first match does. 4.0+ sorts best first; 3.x
ascending.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.vault import Vault

DEFAULT_CONTEXT_LENGTH = 100
_PARSE_INT = re.compile(r"\s*([+-]?\d+)")


@dataclass(frozen=True, slots=True)
class SimpleSearchOptions:
    query: str
    context_length: int | None  # None: the pre-3.4.3 NaN, which yields empty contexts
    filenames: bool  # 3.3.0+
    descending: bool  # 4.0+
    with_source: bool  # 3.3.0+: match.source exists
    whole_characters: bool = False  # after 5.1.0: no context starts or ends in half an emoji

    @classmethod
    def for_version(
        cls, behaviour: Behaviour, query: str, context_length: int | None
    ) -> SimpleSearchOptions:
        """The search a plugin version runs; ``context_length`` None (missing, or NaN to
        ``parseInt``) is 100 from 3.4.3, and empty contexts before."""
        if context_length is None and behaviour.context_length_default:
            context_length = DEFAULT_CONTEXT_LENGTH
        return cls(
            query=query,
            context_length=context_length,
            filenames=behaviour.filename_search,
            descending=behaviour.search_descending,
            with_source=behaviour.filename_search,
            whole_characters=behaviour.whole_character_contexts,
        )


def parse_int(text: str | None) -> int | None:
    """JavaScript's ``parseInt(text, 10)``; None where it gives NaN."""
    if text is None:
        return None
    match = _PARSE_INT.match(text)
    return int(match.group(1)) if match else None


def simple_search(
    vault: Vault, options: SimpleSearchOptions, paths: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Every markdown note that matches, or only those among ``paths`` (the candidates a
    vault index found): still taken in the vault's order, so the hits and their order are
    the full scan's whenever ``paths`` holds every match. A path the vault does not list as
    a note is skipped."""
    patterns = _patterns(options.query)
    if not patterns:
        return []
    notes = vault.markdown_files()
    if paths is not None:
        wanted = set(paths)
        notes = [path for path in notes if path in wanted]
    results: list[tuple[float, dict[str, Any]]] = []
    for path in notes:
        try:
            content = vault.read_text(path)
        except OSError:
            continue
        basename = posixpath.splitext(posixpath.basename(path))[0]
        prefix = f"{basename}\n\n" if options.filenames else ""
        searched = f"{prefix}{content}" if prefix else content
        spans = _find_all(searched, patterns)
        if spans is None:
            continue
        units = _Utf16(content)  # one note may hold thousands of matches: convert once
        matches = [_match(span, prefix, basename, units, options) for span in spans]
        score = len(spans) + 1.0 / (1 + utf16_offset(searched, spans[0][0]))
        results.append((score, {"filename": path, "score": score, "matches": matches}))
    if options.descending:
        # 4.0+: ``b.score - a.score``, a comparator that answers 0 for a tie: file order kept
        results.sort(key=lambda item: item[0], reverse=True)
    else:
        # 3.x: ``a.score > b.score ? 1 : -1`` never answers 0, so V8's TimSort, which always
        # compares the later item with the earlier, takes the later of two equal scores as
        # the smaller: ascending, ties in reverse file order
        results.reverse()
        results.sort(key=lambda item: item[0])
    return [item for _, item in results]


def search_text(path: str, text: str, options: SimpleSearchOptions) -> list[dict[str, Any]]:
    """``simple_search`` over one note held in memory: its one hit, or none."""
    return simple_search(cast(Vault, _OneNote(path, text)), options)


class _OneNote:
    """What ``simple_search`` asks of a Vault, for one note and one text."""

    def __init__(self, path: str, text: str) -> None:
        self._path, self._text = path, text

    def markdown_files(self) -> list[str]:
        return [self._path]

    def read_text(self, path: str) -> str:
        return self._text


class NoteMatches:
    """One note's matches, as ``simple_search`` gives them, built only as far as asked: a page
    shows a few matches of a note that may hold thousands. The matches in the text (then
    those in the file name) come in the order ``simple_search`` lists them; a note missing a
    term has none."""

    def __init__(self, path: str, content: str, options: SimpleSearchOptions) -> None:
        self._patterns = _patterns(options.query)
        self._basename = posixpath.splitext(posixpath.basename(path))[0]
        self._prefix = f"{self._basename}\n\n" if options.filenames else ""
        self._searched = f"{self._prefix}{content}" if self._prefix else content
        self._content = content
        self._options = options
        self._found = bool(self._patterns) and all(p.search(self._searched) for p in self._patterns)

    def count(self) -> int:
        """How many matches there are (each term's own, as ``re.finditer`` finds them)."""
        if not self._found:
            return 0
        return sum(1 for pattern in self._patterns for _ in pattern.finditer(self._searched))

    def in_content(self, limit: int) -> list[dict[str, Any]]:
        """The first ``limit`` matches in the note's text."""
        # no term holds whitespace, so no match spans the "\n\n" after the name: each
        # term's matches from there on are those of its scan from the start
        spans = self._first_spans(limit, len(self._prefix), len(self._searched))
        units = _Utf16(self._content)
        return [_match(span, self._prefix, self._basename, units, self._options) for span in spans]

    def in_filename(self, limit: int) -> list[dict[str, Any]]:
        """The first ``limit`` matches in the file's base name (none before 3.3.0)."""
        spans = self._first_spans(limit, 0, len(self._prefix))
        units = _Utf16("")
        return [_match(span, self._prefix, self._basename, units, self._options) for span in spans]

    def _first_spans(self, limit: int, start: int, end: int) -> list[tuple[int, int]]:
        if not self._found or limit <= 0 or start >= end:
            return []
        spans: list[tuple[int, int]] = []
        for pattern in self._patterns:
            found = pattern.finditer(self._searched, start, end)
            spans.extend(match.span() for match in itertools.islice(found, limit))
        spans.sort()
        return spans[:limit]


def _patterns(query: str) -> list[re.Pattern[str]]:
    return [re.compile(re.escape(term), re.IGNORECASE) for term in query.split()]


def _find_all(text: str, patterns: list[re.Pattern[str]]) -> list[tuple[int, int]] | None:
    spans: list[tuple[int, int]] = []
    for pattern in patterns:
        found = [m.span() for m in pattern.finditer(text)]
        if not found:
            return None
        spans.extend(found)
    spans.sort()
    return spans


def _match(
    span: tuple[int, int],
    prefix: str,
    basename: str,
    content: _Utf16,
    options: SimpleSearchOptions,
) -> dict[str, Any]:
    start, end = span
    if prefix and start < len(prefix):
        match: dict[str, Any] = {
            "start": utf16_offset(basename, start),
            "end": utf16_offset(basename, min(end, len(basename))),
            "source": "filename",
        }
        return {"match": match, "context": basename}
    start -= len(prefix)
    end -= len(prefix)
    unit_start, unit_end = content.span(start, end)
    match = {"start": unit_start, "end": unit_end}
    if options.with_source:
        match["source"] = "content"
    if options.context_length is None:
        context = ""
    else:
        length = options.context_length
        lo, hi = max(unit_start - length, 0), unit_end + length
        if options.whole_characters:
            lo, hi = content.outside_pairs(lo, hi)
        context = content.slice(lo, hi)
    return {"match": match, "context": context}


class _Utf16:
    """One text addressed in UTF-16 code units, as JavaScript addresses it.

    Encoded once, and converted from string indexes incrementally (matches come in order),
    so a 1 MB note with 16,000 matches costs one pass, not one pass per match.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self.units = b"" if self.ascii else text.encode("utf-16-le", "surrogatepass")
        self.size = len(text) if self.ascii else len(self.units) // 2
        self._index = 0  # a string index, and the code units before it
        self._before = 0

    def position(self, index: int) -> int:
        """The code units before ``text[index]``."""
        if self.ascii:
            return index
        if index < self._index:
            self._index, self._before = 0, 0
        self._before += _units_in(self.text[self._index : index])
        self._index = index
        return self._before

    def span(self, start: int, end: int) -> tuple[int, int]:
        unit_start = self.position(start)
        if self.ascii:
            return start, end
        return unit_start, unit_start + _units_in(self.text[start:end])

    def outside_pairs(self, start: int, end: int) -> tuple[int, int]:
        """Slice bounds (``end`` maybe negative) moved off the middle of a surrogate pair."""
        if self.ascii:
            return start, end
        size, units = self.size, self.units

        def splits_pair(index: int) -> bool:
            if not 0 < index < size:
                return False
            high = int.from_bytes(units[2 * index - 2 : 2 * index], "little")
            return 0xD800 <= high <= 0xDBFF

        if splits_pair(start):
            start -= 1
        absolute_end = size + end if end < 0 else end
        if splits_pair(absolute_end):
            end += 1
        return start, end

    def slice(self, start: int, end: int) -> str:
        """``text.slice(start, end)`` in JavaScript: UTF-16 indexes, negatives from the end."""
        size = self.size
        lo = max(size + start, 0) if start < 0 else min(start, size)
        hi = max(size + end, 0) if end < 0 else min(end, size)
        if hi <= lo:
            return ""
        if self.ascii:
            return self.text[lo:hi]
        return self.units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")


def _units_in(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_offset(text: str, index: int) -> int:
    """The UTF-16 code units before ``text[index]``, as JavaScript counts offsets."""
    head = text[:index]
    return index if head.isascii() else len(head.encode("utf-16-le", "surrogatepass")) // 2


def js_slice(text: str, start: int, end: int) -> str:
    """``text.slice(start, end)`` in JavaScript: UTF-16 indexes, negatives from the end."""
    return _Utf16(text).slice(start, end)
