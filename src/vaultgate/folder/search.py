"""The simple search served from the folder: scored in one cheap pass, matches built per page.

The engine's matcher (``engine/simple_search.py``) builds every match of every note with its
context, which for a broad word is tens of thousands of dicts when a page shows twenty notes.
The order of the results needs only each note's score, and the score only two numbers: how
many matches the terms have (each term's own, non-overlapping, as ``re.finditer`` counts
them) and where the first one starts. Both are found here with ``str.count`` and
``str.find`` on the text folded as the index folds it (``engine/index/fold.py``), which is
many times faster than ``re.IGNORECASE``; each hit's matches are built by the engine's own
matcher, over the same text, when a page first reads them (:class:`LazyMatches`).

Folded text finds exactly what ``re.IGNORECASE`` finds when every character of a term
matches, under ``re.IGNORECASE``, every character that folds as it does: true of all but a
few characters (:func:`unsafe_characters`). A query holding one of those is left to the
engine's matcher, as is any search whose options this pass does not reproduce.

Texts are read past the Vault's cache (which parses each note's metadata on first read) into
a cache of their own, checked against ``(mtime_ns, size)`` as the Vault's is.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import cast, overload

from vaultgate.engine.index.fold import current_fold
from vaultgate.engine.jsjson import js_value
from vaultgate.engine.simple_search import SimpleSearchOptions, simple_search
from vaultgate.engine.vault import Vault
from vaultgate.obsidian.models import SIMPLE_RESULTS, SimpleHit, SimpleMatch

TEXT_CACHE_CHARS = 64_000_000  # about 64 MB of note text (most notes are ASCII)


class NoteTexts:
    """Note texts by vault path, read from disk as the Vault reads them (UTF-8, bad bytes
    replaced) and kept while their ``(mtime_ns, size)`` holds, up to ``limit`` characters
    (the least recently read are dropped first)."""

    def __init__(self, root: Path | str, limit: int = TEXT_CACHE_CHARS) -> None:
        self._root = str(root)
        self._limit = limit
        self._size = 0
        self._texts: dict[str, tuple[tuple[int, int], str]] = {}

    def text(self, path: str) -> str:
        """The note's text now (OSError when it cannot be read)."""
        cached = self._texts.pop(path, None)
        if cached is not None:
            self._size -= len(cached[1])
            st = os.stat(os.path.join(self._root, path))
            if cached[0] != (st.st_mtime_ns, st.st_size):
                cached = None
        if cached is None:
            cached = self._read(path)
        self._keep(path, cached)
        while self._size > self._limit and self._texts:
            oldest = next(iter(self._texts))
            self._size -= len(self._texts.pop(oldest)[1])
        return cached[1]

    def preload(self, paths: Iterable[str], share: float) -> bool:
        """Read the ``paths`` not cached yet while the cache holds less than ``share`` of
        its limit (nothing is dropped for them); whether there is room left."""
        room = self._limit * share
        for path in paths:
            if self._size >= room:
                return False
            if path not in self._texts:
                try:
                    self._keep(path, self._read(path))
                except OSError:
                    continue
        return self._size < room

    def _read(self, path: str) -> tuple[tuple[int, int], str]:
        # os.open and one os.read: a third of what open() costs per file, which is most of a
        # search's time when thousands of notes are read for the first time
        fd = os.open(os.path.join(self._root, path), os.O_RDONLY)
        try:
            st = os.fstat(fd)
            chunks, want = [], st.st_size + 1  # read to the end, should the note have grown
            while chunk := os.read(fd, want):
                chunks.append(chunk)
                want = 1 << 16
        finally:
            os.close(fd)
        return (st.st_mtime_ns, st.st_size), b"".join(chunks).decode("utf-8", "replace")

    def _keep(self, path: str, cached: tuple[tuple[int, int], str]) -> None:
        self._texts[path] = cached  # last: the most recently read
        self._size += len(cached[1])

    def forget(self, path: str) -> None:
        """vaultgate wrote ``path``: a rewrite within the clock's granularity may keep its
        ``(mtime_ns, size)``."""
        cached = self._texts.pop(path, None)
        if cached is not None:
            self._size -= len(cached[1])

    def clear(self) -> None:
        self._texts.clear()
        self._size = 0


