"""Link health and backlinks: links that lead nowhere, files nothing links to, who links here.

Everything comes from the note JSON's link lists (``Backend.note_links``: one search for the
whole vault; ``backlinks`` of one note JSON), so Obsidian's own link resolution decides what
a link points to. Those lists arrived with the plugin: ``links`` and ``backlinks`` in 4.0.0,
``unresolvedLinks`` in 5.0.0; on older versions the operations say so (FeatureUnavailable,
naming the version needed and the folder backend, which reads links from the files).

What the policy keeps out (hidden paths, VAULTGATE_ALLOW / VAULTGATE_DENY) is neither shown
nor counted as a linker: the guard drops those notes and targets before anything here sees
them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import markdown
from vaultgate.backend import Backend
from vaultgate.paths import normalize_directory
from vaultgate.vault.concurrent import map_bounded
from vaultgate.vault.listing import NOTE_SUFFIX, ProgressCallback, VaultLister

BROKEN_SHOWN = 20  # unresolved link texts shown per note; ``count`` says how many there are
LINES_SHOWN = 3  # linking lines shown per backlink; ``count`` says how many there are
LINE_LIMIT = 200  # characters of one linking line, cut around the link
_FENCES = ("```", "~~~")

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


async def broken_links(client: Backend, folder: str | None = None) -> list[BrokenLinks]:
    """Every note (below ``folder``) with links or embeds that resolve to nothing, by path.

    Needs ``unresolvedLinks`` (plugin 5.0.0, or the folder backend): with ``links`` alone a
    link that resolves nowhere cannot be told apart from one that is not there.
    """
    prefix = _below(folder)
    (await client.features()).require("unresolved_links", action="Finding broken links")
    found = [
        BrokenLinks(note.path, note.unresolved)
        for note in await client.note_links()
        if note.unresolved and note.path.startswith(prefix)
    ]
    return sorted(found, key=lambda item: item.filename)


async def orphans(
    client: Backend,
    lister: VaultLister,
    folder: str | None = None,
    progress: ProgressCallback | None = None,
) -> list[Orphan]:
    """Notes no other note links to, then files (attachments) no note links to or embeds,
    each group by path, below ``folder``.

    Every file is listed (``VaultLister.list_recursive``, cached): attachments appear in no
    search, only in folder listings, so on the plugin this walks every folder. A link from a
    note to itself does not count.
    """
    prefix = _below(folder)
    notes = await client.note_links()
    if progress is not None:
        await progress(1, None, f"read the links of {len(notes)} notes; listing every file")
    linked = {target for note in notes for target in note.links if target != note.path}
    files = await lister.list_recursive("", progress)
    unlinked = [path for path in files if path.startswith(prefix) and path not in linked]
    return [Orphan(path, "note") for path in unlinked if path.endswith(NOTE_SUFFIX)] + [
        Orphan(path, "attachment") for path in unlinked if not path.endswith(NOTE_SUFFIX)
    ]


async def backlinking_notes(client: Backend, path: str) -> list[str]:
    """The notes that link to ``path`` (itself left out), by path: its note JSON's
    ``backlinks`` (plugin 4.0.0, or the folder backend), which the guard has filtered."""
    (await client.features()).require("links", action="Listing backlinks")
    note = await client.read_note_json(path)
    sources = note.get("backlinks")
    if not isinstance(sources, list):
        return []
    return sorted({source for source in sources if isinstance(source, str) and source != path})


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
