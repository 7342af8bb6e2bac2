"""The simple search served from the folder: scored in one cheap pass, matches built per page.

The engine's matcher (``engine/simple_search.py``) builds every match of every note with its
context, which for a broad word is tens of thousands of dicts when a page shows twenty notes.
The order of the results needs only each note's score, and the score only two numbers: how
many matches the terms have (each term's own, non-overlapping, as ``re.finditer`` counts
them) and where the first one starts. Both are found here with ``str.count`` and
``str.find`` on the text folded as the index folds it (``engine/index/fold.py``), which is
many times faster than ``re.IGNORECASE``; each hit's matches are built by the engine's own
matcher when a page first reads them (:class:`LazyMatches`).

With the vault index, that folded text is the index's own, kept in memory
(:class:`SearchedTexts`, which the index updates as it stores notes, and which start-up fills
from the index file): a candidate whose file still has the ``(mtime_ns, size)`` its text was
read at is scored without opening it, which is most of what a broad search costs otherwise
(opening and reading thousands of files). A note changed since is read from disk. A hit
scored on the index's text reads its note when a page first shows its matches, so they come
from the note as it is then.

Folded text finds exactly what ``re.IGNORECASE`` finds when every character of a term
matches, under ``re.IGNORECASE``, every character that folds as it does: true of all but a
few characters (:func:`unsafe_characters`). A query holding one of those is left to the
engine's matcher, as is any search whose options this pass does not reproduce.

Texts read from disk go past the Vault's cache (which parses each note's metadata on first
read) into a cache of their own, checked against ``(mtime_ns, size)`` as the Vault's is.
"""

from __future__ import annotations

import functools
import gc
import operator
import os
import posixpath
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, cast, overload

from vaultgate.engine.index import IndexedText
from vaultgate.engine.index.fold import Fold, current_fold
from vaultgate.engine.jsjson import js_value
from vaultgate.engine.simple_search import (
    NoteMatches,
    SimpleSearchOptions,
    search_text,
    simple_search,
    utf16_offset,
)
from vaultgate.engine.vault import Vault
from vaultgate.engine.walk import Stat
from vaultgate.obsidian.models import SIMPLE_RESULTS, SimpleHit, SimpleMatch

TEXT_CACHE_CHARS = 64_000_000  # about 64 MB of note text (most notes are ASCII)
# the index's texts kept in memory: an 80,000-note vault's are 138 M characters (20,000 notes':
# 38 M). Below the vault's size, every broad search fetches the rest from the index file and
# evicts as much
SEARCHED_CACHE_CHARS = 160_000_000


class TextsByPath(Protocol):
    """The index's texts a search may count in (:class:`SearchedTexts`, or a dict of some)."""

    def get(self, path: str, /) -> IndexedText | None: ...


class NoteTexts:
    """Note texts by vault path, read from disk as the Vault reads them (UTF-8, bad bytes
    replaced) and kept while their ``(mtime_ns, size)`` holds, up to ``limit`` characters
    (the least recently read are dropped first)."""

    def __init__(self, root: Path | str, limit: int = TEXT_CACHE_CHARS) -> None:
        self._root = str(root)
        self._limit = limit
        self._size = 0
        # oldest first; OrderedDict pops its first item in O(1), where ``next(iter(dict))``
        # rescans every slot emptied since the dict was last resized
        self._texts: OrderedDict[str, tuple[Stat, str]] = OrderedDict()

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
            self._size -= len(self._texts.popitem(last=False)[1][1])
        return cached[1]

    def _read(self, path: str) -> tuple[Stat, str]:
        return read_text(self._root, path)

    def _keep(self, path: str, cached: tuple[Stat, str]) -> None:
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