class LazyMatches(Sequence[SimpleMatch]):
    """A hit's matches, built by the engine's matcher over ``content`` when first read.

    Small on purpose: a broad search makes one per hit, thousands, and shows twenty."""

    __slots__ = ("_content", "_items", "_options", "_path")

    def __init__(self, path: str, content: str, options: SimpleSearchOptions) -> None:
        self._path, self._content, self._options = path, content, options
        self._items: list[SimpleMatch] | None = None

    def _all(self) -> list[SimpleMatch]:
        if self._items is None:
            self._items = _matches(self._path, self._content, self._options)
        return self._items

    @property
    def built(self) -> bool:
        return self._items is not None

    @overload
    def __getitem__(self, index: int) -> SimpleMatch: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[SimpleMatch]: ...

    def __getitem__(self, index: int | slice) -> SimpleMatch | Sequence[SimpleMatch]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[SimpleMatch]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self._all()) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyMatches({self._all()!r})"


def scored_search(
    vault: Vault,
    texts: NoteTexts,
    options: SimpleSearchOptions,
    paths: Iterable[str] | None = None,
) -> list[SimpleHit] | None:
    """What ``simple_search(vault, options, paths)`` answers, as the client's hits, with each
    hit's matches built when read; None when this pass cannot promise the same answer (the
    caller runs the engine's matcher)."""
    terms = options.query.split()
    if not terms:
        return []
    joined = "".join(terms)
    if not options.filenames or (
        not joined.isascii() and any(char in unsafe_characters() for char in joined)
    ):
        return None  # (no ASCII character is unsafe: a test checks it)
    fold = current_fold()
    folded_terms = [fold(term) for term in terms]
    notes = vault.markdown_files()
    if paths is not None:
        wanted = set(paths)
        notes = [path for path in notes if path in wanted]
    results: list[SimpleHit] = []
    for path in notes:
        try:
            content = texts.text(path)
        except OSError:
            continue  # as the engine leaves out a note it cannot read
        basename = posixpath.splitext(posixpath.basename(path))[0]
        folded_name, folded_content = fold(basename), fold(content)
        # no term holds whitespace, so no match spans the "\n\n" between name and content
        count, first = 0, -1
        for term in folded_terms:
            in_name = folded_name.find(term)
            if in_name >= 0:
                at = _units(basename, in_name)
            else:
                in_content = folded_content.find(term)
                if in_content < 0:
                    break
                at = _units(basename) + 2 + _units(content, in_content)
            count += folded_name.count(term) + folded_content.count(term)
            first = at if first < 0 else min(first, at)
        else:
            score = count + 1.0 / (1 + first)
            matches = LazyMatches(path, content, options)
            results.append(
                cast(SimpleHit, {"filename": path, "score": float(score), "matches": matches})
            )
    results.sort(key=_score, reverse=options.descending)
    return results


def _score(hit: SimpleHit) -> float:
    return hit.get("score", 0.0)


def engine_search(
    vault: Vault, options: SimpleSearchOptions, paths: Iterable[str] | None = None
) -> list[SimpleHit]:
    """The engine's matcher, as the client's hits (every match built)."""
    return SIMPLE_RESULTS.validate_python(js_value(simple_search(vault, options, paths)))


def _matches(path: str, content: str, options: SimpleSearchOptions) -> list[SimpleMatch]:
    """The engine's matches of one note, over the text its score was counted in: spans of
    ints and contexts of text, already the client's shape (no float for ``js_value`` to
    print, nothing for validation to change), so neither runs on thousands of matches."""
    hits = simple_search(cast(Vault, _OneNote(path, content)), options)
    return cast(list[SimpleMatch], hits[0]["matches"]) if hits else []


class _OneNote:
    """What ``simple_search`` asks of a Vault, for one note and one text."""

    def __init__(self, path: str, text: str) -> None:
        self._path, self._text = path, text

    def markdown_files(self) -> list[str]:
        return [self._path]

    def read_text(self, path: str) -> str:
        return self._text


def _units(text: str, end: int | None = None) -> int:
    """UTF-16 code units in ``text[:end]``, as JavaScript counts offsets."""
    head = text if end is None else text[:end]
    return len(head) if head.isascii() else len(head.encode("utf-16-le", "surrogatepass")) // 2


@functools.cache
def unsafe_characters() -> frozenset[str]:
    """The characters whose ``re.IGNORECASE`` pattern does not match every character that
    folds as they do (so folded text would count a match the engine does not find)."""
    classes: dict[int, set[int]] = {}
    for code, folded in current_fold().table.items():
        classes.setdefault(folded, {folded}).add(code)
    unsafe: set[str] = set()
    for members in classes.values():
        chars = [chr(code) for code in members]
        for char in chars:
            pattern = re.compile(re.escape(char), re.IGNORECASE)
            if not all(pattern.fullmatch(other) for other in chars):
                unsafe.add(char)
    return frozenset(unsafe)
