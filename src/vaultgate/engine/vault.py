"""The vault as Obsidian sees it: the file index, note texts, metadata and links.

The file list (every extension; dot-files and dot-folders such as ``.obsidian`` and
``.trash`` left out) is built at start and by :meth:`Vault.refresh`. Like Obsidian's
``vault.getFiles()``, :meth:`Vault.get_files` builds a new list of every file on each
call, from a file map that holds the folders too: the plugin's handlers pay for that pass on
every request that asks, and so does the engine (see ``listing.py``). Note text is
read from disk on demand and cached by ``(mtime_ns, size)``, so edits made behind the
engine's back are seen; new or deleted files are seen after ``refresh()`` (or after the
writes in ``vaultfs.py`` report them through :meth:`Vault.record_write` /
:meth:`Vault.record_delete`).
Link resolution and backlinks use the index as of the last change to it. The resolved links
of every note (Obsidian's ``metadataCache.resolvedLinks``) are kept; each question about
backlinks walks them again, as the plugin does.
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultgate import markdown
from vaultgate.engine.walk import scan_folder
from vaultgate.locations import OBSIDIAN_LINKS, LinkMap, LinkRules, locate, passes
from vaultgate.paths import is_hidden  # Obsidian's rule: no dot-file is indexed


def js_sort_key(text: str) -> bytes:
    """JavaScript sorts strings by UTF-16 code units; big-endian UTF-16 bytes compare alike."""
    return text.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True, slots=True)
class FileStat:
    ctime: int  # epoch milliseconds
    mtime: int  # epoch milliseconds
    size: int  # bytes


@dataclass(frozen=True, slots=True)
class NoteMeta:
    """What Obsidian's metadata cache knows about one note."""

    frontmatter: dict[str, Any]
    frontmatter_valid: bool
    tags: list[str]  # every tag once, frontmatter and inline (Dataview's file.tags)
    link_targets: list[str]  # as written, anchors and aliases removed
    inline_tags: list[str]  # each inline #tag occurrence, no '#' (engine/tags.py lists them)


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    meta: NoteMeta
    stat: FileStat


@dataclass(slots=True)
class _Cached:
    key: tuple[int, int]
    text: str
    meta: NoteMeta | None = None


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """A file in the index (Obsidian's ``TFile``): its vault path."""

    path: str


@dataclass(frozen=True, slots=True)
class IndexedFolder:
    """A folder in the index (Obsidian's ``TFolder``): its vault path, no trailing slash."""

    path: str


@dataclass(frozen=True, slots=True)
class _Lookups:
    # Obsidian's vault.fileMap: every folder that holds a file, then every file
    file_map: tuple[IndexedFile | IndexedFolder, ...]
    by_lower_path: dict[str, list[str]]
    by_lower_name: dict[str, list[str]]  # "note.md", "note"


class _Index:
    """The file list, and the lookups built from it when first asked for (a third of a
    20,000-file install's time, which a server's first listing or search does not need)."""

    __slots__ = ("_lookups", "file_set", "files")

    def __init__(self, files: list[str] | None = None) -> None:
        self.files = files or []  # code-unit sorted
        self.file_set = frozenset(self.files)
        self._lookups: _Lookups | None = None

    @property
    def file_map(self) -> tuple[IndexedFile | IndexedFolder, ...]:
        return self._built().file_map

    @property
    def by_lower_path(self) -> dict[str, list[str]]:
        return self._built().by_lower_path

    @property
    def by_lower_name(self) -> dict[str, list[str]]:
        return self._built().by_lower_name

    def _built(self) -> _Lookups:
        lookups = self._lookups
        if lookups is None:  # two threads may both build it: the same, either is kept
            lookups = self._lookups = _build_lookups(self.files)
        return lookups


