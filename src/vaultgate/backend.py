"""What the tools talk to: one vault backend, whichever answers.

Three classes offer this protocol: ``ObsidianClient`` (the Local REST API plugin, over
HTTP), ``FolderBackend`` (the vault folder itself, through ``vaultgate.engine``) and
``RoutedBackend`` (``VAULTGATE_BACKEND=auto`` with a vault folder: the folder for what it
can do, the plugin for what only Obsidian can do). ``GuardedClient`` wraps any of them
with the access policy. Every method answers what the plugin would answer, in the client's
shapes and errors, so a tool cannot tell which backend served it (``tests/backends``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # named in annotations only
    from vaultgate.locations import LinkMap
    from vaultgate.markdown import DocumentMap
    from vaultgate.obsidian.features import FeatureSet, Version
    from vaultgate.obsidian.models import SimpleHit
    from vaultgate.patch_request import PatchRequest
    from vaultgate.protection import Marks

BackendKind = Literal["obsidian", "folder", "auto"]


@dataclass(frozen=True)
class ServerStatus:
    """What the backend reports of itself: the plugin's root answer, or the folder's own."""

    authenticated: bool
    plugin_version: Version
    obsidian_version: str
    service: str
    certificate_days_left: float | None
    extensions: list[str]  # apiExtensions ids (else names), [] when absent


@dataclass(frozen=True)
class Note:
    """One note's vault path and its text."""

    path: str  # vault path; for the active file from Content-Location, percent-decoded
    content: str


LocalMode = Literal["hybrid", "keyword", "semantic"]


@dataclass(frozen=True, slots=True)
class LocalResults:
    """A search of the vault's own index by words, meaning or both (``search_local``): rows
    ``{"path", "score", "text"}`` best first, and what the model should know of them (still
    embedding, ranked by words only)."""

    rows: list[dict[str, Any]]
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class BackendReport:
    """Which backend answers what, for ``get_server_info`` and ``doctor``."""

    kind: BackendKind
    vault_folder: str | None  # the folder the folder backend serves, if any
    obsidian_url: str | None  # where the plugin is asked, if it is asked at all
    obsidian_only: tuple[str, ...]  # operations that need Obsidian running
    # the vault folder found in Obsidian's vault list and how it was verified, or why none is
    # used; None when none is looked for (vaultgate.discovery)
    discovery: str | None = None


@dataclass(frozen=True, slots=True)
class LinkUpdates:
    """The links a move rewrote (or, in a dry run, would rewrite) in other notes."""

    notes: tuple[tuple[str, int], ...]  # (note, as named after the move; links rewritten)
    stranded: tuple[str, ...] = ()  # notes whose link to it no text can write (kept as is)
    failed: tuple[str, ...] = ()  # notes that could not be rewritten

    @property
    def links(self) -> int:
        return sum(count for _, count in self.notes)


# --- every note's links (issue 13: broken links, orphans) ------------------------------------


@dataclass(frozen=True, slots=True)
class NoteLinks:
    """What one note links to: resolved vault paths (notes and embedded files alike), and the
    link texts that resolve to nothing (None where the backend cannot tell: plugin < 5.0)."""

    path: str
    links: tuple[str, ...]
    unresolved: tuple[str, ...] | None


# One JsonLogic search returns every note with its link lists: ``merge`` of one-item arrays
# is the array of the lists, never empty, so every note is a row (json-logic-js and the
# plugin's filter agree). ``unresolvedLinks`` exists from 5.0.0.
_LINKS = {"merge": [[{"var": "links"}]]}
_LINKS_AND_UNRESOLVED = {"merge": [[{"var": "links"}], [{"var": "unresolvedLinks"}]]}


async def search_note_links(backend: Backend) -> list[NoteLinks]:
    """``Backend.note_links`` through the backend's own JsonLogic search: links are in the
    note JSON from plugin 4.0.0 (FeatureUnavailable before), unresolved links from 5.0.0."""
    features = await backend.features()
    features.require("links", action="Reading every note's links")
    with_unresolved = features.has("unresolved_links")
    rows = await backend.search_jsonlogic(_LINKS_AND_UNRESOLVED if with_unresolved else _LINKS)
    notes: list[NoteLinks] = []
    for row in rows:
        path, lists = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(lists, list):
            continue
        # a 6.x plugin may send null while Obsidian's link index settles: nothing known yet
        links = _strings(lists[0] if lists else None)
        unresolved = _strings(lists[1] if len(lists) > 1 else None) if with_unresolved else None
        notes.append(NoteLinks(path, links, unresolved))
    return notes


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


