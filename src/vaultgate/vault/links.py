"""Link health and backlinks: links that lead nowhere, files nothing links to, who links here.

Where the plugin's note JSON has link lists, they answer (``Backend.note_links``: one search
for the whole vault; ``backlinks`` of one note JSON), so Obsidian's own link resolution
decides what a link points to. Those lists arrived with the plugin: ``links`` and
``backlinks`` in 4.0.0, ``unresolvedLinks`` in 5.0.0. Before that, vaultgate reads the links
from the notes' text (``links_from_text``): one search returns the text of every note with a
``[`` in it, every file is listed, and each link is resolved by Obsidian's rules as the
engine applies them (``engine.relink.files_resolver``). That costs the whole vault's text in
one answer and a walk of every folder.

What the model may not reach (hidden paths, VAULTGATE_ALLOW / VAULTGATE_DENY, notes tagged
``mcp-hidden``) is neither shown nor counted as a linker, and a link to it is a broken link,
exactly as a link to a missing file: the guard hands over every note's links as they would
be without those files (``vault/unseen.py``), whichever way they were read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import markdown
from vaultgate.backend import Backend, NoteLinks
from vaultgate.cache import Served, Snapshots
from vaultgate.calls import call
from vaultgate.errors import NotFound
from vaultgate.paths import normalize_directory
from vaultgate.vault.backlinks import is_markdown, linking_notes
from vaultgate.vault.concurrent import map_bounded
from vaultgate.vault.listing import NOTE_SUFFIX, ProgressCallback, VaultLister

LINKS_TTL_SECONDS = 30.0  # as a recursive listing: pages 2..N of one question cost nothing
BROKEN_SHOWN = 20  # unresolved link texts shown per note; ``count`` says how many there are
LINES_SHOWN = 3  # linking lines shown per backlink; ``count`` says how many there are
LINE_LIMIT = 200  # characters of one linking line, cut around the link
_FENCES = ("```", "~~~")
# The text of every note that may hold a link (the plugin's filter drops the others: false).
TEXT_WITH_LINKS = {"if": [{"in": ["[", {"var": "content"}]}, {"var": "content"}, False]}

OrphanKind = Literal["note", "attachment"]


@dataclass(frozen=True, slots=True)
class BrokenLinks:
    """A note and the link texts in it that resolve to no file (links and embeds alike)."""

    filename: str
    targets: tuple[str, ...]

    def render(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"filename": self.filename}
        shown["broken"] = list(self.targets[:BROKEN_SHOWN])
        if len(self.targets) > BROKEN_SHOWN:
            shown["count"] = len(self.targets)
        return shown


@dataclass(frozen=True, slots=True)
class Orphan:
    path: str
    kind: OrphanKind

    def render(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Backlink:
    """A note linking to the one asked about, with the lines that hold the links."""

    filename: str
    lines: tuple[str, ...]

    def render(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"filename": self.filename, "lines": list(self.lines[:LINES_SHOWN])}
        if len(self.lines) > LINES_SHOWN:
            shown["count"] = len(self.lines)
        return shown


def _below(folder: str | None) -> str:
    return normalize_directory(folder) if folder else ""


class LinkReader:
    """Every note's links, from the plugin's lists where its version has them, else from the
    notes' text; kept ``ttl`` seconds for the later pages of one answer, which then cost no
    new search and agree on their total. A first page reads them again unless the vault's
    generation says nothing changed (``cache.Snapshots``); vaultgate's own writes forget
    them (``AppState.vault_changed``)."""

    def __init__(
        self, client: Backend, lister: VaultLister, ttl: float = LINKS_TTL_SECONDS
    ) -> None:
        self.client = client
        self.lister = lister
        self._notes: Snapshots[bool, list[NoteLinks]] = Snapshots(client.generation, ttl)

    def invalidate(self) -> None:
        self._notes.clear()

    async def every_note_links(
        self, *, unresolved: bool, progress: ProgressCallback | None = None, offset: int = 0
    ) -> Served[list[NoteLinks]]:
        """``unresolved``: the links that resolve nowhere are wanted too (5.0's lists).
        Read now for a first page, from the first page's snapshot for a later one."""
        features = await self.client.features()
        if features.has("unresolved_links") or (features.has("links") and not unresolved):
            # kept as what it holds: with the unresolved links, it serves both questions
            key, read = features.has("unresolved_links"), self.client.note_links
        else:
            key = True

            async def read() -> list[NoteLinks]:
                return await links_from_text(self.client, self.lister, progress)

        return await self._notes.get(key, read, first_page=offset == 0)


async def links_from_text(
    client: Backend, lister: VaultLister, progress: ProgressCallback | None = None
) -> list[NoteLinks]:
    """Every note's links read from its text and resolved against every file listed, as
    Obsidian resolves them: for plugins whose note JSON has no link lists."""
    from vaultgate.engine.relink import files_resolver  # the engine's rules, on first use

    rows = await client.search_jsonlogic(TEXT_WITH_LINKS)
    if progress is not None:
        await progress(1, None, f"read {len(rows)} notes with links; listing every file")
    texts = {
        path: text
        for row in rows
        if isinstance(path := row.get("filename"), str)
        and isinstance(text := row.get("result"), str)
    }
    files = await lister.list_recursive("", progress)
    resolve = files_resolver(files)
    notes: list[NoteLinks] = []
    for path in files:
        if not path.endswith(NOTE_SUFFIX):
            continue
        resolved: dict[str, None] = {}
        missing: dict[str, None] = {}
        for link in markdown.extract_links(texts.get(path, ""), embeds_last=True):
            target = resolve(link, path)
            if target is None:
                missing[link] = None
            else:
                resolved[target] = None
        notes.append(NoteLinks(path, tuple(resolved), tuple(missing)))
    return notes


async def broken_links(
    reader: LinkReader,
    folder: str | None = None,
    progress: ProgressCallback | None = None,
    *,
    offset: int = 0,
) -> Served[list[BrokenLinks]]:
    """Every note (below ``folder``) with links or embeds that resolve to nothing, by path."""
    prefix = _below(folder)
    served = await reader.every_note_links(unresolved=True, progress=progress, offset=offset)
    found = [
        BrokenLinks(note.path, note.unresolved)
        for note in served.value
        if note.unresolved and note.path.startswith(prefix)
    ]
    return Served(sorted(found, key=lambda item: item.filename), served.notice)


async def orphans(
    reader: LinkReader,
    folder: str | None = None,
    progress: ProgressCallback | None = None,
    *,
    offset: int = 0,
) -> Served[list[Orphan]]:
    """Notes no other note links to, then files (attachments) no note links to or embeds,
    each group by path, below ``folder``.

    Every file is listed (``VaultLister.listed``): attachments appear in no
    search, only in folder listings, so on the plugin this walks every folder. A link from a
    note to itself does not count.
    """
    prefix = _below(folder)
    served = await reader.every_note_links(unresolved=False, progress=progress, offset=offset)
    notes = served.value
    if progress is not None:
        await progress(1, None, f"read the links of {len(notes)} notes; listing every file")
    linked = {target for note in notes for target in note.links if target != note.path}
    listed = await reader.lister.listed("", progress, offset=offset)
    unlinked = [path for path in listed.value if path.startswith(prefix) and path not in linked]
    found = [Orphan(path, "note") for path in unlinked if path.endswith(NOTE_SUFFIX)] + [
        Orphan(path, "attachment") for path in unlinked if not path.endswith(NOTE_SUFFIX)
    ]
    return Served(found, served.notice or listed.notice)


async def backlinking_notes(
    reader: LinkReader, path: str, progress: ProgressCallback | None = None, *, offset: int = 0
) -> Served[list[str]]:
    """The notes that link to ``path`` (itself left out), by path: its note JSON's
    ``backlinks`` (plugin 4.0.0, or the folder backend; the guard has filtered them), else
    every note's links read from the text. A missing note is NotFound, as its read is."""
    sources: Any = None
    if is_markdown(path):
        sources = (await reader.client.read_note_json(path)).get("backlinks")
    elif (await reader.client.features()).has("links"):
        # a file's note JSON waits out the plugin's metadata cache: search the links instead
        sources = await linking_notes(reader.client, path)
        folder, _, name = path.rpartition("/")
        if not sources and name not in await reader.client.list_directory(folder):
            raise NotFound(path, f"{call('list_vault_files', directory=folder)} shows what exists.")
    notice = None  # the note's own JSON and the search are asked now: never a snapshot
    if not isinstance(sources, list):
        served = await reader.every_note_links(unresolved=False, progress=progress, offset=offset)
        sources = [other.path for other in served.value if path in other.links]
        notice = served.notice
    found = sorted({source for source in sources if isinstance(source, str) and source != path})
    return Served(found, notice)


async def with_lines(client: Backend, sources: Iterable[str], target: str) -> list[Backlink]:
    """Each source note read, with its lines that link to ``target``."""

    async def lines_of(source: str) -> Backlink:
        note = await client.read_note(source)
        return Backlink(source, tuple(linking_lines(note.content, target)))

    return await map_bounded(list(sources), lines_of)


def linking_lines(text: str, target: str) -> list[str]:
    """The lines of ``text`` (outside fenced code) holding a link whose name is ``target``'s.

    Obsidian resolves a link by path, by relative path or by file name, and every spelling
    ends in the file's name (with or without '.md'), so a line is kept when one of its links
    ends in that name. Two files of the same name in different folders are not told apart
    here: the note JSON already said the note links to ``target``.
    """
    names = link_names(target)
    lines: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        stripped = line.lstrip()
        marker = next((f for f in _FENCES if stripped.startswith(f)), None)
        if marker is not None and (fence is None or marker == fence):
            fence = marker if fence is None else None
            continue
        if fence is not None or "[" not in line:
            continue
        if any(_link_name(link) in names for link in markdown.extract_links(line)):
            lines.append(_around(line.strip(), names))
    return lines


def link_names(path: str) -> frozenset[str]:
    """How a link may name ``path``'s file: its name, and for a note its name without '.md'."""
    name = posixpath.basename(path).lower()
    return frozenset({name, name.removesuffix(NOTE_SUFFIX)})


def _link_name(link: str) -> str:
    return link.strip().rstrip("/").lower().rsplit("/", 1)[-1]


def _around(line: str, names: frozenset[str]) -> str:
    """The line, or LINE_LIMIT characters of it around the first mention of the name."""
    if len(line) <= LINE_LIMIT:
        return line
    lowered = line.lower()
    at = min((i for n in names if (i := lowered.find(n)) >= 0), default=0)
    start = max(0, min(at - LINE_LIMIT // 3, len(line) - LINE_LIMIT))
    cut = line[start : start + LINE_LIMIT]
    return ("…" if start > 0 else "") + cut + ("…" if start + LINE_LIMIT < len(line) else "")