class SearchedTexts:
    """The index's searched texts, in memory: a copy the index keeps current (it is the
    index's ``TextMirror``), filled as notes are indexed and, at start, from the index file,
    up to ``limit`` characters (the oldest stored are dropped first). Thread-safe."""

    def __init__(self, limit: int = SEARCHED_CACHE_CHARS) -> None:
        self._limit = limit
        self._size = 0
        # oldest stored first (see NoteTexts: evicting from a dict's front is O(n) a time)
        self._texts: OrderedDict[str, IndexedText] = OrderedDict()
        self._lock = threading.Lock()

    def stored(self, texts: Sequence[IndexedText]) -> None:
        """The index stored these texts (the newest of their notes)."""
        self._keep(texts, replace=True)

    def fill(self, texts: Sequence[IndexedText]) -> None:
        """Texts read from the index file: kept where no text of the note is held (one the
        index stored meanwhile is newer)."""
        self._keep(texts, replace=False)

    def dropped(self, paths: Sequence[str]) -> None:
        with self._lock:
            for path in paths:
                self._drop(path)

    def full(self) -> bool:
        return self._size >= self._limit

    def __len__(self) -> int:
        """How many notes' texts are held."""
        return len(self._texts)

    def missing(self, paths: Iterable[str]) -> list[str]:
        """Those of ``paths`` whose text is not held."""
        with self._lock:
            texts = self._texts
            return [path for path in paths if path not in texts]

    def found(self, paths: Iterable[str]) -> dict[str, IndexedText]:
        """The texts held of ``paths``."""
        with self._lock:
            texts = self._texts
            return {path: text for path in paths if (text := texts.get(path)) is not None}

    def get(self, path: str) -> IndexedText | None:
        """The text held of ``path``, if any. Without the lock: one read of the dict is
        atomic under the GIL, as each of the writers' changes is, and a search asks this of
        thousands of notes (a note between a writer's drop and its store is read from disk)."""
        return self._texts.get(path)

    def _keep(self, texts: Sequence[IndexedText], *, replace: bool) -> None:
        with self._lock:
            for text in texts:
                if not replace and text.path in self._texts:
                    continue
                self._drop(text.path)
                self._texts[text.path] = text
                self._size += len(text.searched)
            while self._size > self._limit and self._texts:
                self._size -= len(self._texts.popitem(last=False)[1].searched)

    def _drop(self, path: str) -> None:
        old = self._texts.pop(path, None)
        if old is not None:
            self._size -= len(old.searched)


def read_text(root: str, path: str) -> tuple[Stat, str]:
    """A note's ``(mtime_ns, size)`` and text, as the Vault reads it (UTF-8, bad bytes
    replaced); OSError when it cannot be read."""
    # os.open and one os.read: a third of what open() costs per file
    fd = os.open(os.path.join(root, path), os.O_RDONLY)
    try:
        st = os.fstat(fd)
        chunks, want = [], st.st_size + 1  # read to the end, should the note have grown
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            want = 1 << 16
    finally:
        os.close(fd)
    return (st.st_mtime_ns, st.st_size), b"".join(chunks).decode("utf-8", "replace")