class Backend(Protocol):
    """The operations every tool reaches the vault through (see ``ObsidianClient``)."""

    async def status(self) -> ServerStatus: ...

    async def refresh_status(self) -> ServerStatus: ...

    async def features(self) -> FeatureSet: ...

    def report(self) -> BackendReport: ...

    def link_map(self) -> LinkMap | None:
        """The symbolic links the backend's own walk of the vault folder met; None when it
        walks none (the plugin: the access policy walks the folder itself, if it knows it)."""
        ...

    def marks_generation(self) -> tuple[int, int] | None:
        """A value that changes whenever ``marked_notes`` may answer otherwise, where the
        backend can tell: the folder's index, told of every change it stores (after the
        watcher's delay for changes made elsewhere). None where it cannot (the plugin, the
        folder before its index answers): then the guard checks the notes themselves before
        showing their text, and names them under a bounded-age answer."""
        ...

    async def plugin_status(self) -> ServerStatus:
        """The plugin's own status, asked now (NeedsObsidian when it is never asked)."""
        ...

    def generation(self) -> int | None:
        """A number that moves whenever the vault changes, whoever changed it (the vault
        folder's index, kept current by its watcher: ``engine/index/generation.py``). An
        answer computed at the generation that is still current is still the vault's answer.
        None: this backend cannot tell (the plugin alone, or a folder whose watcher is not
        running), so an answer must be asked for again."""
        ...

    # --- reading ---

    async def list_directory(self, directory: str) -> list[str]: ...

    async def list_files_below(self, directory: str) -> list[str] | None:
        """Every file below ``directory`` in one call, or None when only a walk can tell."""
        ...

    async def read_note(self, path: str | None) -> Note: ...

    async def read_note_json(self, path: str | None) -> dict[str, Any]: ...

    async def read_file(self, path: str) -> bytes:
        """Any file's bytes as stored (an attachment too), where ``read_note`` gives text."""
        ...

    async def read_document_map(self, path: str | None) -> DocumentMap: ...

    async def note_size(self, path: str) -> int | None: ...

    # --- searching ---

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]: ...

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]: ...

    async def search_dql(self, query: str) -> list[dict[str, Any]]: ...

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]: ...

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        """The first ``limit`` notes ``wanted`` accepts, ranked from the vault folder's own
        index (``folder/meaning.py``); ``wanted`` is asked before any ranking, so a note it
        refuses shapes no score. None when this backend has no local index (Obsidian's
        plugin alone): Smart Connections is the way then."""
        ...

    async def list_tags(self) -> list[dict[str, Any]]: ...

    async def marked_notes(self) -> dict[str, Marks]:
        """Every note whose frontmatter carries a protection tag (vaultgate.protection), by
        path, filtered by no policy: the plugin's JsonLogic search (``MARKED_QUERY``), or
        the folder's index."""
        ...

    async def note_links(self) -> list[NoteLinks]:
        """Every note's links, from one search (``search_note_links``)."""
        ...

    # --- writing ---

    async def write_note(self, path: str | None, content: str) -> None: ...

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        """Write the whole note only while it reads ``expected`` (None: while there is no
        such note), checked as close to the write as the backend allows; False, with nothing
        written, when it does not. The folder checks just before its atomic rename; the
        plugin has no conditional write, so the note is read again just before the PUT
        (docs/design.md, "Changes made elsewhere")."""
        ...

    async def append_note(self, path: str | None, content: str) -> None: ...

    async def patch_note(self, path: str | None, request: PatchRequest) -> str: ...

    async def delete_note(self, path: str | None, *, permanent: bool) -> None: ...

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None: ...

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates | None:
        """Move the note; None when the backend cannot tell which links it updated (the
        plugin: Obsidian rewrites them). A dry run checks and plans, and moves nothing."""
        ...

    # --- only Obsidian ---

    async def open_note(self, path: str, *, new_leaf: bool) -> None: ...

    async def list_commands(self) -> list[dict[str, Any]]: ...

    async def execute_command(self, command_id: str) -> None: ...

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note: ...

    async def append_periodic(
        self, period: str, content: str, date: datetime.date | None
    ) -> None: ...

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...