class Vault:
    """One vault folder and its index, shared by every caller (thread-safe installs)."""

    def __init__(
        self, vault: Path, *, scan: bool = True, links: LinkRules = OBSIDIAN_LINKS
    ) -> None:
        """``scan=False``: the file list stays empty until :meth:`install` or :meth:`refresh`
        (a caller that walks the folder itself, once, for more than the file list).
        ``links``: which symbolic links the vault is read through (``vaultgate.locations``):
        Obsidian's by default, vaultgate's own for the folder backend."""
        self.vault = vault.resolve()
        self._root = str(self.vault)
        self.link_rules = links
        self.link_map = LinkMap(self._root, {})
        self._lock = threading.Lock()
        self._texts: dict[str, _Cached] = {}
        self._resolved: dict[str, list[str]] | None = None
        self._index = _Index()
        if scan:
            self.refresh()

    # --- the file index ---------------------------------------------------------------------

    def refresh(self) -> None:
        """Rescan the vault folder (as Obsidian does when files change on disk)."""
        found = scan_folder(self._root, rules=self.link_rules)
        self.install(found.files, found.links)

    def install(
        self,
        files: Iterable[str],
        links: dict[str, str] | None = None,
    ) -> None:
        """Take ``files`` (every unhidden file's vault path, as ``scan_folder`` walks them)
        as the vault's file list, and ``links`` (the symbolic links that walk met) as its
        link map."""
        self._install(files)
        if links is not None:
            self.link_map = LinkMap(self._root, links)

    def record_write(self, path: str) -> None:
        """A file was created or changed through the API (hidden paths stay unindexed)."""
        # a rewrite within the clock's granularity can keep (mtime, size): drop the text
        self._texts.pop(path, None)
        if is_hidden(path):
            return
        if path not in self._index.file_set:
            self._install([*self._index.files, path])
        else:
            self._resolved = None

    def record_delete(self, path: str) -> None:
        """A file was removed through the API."""
        self._texts.pop(path, None)
        if path in self._index.file_set:
            self._install([p for p in self._index.files if p != path])

    def _install(self, paths: Iterable[str]) -> None:
        index = _build_index(paths)
        with self._lock:
            self._index = index
            self._resolved = None
            self._texts = {p: c for p, c in self._texts.items() if p in index.file_set}

    @property
    def files(self) -> Sequence[str]:
        return self._index.files

    def is_file(self, path: str) -> bool:
        """Whether Obsidian's index holds the file (never a hidden one)."""
        return path in self._index.file_set

    def location(self, path: str) -> Path | None:
        """Where ``path`` lives on disk; None for a path with an empty, ``.`` or ``..``
        segment, a backslash, or one whose symbolic links lead where the vault's link rules
        do not go (a loop; outside the vault or into a hidden folder, for the folder
        backend)."""
        parts = path.split("/")
        if not path or any(part in ("", ".", "..") for part in parts) or "\\" in path:
            return None
        found = locate(self._root, path)
        if found.loop or (found.linked and not passes(found, self.link_rules)):
            return None
        return self.vault.joinpath(*parts)

    def on_disk(self, path: str) -> str | None:
        """ "file", "folder" or None, as the adapter's ``stat`` sees the disk.

        Unlike the index this includes hidden paths: the plugin reads and writes
        ``.obsidian/app.json`` through the adapter.
        """
        location = self.location(path)
        if location is None:
            return None
        try:
            if location.is_file():
                return "file"
            return "folder" if location.is_dir() else None
        except OSError:
            return None

    def is_folder(self, path: str) -> bool:
        """Whether the index holds a folder: any non-hidden folder on disk, even empty."""
        return not is_hidden(path) and self.on_disk(path) == "folder"

    def markdown_files(self) -> list[str]:
        return [path for path in self._index.files if path.endswith(".md")]

    def get_files(self) -> list[IndexedFile]:
        """Obsidian's ``vault.getFiles()``: a new list of every file, from a pass over the file
        map (folders included), on every call."""
        return [entry for entry in self._index.file_map if isinstance(entry, IndexedFile)]

    # --- file contents ----------------------------------------------------------------------

    def disk_path(self, path: str) -> Path:
        return self.vault.joinpath(*path.split("/"))

    def read_bytes(self, path: str) -> bytes:
        return self.disk_path(path).read_bytes()

    def stat(self, path: str) -> FileStat:
        return file_stat(os.stat(os.path.join(self._root, path)))

    def read_text(self, path: str) -> str:
        return self.note(path).text

    def read_from_disk(self, path: str) -> str:
        """The note's text read from its file now, past the text cache: the plugin's
        ``cachedRead``, paid for each note whose content a search or a note JSON includes."""
        with open(os.path.join(self._root, path), "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def meta(self, path: str) -> NoteMeta:
        return self.note(path).meta

    def note(self, path: str) -> Note:
        """Text, metadata and stat of a note, from one ``stat`` call and the cache."""
        disk = os.path.join(self._root, path)
        st = os.stat(disk)
        key = (st.st_mtime_ns, st.st_size)
        cached = self._texts.get(path)
        if cached is None or cached.key != key:
            with open(disk, "rb") as handle:
                # Obsidian reads notes as UTF-8 and tolerates bad bytes
                text = handle.read().decode("utf-8", "replace")
            cached = _Cached(key, text)
            self._texts[path] = cached
            self._resolved = None
        if cached.meta is None:
            cached.meta = _parse_meta(cached.text)
        return Note(cached.text, cached.meta, file_stat(st))

    # --- links ------------------------------------------------------------------------------

    def resolve_link(self, link: str, source: str) -> str | None:
        """The vault path ``link`` points to from ``source``, the way Obsidian picks one.

        Exact path (with or without '.md'), then relative to the source's folder, then by
        file name anywhere (case-insensitive). Several candidates: the one in the source's
        folder, else the shortest path.
        """
        index = self._index
        wanted = link.strip().lstrip("/").lower()
        if not wanted:
            return None
        folder = posixpath.dirname(source).lower()
        for candidate in (wanted, f"{wanted}.md"):
            hits = index.by_lower_path.get(candidate)
            if hits:
                return hits[0]
        if folder:
            for candidate in (f"{folder}/{wanted}", f"{folder}/{wanted}.md"):
                hits = index.by_lower_path.get(posixpath.normpath(candidate))
                if hits:
                    return hits[0]
        name = wanted.rsplit("/", 1)[-1]
        hits = index.by_lower_name.get(name, [])
        if "/" in wanted:
            hits = [
                h
                for h in hits
                if h.lower().endswith(f"/{wanted}") or h.lower().endswith(f"/{wanted}.md")
            ]
        if not hits:
            return None
        return min(hits, key=lambda p: (posixpath.dirname(p).lower() != folder, len(p), p))

    def links(self, path: str, meta: NoteMeta | None = None) -> tuple[list[str], list[str]]:
        """(resolved vault paths, unresolved link texts) of one note, in document order."""
        resolved: dict[str, None] = {}
        unresolved: dict[str, None] = {}
        for link in (meta or self.meta(path)).link_targets:
            target = self.resolve_link(link, path)
            if target is None:
                unresolved[link] = None
            else:
                resolved[target] = None
        return list(resolved), list(unresolved)

    def resolved_links(self) -> dict[str, list[str]]:
        """Every note's resolved link targets, notes in index order (Obsidian's
        ``metadataCache.resolvedLinks``); a note that cannot be read has none."""
        cached = self._resolved
        if cached is not None:
            return cached
        resolved: dict[str, list[str]] = {}
        for source in self.markdown_files():
            try:
                targets, _ = self.links(source)
            except OSError:
                targets = []
            resolved[source] = targets
        self._resolved = resolved
        return resolved

    def backlinks_index(self) -> dict[str, list[str]]:
        """Target path -> paths of the notes that link to it: one pass over every note's
        resolved links, built anew on each call as the plugin's ``buildBacklinksIndex`` is."""
        index: dict[str, list[str]] = {}
        for source, targets in self.resolved_links().items():
            for target in targets:
                index.setdefault(target, []).append(source)
        return index

    def backlinks_of(self, path: str) -> list[str]:
        """The notes linking to ``path``, found by scanning every note's resolved links: what
        4.0.0-4.0.2 do for each note they describe (so a vault-wide search is quadratic)."""
        return [source for source, targets in self.resolved_links().items() if path in targets]


def file_stat(st: os.stat_result) -> FileStat:
    """A file's stat as the plugin's note JSON gives it (milliseconds)."""
    birth = getattr(st, "st_birthtime", None)
    ctime = birth if isinstance(birth, (int, float)) else st.st_ctime
    return FileStat(int(ctime * 1000), st.st_mtime_ns // 1_000_000, st.st_size)


def _parse_meta(text: str) -> NoteMeta:
    frontmatter = markdown.parse_frontmatter(text)
    return NoteMeta(
        frontmatter=frontmatter.data,
        frontmatter_valid=frontmatter.valid,
        tags=markdown.extract_tags(text),
        link_targets=markdown.extract_links(text, embeds_last=True),
        inline_tags=[tag for _start, _end, tag in markdown.inline_tags(text)],
    )


def _build_index(paths: Iterable[str]) -> _Index:
    unique = set(paths)
    # code-unit order is code-point order unless a path holds a character beyond U+FFFF
    ascii_only = all(path.isascii() for path in unique)
    return _Index(sorted(unique) if ascii_only else sorted(unique, key=js_sort_key))


def _build_lookups(files: list[str]) -> _Lookups:
    folders: dict[str, None] = {}
    by_lower_path: dict[str, list[str]] = {}
    by_lower_name: dict[str, list[str]] = {}
    for path in files:
        # the folders above the file not seen yet, outermost first (as a walk down would
        # meet them): a folder seen has all of its parents seen too
        cut, unseen = path.rfind("/"), []
        while cut > 0 and (folder := path[:cut]) not in folders:
            unseen.append(folder)
            cut = path.rfind("/", 0, cut)
        for folder in reversed(unseen):
            folders[folder] = None
        lower = path.lower()
        by_lower_path.setdefault(lower, []).append(path)
        name = lower[lower.rfind("/") + 1 :]
        by_lower_name.setdefault(name, []).append(path)
        if name.endswith(".md"):
            by_lower_name.setdefault(name[:-3], []).append(path)
    return _Lookups(
        file_map=(*map(IndexedFolder, folders), *map(IndexedFile, files)),
        by_lower_path=by_lower_path,
        by_lower_name=by_lower_name,
    )