class LazyMatches(Sequence[SimpleMatch]):
    """A hit's matches, built by the engine's matcher when first read, or only those a page
    shows (:meth:`page`): over ``content``, the text the hit was scored on, or, when the hit
    was scored on the index's text, over the note read from ``root`` then (no matches if it
    can no longer be read). ``count``: the matches the score counted, in ``content``, or in
    the note while it has ``stat``; a page's count needs no new pass over a long note then.

    Small on purpose: a broad search makes one per hit, thousands, and shows twenty."""

    __slots__ = ("_content", "_count", "_items", "_options", "_page", "_path", "_root", "_stat")

    def __init__(
        self,
        path: str,
        options: SimpleSearchOptions,
        root: str,
        content: str | None = None,
        stat: Stat | None = None,
        count: int | None = None,
    ) -> None:
        self._path, self._options, self._root = path, options, root
        self._content, self._stat, self._count = content, stat, count
        self._items: list[SimpleMatch] | None = None
        self._page: tuple[int, list[SimpleMatch], int] | None = None  # limit, shown, count

    def page(self, limit: int) -> tuple[Sequence[SimpleMatch], int]:
        """The first ``limit`` matches as a page shows them (in the text by start, then in
        the file name), and how many there are: only those are built."""
        if self._page is None or self._page[0] != limit:
            matches = NoteMatches(self._path, self._text(), self._options)
            shown = matches.in_content(limit)
            shown += matches.in_filename(limit - len(shown))
            count = matches.count() if self._count is None else self._count
            self._page = (limit, cast(list[SimpleMatch], shown), count)
        return self._page[1], self._page[2]

    def _text(self) -> str:
        """The text the matches are built over (read once, when first needed)."""
        if self._content is None:
            try:
                stat, self._content = read_text(self._root, self._path)
            except OSError:
                stat, self._content = None, ""  # gone since: nothing of it to show
            if stat is None or stat != self._stat:
                self._count = None  # not the text the score counted in
        return self._content

    def _all(self) -> list[SimpleMatch]:
        if self._items is None:
            self._items = _matches(self._path, self._text(), self._options)
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
    indexed: TextsByPath | None = None,
    *,
    watched: bool = False,
) -> list[SimpleHit] | None:
    """What ``simple_search(vault, options, paths)`` answers, as the client's hits, with each
    hit's matches built when read; None when this pass cannot promise the same answer (the
    caller runs the engine's matcher). ``indexed``: the index's texts of some of the notes,
    used while their files keep the stat those were read at; the others are read.
    ``watched``: a watcher keeps the index current (``folder/indexing.py``), so its stats
    are the disk's within the watcher's delay and the files are not stat'ed (a stat per
    note was a third of a broad search on 80,000 notes)."""
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
    if paths is None:
        notes = vault.markdown_files()
    else:  # the vault's files in order, narrowed first by a filter with no bytecode a file
        wanted = paths if isinstance(paths, set | frozenset) else set(paths)
        notes = [path for path in filter(wanted.__contains__, vault.files) if path.endswith(".md")]
    if indexed is None or any("\x00" in term for term in folded_terms):
        indexed = {}  # (the index stores a NUL as a space, records.py: read the notes)
    root = str(vault.vault)
    base = os.path.join(root, "")
    single = folded_terms[0] if len(folded_terms) == 1 else None
    get = indexed.get
    results: list[SimpleHit] = []
    content: str | None
    stat: Stat | None
    for path in notes:
        known = get(path)
        if known is not None and watched:  # most notes of most searches
            searched, content, stat = known.searched, None, known.stat
        else:
            read = _text_to_search(path, known, texts, base, fold)
            if read is None:
                continue  # as the engine leaves out a note it cannot read
            searched, content, stat = read
        # no term holds whitespace, so no match spans the "\n\n" between name and content
        if single is not None:  # most queries: one pass to count, a short one to place
            count = searched.count(single)
            if not count:
                continue
            first = searched.find(single)
        else:
            tally = _tally(searched, folded_terms)
            if tally is None:
                continue
            count, first = tally
        # the fold keeps every character's UTF-16 length: the offset is the original's
        # (isascii is a flag of the string: no pass over it)
        offset = first if searched.isascii() else utf16_offset(searched, first)
        hit = {
            "filename": path,
            "score": count + 1.0 / (1 + offset),
            "matches": LazyMatches(path, options, root, content, stat, count),
        }
        results.append(hit)  # type: ignore[arg-type]  # (a SimpleHit: no cast call a hit)
    results.sort(key=_score, reverse=options.descending)
    return results


_score = operator.itemgetter("score")  # every hit built here has one


def _text_to_search(
    path: str, known: IndexedText | None, texts: NoteTexts, base: str, fold: Fold
) -> tuple[str, str | None, Stat | None] | None:
    """The folded text to count in, the note's content when read from disk (None: the
    index's text, while the file keeps its stat) and that stat; None when unreadable."""
    if known is not None:
        try:
            st = os.stat(base + path)
        except OSError:
            pass  # the disk read says what became of it
        else:
            if (st.st_mtime_ns, st.st_size) == known.stat:
                return known.searched, None, known.stat
    try:
        content = texts.text(path)
    except OSError:
        return None
    basename = posixpath.splitext(posixpath.basename(path))[0]
    return fold(f"{basename}\n\n{content}"), content, None


def _tally(searched: str, terms: Sequence[str]) -> tuple[int, int] | None:
    """How many matches ``terms`` have in ``searched`` (each term's own) and where the first
    starts; None unless every term is there."""
    count, first = 0, len(searched)
    for term in terms:
        at = searched.find(term)
        if at < 0:
            return None
        count += searched.count(term)
        first = min(first, at)
    return count, first


@contextmanager
def collector_paused() -> Iterator[None]:
    """The garbage collector paused while a search makes its hits: tens of thousands of
    objects for a broad word, all alive at the end, which would set off a hundred
    collections that free nothing (15-20 ms of a broad search on 80,000 notes). Another
    thread pausing it meanwhile is left to resume it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def engine_search(
    vault: Vault, options: SimpleSearchOptions, paths: Iterable[str] | None = None
) -> list[SimpleHit]:
    """The engine's matcher, as the client's hits (every match built)."""
    return SIMPLE_RESULTS.validate_python(js_value(simple_search(vault, options, paths)))


def _matches(path: str, content: str, options: SimpleSearchOptions) -> list[SimpleMatch]:
    """The engine's matches of one note, over the text its score was counted in: spans of
    ints and contexts of text, already the client's shape (no float for ``js_value`` to
    print, nothing for validation to change), so neither runs on thousands of matches."""
    hits = search_text(path, content, options)
    return cast(list[SimpleMatch], hits[0]["matches"]) if hits else []


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
