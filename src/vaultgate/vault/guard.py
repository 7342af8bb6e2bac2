"""The client every tool uses: the backend with the access policy applied to each call.

Every path a tool sends is checked before the request, and every path the plugin returns
(listings, search hits, links and backlinks) is filtered, so no tool can reach around the
policy. Hidden paths are never reachable, with or without a policy.

Three rules close the holes that a plain check-then-send leaves:

- **The active note is resolved first.** A write to the note open in Obsidian first asks which
  note that is, checks that path, and then writes to ``/vault/<that path>``, never to
  ``/active/``: if the user switches notes in between, the write still lands on the note that
  was checked. A denial names no path the model has not given.
- **Folders are not notes.** A folder path given to a single-note write or delete is refused
  before anything is sent; without a trailing slash the plugin would trash the whole folder.
- **A denied folder looks missing.** Listing a denied folder answers exactly what listing a
  missing one does, so denied names cannot be probed.

Protection tags (``vaultgate.protection``) are applied here too, for every backend:

- **Hidden notes look missing.** A read whose answer carries the note's text or frontmatter
  (markdown, note JSON, the open note, a periodic note) is checked on that answer, at no
  extra request; a hidden note answers what a missing one does. Listings, search hits, tag
  counts, link lists and a move's link report leave hidden notes out, using the set of marked
  notes: one JsonLogic search (``Backend.marked_notes``), kept ``MARKS_TTL_SECONDS`` and
  forgotten after every write made through this client. A document map carries no
  frontmatter values, so it is checked against that set.
- **Writes are checked against the note's current tags.** Each write to a note first reads
  it (one GET, which also tells a folder from a note, as the parent's listing did before),
  then applies the rules of ``protection.check_write``. The tags may change between that read
  and the write; that window is one round trip. A write to the open note reads it anyway (to
  resolve its path), so its tags cost nothing more.

- **A move writes no note the model may not write.** Its link updates are asked first (the
  backend's dry run: vaultgate's own plan from the folder, the moved note's backlinks where
  Obsidian's rename rewrites them) and the move is refused when one of those notes is tagged
  ``mcp-readonly`` or ``mcp-protected`` (named) or is out of reach (counted, never named).

Two rules keep a write from losing or doubling a note, on every backend:

- **A move never overwrites.** With ``overwrite=true`` the note at the destination goes to the
  trash first, as a delete that is not permanent sends it there on this backend (the plugin's
  own DELETE), and the move then asks for the free name: no backend is asked to overwrite,
  which deletes for good.
- **No second name in another Unicode form.** A note created (written, appended to, moved or
  rendered to a path where nothing is) whose name, or a folder's name it would make, is an
  existing one's in another Unicode form (NFC/NFD) is refused, naming the existing one. It
  costs one listing, only when something new is created and only for names that can have such
  a twin.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio

from vaultgate.backend import (
    Backend,
    BackendReport,
    LinkUpdates,
    LocalMode,
    LocalResults,
    Note,
    NoteLinks,
    ServerStatus,
)
from vaultgate.cache import TTLCache
from vaultgate.engine.errors import InvalidQuery
from vaultgate.engine.search import evaluate_notes
from vaultgate.engine.tags import counted_tags
from vaultgate.errors import (
    AccessDenied,
    DestinationExists,
    InvalidArgument,
    LinkNotFollowed,
    MoveRewritesKept,
    NotANote,
    NotFound,
    ObsidianAPIError,
    PathUnknown,
    ReadOnlyMode,
    ReplacedButNotMoved,
    UnicodeTwin,
    VaultgateError,
)
from vaultgate.locations import LinkMap
from vaultgate.markdown import DocumentMap, frontmatter_tags, inline_tags, parse_frontmatter
from vaultgate.obsidian.client import (
    active_not_found,
    folder_not_found,
    note_call,
    patch_call,
    periodic_not_found,
    periodic_subject,
    query_failed,
    template_not_found,
    template_target,
)
from vaultgate.obsidian.features import FeatureSet
from vaultgate.obsidian.models import SimpleHit
from vaultgate.patch_request import PatchRequest
from vaultgate.paths import (
    may_have_twin,
    normalize_directory,
    same_name,
    unicode_twin,
    validate_vault_path,
)
from vaultgate.protection import (
    HIDDEN,
    PROTECTED,
    READONLY,
    TAG_KEY_SPELLINGS,
    Marks,
    WriteKind,
    check_write,
    is_note,
    marks_in_text,
    marks_of_note_json,
)
from vaultgate.vault.backlinks import is_markdown, linking_notes
from vaultgate.vault.concurrent import map_bounded
from vaultgate.vault.marks_scope import SEARCHED
from vaultgate.vault.patch_preview import patched_text
from vaultgate.vault.policy import AccessPolicy
from vaultgate.vault.unseen import (
    as_if_missing,
    dql_link_field,
    linking_unreachable,
    note_links_of,
    reads_links,
    reads_note_values,
    rebuilt_notes,
    whole_notes_query,
)

ACTIVE_NOTE = "the note open in Obsidian"
HIDDEN_NOTES = "({} notes outside what you may reach)"
DQL_READS_LINKS = (
    "This Dataview query reads {field!r}, which may hold links: Dataview resolves links "
    "itself and could name notes this server keeps out of reach, so here a Dataview query "
    "may read only "
    "file.name, file.path, file.folder, file.ext, file.size, file.ctime, file.mtime, "
    "file.cday, file.mday, file.day, file.tags, file.etags, file.aliases and file.starred, "
    "FROM folders and #tags. For frontmatter and inline fields use queryType=jsonlogic, "
    'e.g. {{"var": "frontmatter.status"}} (on this plugin version its note JSON holds no '
    "links)."
)
_LINK_LISTS = ("links", "backlinks")  # vault paths in the note JSON (4.0+)
# Notes to read one by one before one search for their texts costs less (it reads them all:
# about 0.5 s on 3,000 notes through the plugin, a read a few ms: bench/hidden_queries.py,
# docs/design.md).
READS_BEFORE_SEARCH = 32
# Where the backend tells no change (the plugin), how old the marked notes may be when they
# decide which names a listing shows: the bound on a note tagged mcp-hidden elsewhere still
# being named. Never used for text, which is checked on the notes as they are now. One
# marks search costs 0.5-1.5 s on 3,000 notes (bench/hidden_latency.py, docs/benchmarks.md).
MARKS_TTL_SECONDS = 10.0
# Every note that may carry a tag: its frontmatter (any tag key) and its listed tags; a note
# whose frontmatter is empty and that lists no tag is no row. Its text tells how often.
NOTE_TAGS = {
    "if": [
        {"or": [{"var": "tags"}, *({"var": f"frontmatter.{key}"} for key in TAG_KEY_SPELLINGS)]},
        [{"var": "frontmatter"}, {"var": "tags"}],
        False,
    ]
}
NOTE_TEXT = {"var": "content"}  # every note that is not empty, with its text
KEPT = frozenset({READONLY, PROTECTED})  # tags whose notes a move's link updates may not write
_CREATING: tuple[WriteKind, ...] = ("create", "append", "onto")  # writes that make a missing note


@dataclass(slots=True)
class _KeptMarks:
    """One answer of ``Backend.marked_notes`` and the notes it speaks for: those named in the
    call that asked for it, and those read since (a note missing from the answer that the
    search never saw may be newer than it, created already hidden)."""

    marked: dict[str, Marks]
    seen: set[str] = field(default_factory=set)
    reads: int = 0  # notes read since, to be named: at most READS_BEFORE_SEARCH

    def hidden_among(self, paths: Iterable[str]) -> set[str]:
        return {path for path in paths if (marks := self.marked.get(path)) and marks.hidden}

    def vouches_for_all(self) -> bool:
        """Does this search speak for every note the call under way names? Only in the call
        that ran it (a walk lists folder after folder): ``vault/marks_scope.py``."""
        return SEARCHED.get() is self


class GuardedClient:
    """Any backend (``vaultgate.backend``) with the access policy and the protection tags
    applied to every call."""

    def __init__(
        self, inner: Backend, policy: AccessPolicy, *, marks_ttl: float = MARKS_TTL_SECONDS
    ) -> None:
        self._inner = inner
        self.policy = policy
        self._marks: TTLCache[None, _KeptMarks] = TTLCache(marks_ttl, 1)
        # on a backend that tells its changes: the answer of one generation, kept until the next
        self._current: tuple[tuple[int, int], dict[str, Marks]] | None = None
        self._marks_lock = anyio.Lock()
        self._writes = 0  # writes begun: marks searched while one ran are not kept

    # --- what needs no check ----------------------------------------------------------------

    async def status(self) -> ServerStatus:
        return await self._inner.status()

    async def refresh_status(self) -> ServerStatus:
        return await self._inner.refresh_status()

    async def features(self) -> FeatureSet:
        return await self._inner.features()

    def report(self) -> BackendReport:
        return self._inner.report()

    def link_map(self) -> LinkMap | None:
        return self._inner.link_map()

    def generation(self) -> int | None:
        return self._inner.generation()

    def marks_generation(self) -> tuple[int, int] | None:
        return self._inner.marks_generation()

    async def plugin_status(self) -> ServerStatus:
        return await self._inner.plugin_status()

    async def list_commands(self) -> list[dict[str, Any]]:
        return await self._inner.list_commands()

    async def aclose(self) -> None:
        await self._inner.aclose()

    # --- protection tags --------------------------------------------------------------------

    async def marked_notes(self) -> dict[str, Marks]:
        """The reachable notes carrying a protection tag: as the backend's index has them
        now where it tells its changes (the folder), else from one search kept
        ``MARKS_TTL_SECONDS`` at most."""
        marked = (await self._kept_marks())[0].marked
        await self._links()
        return {path: marks for path, marks in marked.items() if self.policy.allows(path)}

    async def _kept_marks(self, *, fresh: bool = False) -> tuple[_KeptMarks, bool]:
        """The marked notes to decide by, and whether they were searched by this call: the
        current generation's where the backend has one; else the kept search, or a new one
        when none is kept or ``fresh``."""
        generation = self._inner.marks_generation()
        if generation is not None:
            current = self._current
            if current is not None and current[0] == generation:
                return _KeptMarks(current[1]), False
            # the generation is read before the search: a change meanwhile makes it stale
            marked = await self._inner.marked_notes()
            self._current = (generation, marked)
            return _KeptMarks(marked), True
        kept = None if fresh else self._marks.get(None)
        if kept is not None:
            return kept, False
        async with self._marks_lock:
            kept = None if fresh else self._marks.get(None)
            if kept is not None:
                return kept, False
            writes = self._writes
            kept = _KeptMarks(await self._inner.marked_notes())
            if writes == self._writes:
                self._marks.put(None, kept)
        SEARCHED.set(kept)  # this call's later steps name what this search saw
        return kept, True

    def forget_marks(self) -> None:
        """Search for marked notes again on next use: after a write (a search that ran
        meanwhile may have seen the vault before it, so it is not kept either)."""
        self._writes += 1
        self._marks.clear()
        self._current = None
        self.policy.forget_links()

    async def _links(self) -> None:
        """The links of the vault folder, for the policy to place the many paths of a
        listing or a search (``AccessPolicy.refresh_links``)."""
        await self.policy.refresh_links(self._inner.link_map())

    async def _hidden(self, paths: Iterable[str]) -> set[str]:
        """Which of ``paths`` are hidden notes, for naming them; asks for the marked notes
        only if a note is among them. Where the backend tells no change, the kept marks
        decide for the notes their search saw (so a note tagged elsewhere is named at most
        ``MARKS_TTL_SECONDS`` longer); a note it never saw is read first (up to
        ``READS_BEFORE_SEARCH`` reads per search: past them, the bound applies to new notes
        too), so a note created already hidden is not named."""
        notes = [path for path in dict.fromkeys(paths) if is_note(path)]
        if not notes:
            return set()
        kept, searched = await self._kept_marks()
        if self._inner.marks_generation() is None:
            vouched = searched or kept.vouches_for_all()
            unseen = [] if vouched else [path for path in notes if path not in kept.seen]
            if unseen and kept.reads + len(unseen) <= READS_BEFORE_SEARCH:
                kept.reads += len(unseen)
                read = await map_bounded(unseen, self._tags_now)
                for path, tags in zip(unseen, read, strict=True):
                    if tags:
                        kept.marked[path] = Marks(tags)
                    else:
                        kept.marked.pop(path, None)
            kept.seen.update(notes)  # the search just made, or a read, saw each of them
        return kept.hidden_among(notes)

    async def hidden_now(self, paths: Iterable[str]) -> set[str]:
        """Which of ``paths`` are hidden notes, for showing their text (a search's answer, or
        a later page cut from its first page's snapshot): as the backend's index has them now
        where it tells its changes; else from the notes themselves (a read each, up to
        ``READS_BEFORE_SEARCH``; one new marks search for more), never from kept marks."""
        notes = [path for path in dict.fromkeys(paths) if is_note(path)]
        if not notes:
            return set()
        if self._inner.marks_generation() is not None:
            return await self._hidden(notes)
        if len(notes) > READS_BEFORE_SEARCH:
            kept, _ = await self._kept_marks(fresh=True)
            kept.seen.update(notes)
            return kept.hidden_among(notes)
        tags = await map_bounded(notes, self._tags_now)
        return {path for path, found in zip(notes, tags, strict=True) if HIDDEN in found}

    # --- reads ------------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        folder = normalize_directory(directory)
        if not self.policy.check_folder(folder):
            raise folder_not_found(directory)
        entries = await self._inner.list_directory(folder)
        await self._links()  # after the listing: the folder backend's walk is done by then
        entries = [
            entry
            for entry in entries
            if (
                self.policy.allows_folder(folder + entry)
                if entry.endswith("/")
                else self.policy.allows(folder + entry)
            )
        ]
        hidden = await self._hidden(folder + entry for entry in entries)
        return [entry for entry in entries if folder + entry not in hidden]

    async def list_files_below(self, directory: str) -> list[str] | None:
        folder = normalize_directory(directory)
        if not self.policy.check_folder(folder):
            raise folder_not_found(directory)
        files = await self._inner.list_files_below(folder)
        await self._links()  # after the listing: the folder backend's walk is done by then
        if files is None:
            return None
        files = [path for path in files if self.policy.allows(path)]
        hidden = await self._hidden(files)
        return [path for path in files if path not in hidden]

    async def read_note(self, path: str | None) -> Note:
        if path is None:
            note = await self._inner.read_note(None)
            self._check_resolved(note.path, ACTIVE_NOTE, "read")
            if HIDDEN in marks_in_text(note.path or ".md", note.content):
                raise active_not_found()
            return note
        self.policy.check_read(path)
        note = await self._inner.read_note(path)
        if HIDDEN in marks_in_text(path, note.content):
            raise _missing(path)
        return note

    async def read_file(self, path: str) -> bytes:
        self.policy.check_read(path)
        data = await self._inner.read_file(path)
        if is_note(path) and HIDDEN in marks_in_text(path, data.decode("utf-8", "replace")):
            raise _missing(path)
        return data

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        if path is not None:
            self.policy.check_read(path)
        note = await self._inner.read_note_json(path)
        if path is None:
            self._check_resolved(str(note.get("path", "")), ACTIVE_NOTE, "read")
        if HIDDEN in marks_of_note_json(note):
            raise active_not_found() if path is None else _missing(path)
        await self._links()
        before = note_links_of([{"filename": note.get("path"), "result": note}])
        linked = [
            link
            for key in _LINK_LISTS
            if isinstance(links := note.get(key), list)
            for link in links
            if isinstance(link, str)
        ]
        hidden = await self._hidden(linked)
        for key in _LINK_LISTS:
            if isinstance(links := note.get(key), list):
                note[key] = [
                    p
                    for p in links
                    if not isinstance(p, str) or (self.policy.allows(p) and p not in hidden)
                ]
        if (
            before
            and before[0].unresolved is not None
            and note.get("links") != list(before[0].links)
        ):
            # a link to a hidden or denied file is a link to a missing one: read the note's
            # links again from its text, against the files its JSON names
            reachable = await self._reachable() or self.policy.allows
            row = {"filename": before[0].path, "result": note}
            relinked = await self._relinked(before, reachable, [row])
            note["links"] = list(relinked[0].links)
            note["unresolvedLinks"] = list(relinked[0].unresolved or ())
        return note

    async def read_document_map(self, path: str | None) -> DocumentMap:
        if path is None:
            note = await self._inner.read_note(None)
            path = self._check_resolved(note.path, ACTIVE_NOTE, "read")
            if HIDDEN in marks_in_text(path or ".md", note.content):
                raise active_not_found()
            self.policy.check_read(path)
        else:
            self.policy.check_read(path)
            if is_note(path) and await self._map_hidden(path):
                raise _missing(path)
        return await self._inner.read_document_map(path)

    async def _map_hidden(self, path: str) -> bool:
        """Is the note whose map is asked hidden? A map has no frontmatter values to check,
        and shows the note's headings: where the backend tells its changes, its current
        marked notes decide (by the case-folded path, as a case-insensitive disk may serve
        another case of it); else the note's own text does, one GET (never marks kept a
        while, which may predate its tag)."""
        if self._inner.marks_generation() is None:
            try:
                note = await self._inner.read_note(path)
            except NotFound:
                return False  # the map read says it is missing, in its own words
            return HIDDEN in marks_in_text(path, note.content)
        marked = await self.marked_notes()
        folded = path.casefold()
        return any(
            p.casefold() == folded and m.hidden and self.policy.allows(p) for p, m in marked.items()
        )

    async def note_size(self, path: str) -> int | None:
        self.policy.check_read(path)
        if not is_note(path):
            return await self._inner.note_size(path)
        try:  # what the plugin's size costs anyway: the note's text, which shows its tags
            note = await self._inner.read_note(path)
        except NotFound:
            return None
        return None if HIDDEN in marks_in_text(path, note.content) else len(note.content)

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        note = await self._inner.read_periodic(period, date)
        subject = f"the {period} note"
        named = period.strip().lower()
        absent = periodic_not_found(named, periodic_subject(named, date))
        self._check_resolved(note.path, subject, "read", absent)
        if HIDDEN in marks_in_text(note.path or ".md", note.content):
            raise absent
        return note

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        hits = await self._inner.search_simple(query, context_length)
        await self._links()
        paths = [hit["filename"] for hit in hits]
        if refused := self.policy.refused(paths):
            hits = [hit for hit in hits if hit["filename"] not in refused]
            paths = [hit["filename"] for hit in hits]
        if hidden := await self.hidden_now(paths):  # a hit shows the note's text
            hits = [hit for hit in hits if hit["filename"] not in hidden]
        return hits

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        """The rows of a reachable note. A query that reads link lists, while some note is
        out of reach, is answered over the notes as they would be without those notes
        (``vault/unseen.py``); so is a query that fails, which may have failed on one of
        them (the plugin's error names the note)."""
        reachable = await self._reachable()
        if (
            reachable is not None
            and reads_links(query)
            and (await self._inner.features()).has("links")
        ):
            return await self._visible(await self._without(query, reachable), "filename")
        try:
            rows = await self._inner.search_jsonlogic(query)
        except ObsidianAPIError:
            if reachable is None:
                raise
            rows = await self._without(query, reachable)
        # a query reading only paths and times shows what a listing shows
        return await self._visible(rows, "filename", shows_values=reads_note_values(query))

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        """Dataview resolves links in every field, and vaultgate cannot evaluate DQL itself:
        while some note is out of reach, a query that may read a link is refused."""
        if await self._reachable() is not None and (field := dql_link_field(query)):
            raise InvalidArgument(DQL_READS_LINKS.format(field=field))
        return await self._visible(await self._inner.search_dql(query), "filename")

    async def _reachable(self) -> Callable[[str], bool] | None:
        """Which paths the model may reach, or None when every path a backend names is
        (no hidden note, no allow/deny list, no symbolic link the policy may refuse)."""
        await self._links()
        marked = await self.marked_notes()
        hidden = {path for path, marks in marked.items() if marks.hidden}
        if not hidden and not self.policy.restricts_paths and not self.policy.has_links:
            return None
        allows = self.policy.allows
        return lambda path: path not in hidden and allows(path)

    async def _without(self, query: Any, reachable: Callable[[str], bool]) -> list[dict[str, Any]]:
        """``query`` evaluated here over every reachable note's JSON, its link lists as if
        the unreachable files did not exist: one search for every note's JSON, and a read of
        each note that links to one of them."""
        rows = await self._inner.search_jsonlogic(whole_notes_query(query))
        relinked = await self._relinked(note_links_of(rows), reachable, rows)
        try:
            # in a worker thread: a query may match patterns for seconds (engine/jsonlogic.py)
            notes = rebuilt_notes(rows, relinked)
            return await anyio.to_thread.run_sync(evaluate_notes, query, notes)
        except InvalidQuery as error:
            raise query_failed(str(error)) from None

    async def _relinked(
        self,
        notes: list[NoteLinks],
        reachable: Callable[[str], bool],
        rows: list[dict[str, Any]] | None = None,
    ) -> list[NoteLinks]:
        """``notes`` as they would be without the unreachable files (``unseen.as_if_missing``):
        the notes linking to one are read (their text in ``rows``, when it holds it)."""
        from vaultgate.engine.relink import files_resolver  # the engine's rules, on first use

        affected = linking_unreachable(notes, reachable)
        given = {
            path: text
            for row in rows or ()
            if isinstance(path := row.get("filename"), str)
            and isinstance(data := row.get("result"), dict)
            and isinstance(text := data.get("content"), str)
            and text
        }
        missing = [path for path in affected if path not in given]
        texts = {path: given[path] for path in affected if path in given}
        texts.update(await self._texts(missing))
        files = {note.path for note in notes if reachable(note.path)}
        files.update(target for note in notes for target in note.links if reachable(target))
        return as_if_missing(notes, reachable, texts, files_resolver(files))

    async def _texts(self, paths: list[str]) -> dict[str, str]:
        """The text of each note (one gone meanwhile left out: its links are only
        filtered): a read each for a few, one search for many (which reads every note)."""
        if len(paths) > READS_BEFORE_SEARCH:
            # every note's text: a list of paths to test each note against costs more
            wanted = set(paths)
            return {
                path: text
                for row in await self._inner.search_jsonlogic(NOTE_TEXT)
                if (path := row.get("filename")) in wanted
                and isinstance(text := row.get("result"), str)
            }

        async def text_of(path: str) -> str | None:
            try:
                return (await self._inner.read_note(path)).content
            except NotFound:
                return None

        read = await map_bounded(paths, text_of)
        return {path: text for path, text in zip(paths, read, strict=True) if text is not None}

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        """Only reachable, unhidden notes are ranked at all (filtered before the fusion, so
        none moves a visible note's rank or score), and only they are answered."""
        await self._links()
        marked = await self.marked_notes()
        hidden = {path for path, marks in marked.items() if marks.hidden}
        allows = self.policy.allows

        def visible(path: str) -> bool:
            return path not in hidden and allows(path) and wanted(path)

        found = await self._inner.search_local(query, mode=mode, wanted=visible, limit=limit)
        if found is None:
            return None
        rows = [row for row in found.rows if visible(str(row.get("path", "")))]
        return LocalResults(rows, found.notice)

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        results = await self._inner.search_smart(
            query, folders=folders, exclude_folders=exclude_folders, limit=limit
        )
        return await self._visible(results, "path")

    async def list_tags(self) -> list[dict[str, Any]]:
        """The vault's tag counts, less what the notes a tool may not reach add to them:
        hidden notes (from the marked notes, at no extra request), and, while a rule or a
        link can keep notes out, denied notes and notes listed through a link vaultgate does
        not follow (one JsonLogic search of every note's tags). The plugin counts every
        occurrence (``engine/tags.py``), so each such note's text is read (``_texts``) and
        each of its occurrences taken away, once more for each parent tag; after that
        search, a tag no reachable note carries is left out whatever its count."""
        tags = await self._inner.list_tags()
        marked = await self.marked_notes()
        taken = [path for path, marks in marked.items() if marks.hidden]
        carried: set[str] | None = None  # every tag of a reachable note, when searched
        if self.policy.restricts_paths or self.policy.has_links:
            hidden = set(taken)
            carried = set()
            for row in await self._inner.search_jsonlogic(NOTE_TAGS):
                path, found = str(row.get("filename", "")), row.get("result")
                names = _tag_names(found)
                if not self.policy.allows(path):
                    taken.append(path)
                elif path not in hidden:
                    carried.update(name for tag in names for name in _with_parents(tag))
        if not taken:
            return tags
        less: dict[str, int] = {}
        for text in (await self._texts(taken)).values():
            inline = [tag for _start, _end, tag in inline_tags(text)]
            for tag in counted_tags(parse_frontmatter(text).data, inline):
                for name in _with_parents(tag):
                    less[name] = less.get(name, 0) + 1
        counted = []
        for row in tags:
            count = row.get("count")
            name = str(row.get("name", ""))
            if carried is not None and name not in carried:
                continue
            if isinstance(count, int) and name in less:
                count -= less[name]
                if count <= 0:
                    continue
                row = {**row, "count": count}
            counted.append(row)
        return counted

    # --- writes -----------------------------------------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        target = await self._writable_note(path, "create", content=content)
        try:
            await self._inner.write_note(target, content)
        finally:
            self.forget_marks()

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        target = await self._writable_note(path, "create", content=content)
        try:
            return await self._inner.write_note_if_unchanged(target, expected, content)
        finally:
            self.forget_marks()

    async def append_note(self, path: str | None, content: str) -> None:
        target = await self._writable_note(path, "append")
        try:
            await self._inner.append_note(target, content)
        finally:
            self.forget_marks()

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        target = await self._writable_note(path, "patch", request=request)
        try:
            return await self._inner.patch_note(target, request)
        finally:
            self.forget_marks()

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        target = await self._writable_note(path, "delete")
        try:
            await self._inner.delete_note(target, permanent=permanent)
        finally:
            self.forget_marks()

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        """Delete a file a listing just showed as a file (bulk delete): no folder check, but
        its current tags are read, as for any write."""
        validate_vault_path(path)
        self.policy.check_write(path)
        if is_note(path):
            await self._check_current(path, "delete")
        try:
            await self._inner.delete_note(path, permanent=permanent)
        finally:
            self.forget_marks()

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates | None:
        validate_vault_path(source)
        validate_vault_path(destination)
        self.policy.check_write(source)
        self.policy.check_write(destination)
        if is_note(source) and not source.endswith("/"):
            await self._check_current(source, "move")
        else:
            await self._refuse_folder(source)
        if await self._is_folder(destination):
            raise InvalidArgument(
                f"{destination!r} is a folder. To move the note into it, end the destination "
                f"with '/': {destination.removesuffix('/') + '/'!r}."
            )
        if is_note(destination):
            await self._check_current(destination, "onto", overwrite=overwrite, moving=source)
        else:
            await self._refuse_unicode_twin(destination, moving=source)
        # what the move would rewrite, asked before anything changes (a dry run's answer)
        planned = await self._inner.move_note(
            source, destination, overwrite=overwrite, dry_run=True
        )
        await self._refuse_kept_linkers(source, destination, planned)
        if dry_run:
            return None if planned is None else await self._visible_updates(planned)
        try:
            if overwrite:
                updates = await self._move_replacing(source, destination)
            else:
                updates = await self._inner.move_note(source, destination, overwrite=False)
        finally:
            self.forget_marks()
        return None if updates is None else await self._visible_updates(updates)

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        # Opening shows the note to the user, not to the model, and writes an existing note
        # no more than reading it: no tag forbids it (a missing note is created, as before).
        validate_vault_path(path)
        self.policy.check_write(path)  # opening a missing note creates it
        try:
            await self._inner.open_note(path, new_leaf=new_leaf)
        finally:
            self.forget_marks()

    async def execute_command(self, command_id: str) -> None:
        if self.policy.read_only:
            raise ReadOnlyMode(f"command {command_id}")
        try:
            await self._inner.execute_command(command_id)
        finally:
            self.forget_marks()

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        subject = f"the {period} note"
        if self.policy.read_only:
            raise ReadOnlyMode(subject)
        try:
            note = await self._inner.read_periodic(period, date)
        except NotFound:
            if self.policy.restricts_paths:
                # A note that does not exist yet has no path we could check.
                raise AccessDenied(subject, "create", shown=subject) from None
            # Let the plugin create it: it applies the user's periodic-note template.
            try:
                await self._inner.append_periodic(period, content, date)
            finally:
                self.forget_marks()
            return
        named = period.strip().lower()
        absent = periodic_not_found(named, periodic_subject(named, date))
        path = self._check_resolved(note.path, subject, "write", absent)
        check_write("append", path, marks_in_text(path or ".md", note.content), shown=subject)
        try:
            await self._inner.append_note(path, content)
        finally:
            self.forget_marks()

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        validate_vault_path(name)
        # the note written is the target with its .md (the client sends it so): checked as such
        target = template_target(target_path) if create_file and target_path is not None else None
        if target is not None:
            validate_vault_path(target)
        self.policy.check_read(name)
        if is_note(name):  # the companion reads the template itself: look at its tags first
            try:
                template = await self._inner.read_note(name)
            except NotFound:
                pass  # the companion says it is missing, in its own words
            else:
                if HIDDEN in marks_in_text(name, template.content):
                    raise template_not_found(name)
        if target is not None:
            self.policy.check_write(target)
            await self._check_current(target, "create")
        try:
            return await self._inner.execute_template(
                name, arguments, create_file=create_file, target_path=target or target_path
            )
        finally:
            if create_file:
                self.forget_marks()

    # --- helpers ----------------------------------------------------------------------------

    async def _writable_note(
        self,
        path: str | None,
        kind: WriteKind,
        *,
        content: str | None = None,
        request: PatchRequest | None = None,
    ) -> str:
        """The vault path a single-note write goes to, checked: read-only, hidden, policy,
        not a folder, and the note's current protection tags. None (the active note) is
        resolved to its path first, from a read that shows its tags too."""
        if self.policy.read_only:
            raise ReadOnlyMode(path if path is not None else ACTIVE_NOTE)
        if path is None:
            note = await self._inner.read_note(None)
            resolved = self._check_resolved(note.path, ACTIVE_NOTE, "write")
            marks = marks_in_text(resolved or ".md", note.content)
            if HIDDEN in marks:
                raise active_not_found()
            check_write(
                kind,
                resolved,
                marks,
                shown=ACTIVE_NOTE,
                content=content,
                **_patch_check(marks, request, note.content),
            )
            return resolved
        validate_vault_path(path)
        self.policy.check_write(path)
        if is_note(path) and not path.endswith("/"):
            await self._check_current(path, kind, content=content, request=request)
        else:
            await self._refuse_folder(path)
        return path

    async def _check_current(
        self,
        path: str,
        kind: WriteKind,
        *,
        content: str | None = None,
        request: PatchRequest | None = None,
        overwrite: bool = True,
        moving: str | None = None,
    ) -> None:
        """Read the note as it is now and apply its tags to this write (NotANote for a
        folder, as the plugin answers a folder's path with its listing). A hidden note
        answers, where the write needs the note to exist, what a missing note answers.
        ``moving``: the source of a move onto ``path``."""
        try:
            note = await self._inner.read_note(path)
        except NotFound:
            # nothing there to protect: the write creates it, or the backend says so
            if kind in _CREATING:
                await self._refuse_unicode_twin(path, moving=moving)
            return
        marks = marks_in_text(path, note.content)
        if HIDDEN in marks and kind in ("patch", "delete", "move"):
            raise await self._missing_for(path, kind, request)
        if kind == "onto" and not overwrite and HIDDEN not in marks:
            return  # the backend refuses to move onto an existing note without overwrite
        check_write(
            kind, path, marks, content=content, **_patch_check(marks, request, note.content)
        )

    async def _missing_for(
        self, path: str, kind: WriteKind, request: PatchRequest | None
    ) -> NotFound:
        """What the backend answers for this write to a missing note (a patch's 404 on 5.x
        may also mean a missing target, and says so)."""
        call = note_call(path)
        if kind == "patch" and request is not None:
            call = patch_call(call, request, (await self._inner.features()).version)
        return NotFound(call.subject, str(call.not_found))

    def _check_resolved(
        self, path: str, subject: str, action: str, absent: NotFound | None = None
    ) -> str:
        """Check a path the plugin reported (the model never gave it, so it is never named).
        A note that is a link vaultgate does not follow answers ``absent`` (by default what
        no open note answers), as a hidden note does."""
        if not path:
            if action == "read" and not self.policy.restricts_paths:
                return path
            raise PathUnknown(subject)
        # the policy refuses a hidden path as hidden, naming only ``subject``
        try:
            if action == "read":
                self.policy.check_read(path, shown=subject)
            else:
                self.policy.check_write(path, shown=subject)
        except LinkNotFollowed:
            raise (absent or active_not_found()) from None
        return path

    async def _refuse_folder(self, path: str) -> None:
        if await self._is_folder(path):
            raise NotANote(path)

    async def _is_folder(self, path: str) -> bool:
        """Does ``path`` name a folder? By its slash, else by its parent's listing."""
        if path.endswith("/"):
            return True
        parent, _, name = path.rpartition("/")
        try:
            entries = await self._inner.list_directory(parent)
        except NotFound:
            return False  # no parent folder, so no folder of that name either
        return f"{name}/" in entries

    async def _refuse_kept_linkers(
        self, source: str, destination: str, planned: LinkUpdates | None
    ) -> None:
        """MoveRewritesKept if the move's link updates would write a note vaultgate never
        writes: tagged ``mcp-readonly`` or ``mcp-protected`` (named), or out of reach, hidden
        by its tags or the policy (counted, never named). Each reachable note is read now, as
        any write reads the note it writes."""
        linkers = await self._linkers(source, destination, planned)
        if not linkers:
            return
        await self._links()
        unshown = sum(not self.policy.allows(path) for path in linkers)
        reachable = [path for path in linkers if self.policy.allows(path) and is_note(path)]
        kept: list[tuple[str, str]] = []
        for path, tags in zip(reachable, await map_bounded(reachable, self._tags_now), strict=True):
            if HIDDEN in tags:
                unshown += 1
            elif tags & KEPT:
                kept.append((path, READONLY if READONLY in tags else PROTECTED))
        if kept or unshown:
            raise MoveRewritesKept(source, destination, tuple(kept), unshown)

    async def _linkers(
        self, source: str, destination: str, planned: LinkUpdates | None
    ) -> list[str]:
        """The notes other than the moved one whose links the move rewrites. vaultgate's own
        move plans them (``planned``); Obsidian's rename (MOVE, 4.1+) rewrites the note's
        backlinks, from its note JSON: which of their link texts change is Obsidian's to
        decide, so each backlink counts. A plugin without MOVE copies and deletes, and
        rewrites no link."""
        if planned is not None:  # the moved note itself is named as after the move
            return [path for path, _ in planned.notes if path != destination]
        if not (await self._inner.features()).has("move"):
            return []
        if not is_markdown(source):  # its note JSON would wait out the metadata cache
            backlinks: Any = await linking_notes(self._inner, source)
        else:
            backlinks = (await self._inner.read_note_json(source)).get("backlinks")
        if not isinstance(backlinks, list):
            return []
        return list(dict.fromkeys(p for p in backlinks if isinstance(p, str) and p != source))

    async def _tags_now(self, path: str) -> frozenset[str]:
        try:
            note = await self._inner.read_note(path)
        except NotFound:
            return frozenset()  # gone: nothing there to write
        return marks_in_text(path, note.content)

    async def _visible_updates(self, updates: LinkUpdates) -> LinkUpdates:
        """Notes the policy or their tags hide are counted, never named: their links follow
        the move too (as in Obsidian), under the one name ``HIDDEN_NOTES``."""
        named = [path for path, _ in updates.notes] + [*updates.stranded, *updates.failed]
        await self._links()
        tagged = await self._hidden(named)

        def shown(path: str) -> bool:
            return self.policy.allows(path) and path not in tagged

        hidden = [(path, n) for path, n in updates.notes if not shown(path)]
        if not hidden and not tagged:
            return updates
        notes = [(path, n) for path, n in updates.notes if shown(path)]
        if hidden:
            notes.append((HIDDEN_NOTES.format(len(hidden)), sum(n for _, n in hidden)))
        return LinkUpdates(
            notes=tuple(notes),
            stranded=tuple(p for p in updates.stranded if shown(p)),
            failed=tuple(p for p in updates.failed if shown(p)),
        )

    async def _visible(
        self, rows: list[dict[str, Any]], key: str, *, shows_values: bool = True
    ) -> list[dict[str, Any]]:
        """Rows about reachable notes; paths of hidden notes are also taken out of the lists
        in each row's result (a query for links or backlinks returns paths). A row that
        ``shows_values`` of its note (its text, its frontmatter) is shown only if that note,
        as it is now, is not hidden (``hidden_now``); one that shows what a listing shows is
        decided as a listing is (``_hidden``)."""
        await self._links()
        rows = [row for row in rows if self.policy.allows(str(row.get(key, "")))]
        if not rows:
            return rows
        named = (str(row.get(key, "")) for row in rows)
        now = await (self.hidden_now(named) if shows_values else self._hidden(named))
        marked = await self.marked_notes()
        hidden = now | {path for path, marks in marked.items() if marks.hidden}
        allows = self.policy.allows

        def shown(item: str) -> bool:
            return item not in hidden and (not _names_a_file(item) or allows(item))

        return [
            {**row, "result": _without(row["result"], shown)} if "result" in row else row
            for row in rows
            if str(row.get(key, "")) not in hidden
        ]

    # --- a move onto an existing note, and names in another Unicode form (issue 21) ---------

    async def _move_replacing(self, source: str, destination: str) -> LinkUpdates | None:
        """A checked move with overwrite=true that asks no backend to overwrite (which
        deletes for good): the note at the destination goes to the trash the way
        ``delete_note(permanent=False)`` sends it on this backend (the plugin's own DELETE:
        Obsidian's trash from 5.0, deleted for good before), then the source moves onto the
        free name.

        What the move itself checks (the source is a note, MOVE exists) is asked first, so
        nothing is trashed for a move that cannot happen. If the move fails after the trash,
        ReplacedButNotMoved says where the replaced note went; the source is not moved.
        """
        if same_name(source, destination):
            # another case or Unicode form of the source: on a disk that ignores those it is
            # the source itself, which must not go to the trash
            try:
                return await self._inner.move_note(source, destination, overwrite=False)
            except DestinationExists:
                raise InvalidArgument(
                    f"{destination!r} differs from {source!r} only in letter case or Unicode "
                    "form, so overwrite=true does not replace it (where the disk ignores "
                    f"those, it is {source!r} itself). If it is another note, delete it first."
                ) from None
        features = await self._inner.features()
        features.require("move", action="Moving a note with MOVE")
        await self._inner.move_note(source, destination, overwrite=True, dry_run=True)
        try:
            await self._inner.delete_note(destination, permanent=False)
        except NotFound:  # gone meanwhile: nothing to replace
            return await self._inner.move_note(source, destination, overwrite=False)
        try:
            return await self._inner.move_note(source, destination, overwrite=False)
        except VaultgateError as error:
            trashed = features.has("trash_delete")
            raise ReplacedButNotMoved(
                source, destination, error, trashed=trashed, version=str(features.version)
            ) from error

    async def _refuse_unicode_twin(self, path: str, *, moving: str | None = None) -> None:
        """UnicodeTwin if creating ``path`` makes a name (the note's, or a folder's it
        creates) that exists in another Unicode form. The nearest existing folder above the
        note is listed (one request when its folder exists, one more for each folder to be
        made) and the first new name compared there. ``moving``: a move's source, which may
        be that twin (a rename to the other form leaves one name)."""
        if not may_have_twin(path):
            return
        parts = path.removesuffix("/").split("/")
        for depth in range(len(parts) - 1, -1, -1):
            folder = "".join(f"{part}/" for part in parts[:depth])
            try:
                entries = await self._inner.list_directory(folder)
            except NotFound:
                continue  # this folder is to be made too: compare its name one level up
            twin = unicode_twin(parts[depth], entries)
            if twin is None or folder + twin == moving:
                return
            existing = folder + twin
            reachable = (
                self.policy.allows_folder(existing)
                if existing.endswith("/")
                else self.policy.allows(existing) and not await self._hidden([existing])
            )
            raise UnicodeTwin(path, existing if reachable else None)

    # --- every note's links (issue 13) ------------------------------------------------------

    async def note_links(self) -> list[NoteLinks]:
        """Only reachable notes (allowed, not tagged ``mcp-hidden``), with their links as if
        the unreachable files did not exist (``vault/unseen.py``): a note linked from hidden
        or denied notes alone counts as linked from nowhere the model can reach, and a link to
        one of them is a link to a missing note (unresolved, where the backend lists those),
        so broken links are no test of existence."""
        links = await self._inner.note_links()
        reachable = await self._reachable()
        if reachable is None:
            return links
        return await self._relinked(links, reachable)


def _missing(path: str) -> NotFound:
    """What reading a missing note answers (a hidden note answers the same)."""
    call = note_call(path)
    return NotFound(call.subject, str(call.not_found))


def _without(value: Any, shown: Callable[[str], bool]) -> Any:
    """``value`` with the paths that may not be shown taken out of every list in it."""
    if isinstance(value, list):
        return [
            _without(item, shown)
            for item in value
            if not (isinstance(item, str) and not shown(item))
        ]
    if isinstance(value, dict):
        return {key: _without(item, shown) for key, item in value.items()}
    return value


def _tag_names(found: Any) -> list[str]:
    """The tags a ``NOTE_TAGS`` result names: its frontmatter's under any tag key, and the
    listed ones (the inline tags among them)."""
    if not isinstance(found, list) or len(found) < 2:
        return []
    frontmatter = found[0] if isinstance(found[0], dict) else {}
    listed = [tag for tag in found[1] if isinstance(tag, str)] if isinstance(found[1], list) else []
    return [*frontmatter_tags(frontmatter), *listed]


def _with_parents(tag: str) -> list[str]:
    """'a/b/c' → ['a/b/c', 'a', 'a/b']: a nested tag counts for each tag above it too."""
    parts = tag.split("/")
    return [name for name in [tag, *("/".join(parts[:i]) for i in range(1, len(parts)))] if name]


def _names_a_file(value: str) -> bool:
    """Does a string in a query's result read as a vault path ('a/b.png', 'note.md'), which
    the policy then decides on? Other strings (tags, titles) are values, kept as they are."""
    return value.endswith(".md") or ("/" in value and "." in value.rsplit("/", 1)[1])


def _patch_check(
    marks: frozenset[str], request: PatchRequest | None, before: str
) -> dict[str, Any]:
    """What ``check_write`` needs to tell whether a patch keeps ``mcp-protected``: the patch
    and the text before it, and for a heading or block patch on a protected note the text it
    is expected to leave (an inline tag may be in what it changes)."""
    if request is None:
        return {}
    patched = None
    if PROTECTED in marks and request.target_type != "frontmatter":
        patched = patched_text(before, request)
    return {"patch": (request, before), "patched": patched}
