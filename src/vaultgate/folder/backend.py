"""The vault folder as a backend: the engine called directly, answering as the plugin does.

Each method does what the matching plugin request does in the emulator (the engine's
functions, with the behaviour of the newest plugin: ``FOLDER_SEMANTICS``), and hands the
tools the same shapes and the same errors as ``ObsidianClient``. An engine failure becomes
the plugin's error answer (``emulator.apierrors``, which loads no HTTP) and then the
client's error for that answer and that call (``client.error_for``), so a message reads
the same whichever backend served it. What only Obsidian can do raises NeedsObsidian.

Engine calls run in a worker thread, one at a time: a search over a large vault does not
stall the event loop, and no two calls change the vault at once.

While the server runs (``running``) the vault index (``folder/indexing.py``) narrows simple
searches to the notes that may match and answers tag counts; the folder's own pass scores
the candidates and builds each hit's matches only when a page shows them
(``folder/search.py``); JsonLogic takes each note's metadata from it
(``folder/structured.py``). Before the index answers (a first build, or none could be
opened), searches read every note, with the same answers.
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx

from vaultgate.backend import (
    BackendReport,
    LinkUpdates,
    LocalMode,
    LocalResults,
    Note,
    NoteLinks,
    ServerStatus,
    search_note_links,
)
from vaultgate.emulator.apierrors import PATCH_V2_ERRORS, ApiError, from_engine, from_patch_v2
from vaultgate.engine import relink, writes
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import ChangedOnDisk, EngineError, NotAFile
from vaultgate.engine.jsjson import js_value
from vaultgate.engine.patch import patch_v2
from vaultgate.engine.relink import RelinkPlan
from vaultgate.engine.representations import document_map, note_json
from vaultgate.engine.search import jsonlogic_search, tag_counts
from vaultgate.engine.simple_search import SimpleSearchOptions
from vaultgate.engine.vault import Vault
from vaultgate.engine.vaultfs import sweep_temporaries
from vaultgate.engine.walk import FolderScan
from vaultgate.errors import (
    LocalSearchUnavailable,
    NameTooLong,
    NeedsObsidian,
    NotANote,
    NoteChanged,
    NotFound,
    ObsidianError,
)
from vaultgate.folder import local_search
from vaultgate.folder.head_start import HeadStart
from vaultgate.folder.indexed_marks import IndexedMarks
from vaultgate.folder.indexing import KeptIndex, Mirrors, built_share
from vaultgate.folder.marks import MarkScan
from vaultgate.folder.meaning import MeaningIndex
from vaultgate.folder.search import (
    NoteTexts,
    SearchedTexts,
    TextsByPath,
    collector_paused,
    engine_search,
    scored_search,
)
from vaultgate.folder.structured import LinkedNotes, indexed_jsonlogic
from vaultgate.folder.tree import FolderTree
from vaultgate.locations import LinkMap, LinkRules, served_links
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.client import (
    Call,
    delete_call,
    error_for,
    folder_not_found,
    move_call,
    note_call,
    patch_call,
)
from vaultgate.obsidian.encoding import require_whole_characters, utf8
from vaultgate.obsidian.features import FeatureSet, Version
from vaultgate.obsidian.models import (
    NOTE_JSON,
    STRUCTURED_RESULTS,
    DocumentMapAnswer,
    SimpleHit,
    TagsAnswer,
)
from vaultgate.obsidian.patch import encode_patch
from vaultgate.patch_request import PatchRequest
from vaultgate.paths import is_hidden, normalize_directory, validate_vault_path
from vaultgate.progress import report
from vaultgate.protection import Marks
from vaultgate.semantic.embedder import load_embedder, why_unavailable

_T = TypeVar("_T")

# The plugin whose answers the folder gives: 5.1.0's, with search contexts cut at whole
# characters (the fix after 5.1.0; see engine/simple_search.py).
FOLDER_SEMANTICS = Version(5, 1, 1)
SERVICE = "vaultgate folder backend"
# Once the index is up to date, its texts are read into memory, WARM_BATCH notes at a time;
# each batch waits until no call has run for IDLE_SECONDS, so that start-up's background work
# never slows the calls it is meant to speed up.
WARM_BATCH = 500
IDLE_SECONDS = 0.5

# What needs Obsidian itself, by the name a message gives it.
OBSIDIAN_ONLY = (
    "the note open in Obsidian",
    "opening a note in Obsidian",
    "Obsidian's commands",
    "periodic notes",
    "Templater templates",
    "semantic (smart) search",
    "Dataview DQL search",
)
_BUSY_NOTE = "Another program kept changing it while vaultgate tried; read it again, then retry."
_SET_ASIDE = (
    "Two other programs wrote it at that instant: the version one of them had put there is "
    "kept as {copy!r} (a conflicted copy, as sync clients make), for the user to merge. "
)
_NOT_ASKED = (
    "VAULTGATE_BACKEND=folder never contacts Obsidian. To use it, set VAULTGATE_BACKEND=auto "
    "and start Obsidian."
)


class FolderBackend:
    """A vault folder served through ``vaultgate.engine``; never contacts Obsidian."""

    def __init__(
        self,
        folder: Path,
        *,
        index_location: Path | None = None,
        head_start: HeadStart | None = None,
        links: LinkRules | None = None,
    ) -> None:
        """Nothing is read yet: the folder is walked in ``running`` (in the background) or by
        the first call made outside it. ``index_location``: the vault index file (default:
        under the user cache folder). ``head_start``: the command line's child process
        already walking the folder and catching the index up (``head_start.py``). ``links``:
        the symbolic links served (``vaultgate.locations``; by default, only those leading
        to unhidden places inside the vault)."""
        self.folder = folder
        self._vault = Vault(folder, scan=False, links=links or served_links("inside"))
        self._behaviour = Behaviour.for_version(str(FOLDER_SEMANTICS))
        # re-entrant: the index's refresh, called inside a locked write, updates the Vault
        self._lock = threading.RLock()
        self._tree: FolderTree | None = None
        self._texts = NoteTexts(self._vault.vault)
        self._searched = SearchedTexts()  # the index's texts, kept current by the index
        self._linked = LinkedNotes()
        self._mark_scan = MarkScan(self._vault)  # the marked notes until the index answers
        self._calls, self._last_call = 0, 0.0  # calls under way; when the last one ended
        self._marks = IndexedMarks()  # the index's marked notes, kept until it changes
        # the note vectors join when the model loads
        self._mirrors = Mirrors(self._searched, self._marks)
        self._meaning: MeaningIndex | None = None  # while running, with the semantic extra
        self._no_meaning = "the vault index is not open yet"  # why _meaning is None
        self._meaning_settled = anyio.Event()  # set in running: the model loaded, or cannot be
        self._index = KeptIndex(
            self._vault.vault,
            self._vault,
            self._lock,
            index_location,
            after_sync=self._settle,
            mirror=self._mirrors,
            head_start=head_start,
            wait_idle=self._wait_idle,
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the server runs: the folder walked, the vault index synced and watched, all
        in the background; calls wait for what they need."""
        self._last_call = time.monotonic()  # the client's first call is near: not idle yet
        failure: Exception | None = None  # the server's, raised as it is, not in a group
        self._meaning_settled = anyio.Event()
        async with self._index.running():
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._keep_meaning)
                try:
                    yield
                except Exception as exc:
                    failure = exc
                finally:
                    tasks.cancel_scope.cancel()
            if failure is not None:
                raise failure

    async def _keep_meaning(self) -> None:
        """With the semantic extra: load the model (in a thread: a third of a second), then
        keep every note's vector in the index and in memory (``folder/meaning.py``)."""
        settled, embedder = self._meaning_settled, None
        try:
            embedder = await anyio.to_thread.run_sync(load_embedder, abandon_on_cancel=True)
        finally:
            if embedder is None:
                self._no_meaning = why_unavailable() or "the model could not be loaded"
                settled.set()
        if embedder is None:
            return
        meaning = MeaningIndex(embedder)
        self._mirrors.add(meaning.vectors)  # before the first sync ends: nothing missed
        self._meaning = meaning
        try:
            await meaning.keep_running(self._index, settled)
        finally:
            self._meaning = None
            settled.set()

    async def wait_until_indexed(self) -> bool:
        """Wait for the index's first sync (inside ``running``); whether the index answers."""
        return await self._index.wait_synced()

    async def wait_until_settled(self) -> None:
        """Wait for start-up's background work (inside ``running``): the index synced, old
        temporary files swept, the index's texts in memory and the folder tree built."""
        await self._index.wait_settled()

    # --- server -----------------------------------------------------------------------------

    async def status(self) -> ServerStatus:
        return ServerStatus(
            authenticated=True,
            plugin_version=FOLDER_SEMANTICS,
            obsidian_version="",
            service=SERVICE,
            certificate_days_left=None,
            extensions=[],
        )

    async def refresh_status(self) -> ServerStatus:
        return await self.status()

    async def features(self) -> FeatureSet:
        return FeatureSet(FOLDER_SEMANTICS)

    def report(self) -> BackendReport:
        return BackendReport("folder", str(self.folder), None, OBSIDIAN_ONLY)

    def link_map(self) -> LinkMap | None:
        return self._vault.link_map  # from the last walk: kept current by the watcher

    def generation(self) -> int | None:
        return self._index.generation()

    async def plugin_status(self) -> ServerStatus:
        raise NeedsObsidian("Asking Obsidian", _NOT_ASKED)

    # --- reading ----------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        folder = normalize_directory(directory)
        entries = await self._run(lambda: self._current_tree().listing(folder))
        if entries is None:
            raise folder_not_found(directory)
        return entries

    async def list_files_below(self, directory: str) -> list[str] | None:
        folder = normalize_directory(directory)
        files = await self._run(lambda: self._current_tree().files_below(folder))
        if files is None:
            raise folder_not_found(directory)
        return files

    async def read_note(self, path: str | None) -> Note:
        path = _note_path(path, "Reading")
        call = note_call(path)
        data = await self._engine(lambda: self._file_bytes(path), call)
        return Note(path=path, content=data.decode("utf-8", errors="replace"))

    async def read_file(self, path: str) -> bytes:
        path = _note_path(path, "Reading")
        return await self._engine(lambda: self._file_bytes(path), note_call(path))

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        path = _note_path(path, "Reading")
        call = note_call(path)

        def described() -> dict[str, Any]:
            self._require_indexed_note(path)
            return js_value(note_json(self._vault, path, self._behaviour))  # type: ignore[no-any-return]

        return NOTE_JSON.validate_python(await self._engine(described, call))

    async def read_document_map(self, path: str | None) -> DocumentMap:
        path = _note_path(path, "Reading")
        call = note_call(path)

        def mapped() -> dict[str, Any]:
            self._require_indexed_note(path)
            return document_map(self._vault, self._behaviour, path, version=2)

        answer = await self._engine(mapped, call)
        return DocumentMapAnswer.model_validate(answer).normalised()

    async def note_size(self, path: str) -> int | None:
        try:
            note = await self.read_note(path)
        except NotFound:
            return None
        return len(note.content)

    # --- searching --------------------------------------------------------------------------

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        """The plugin's simple search; each hit's matches are built when first read."""
        require_whole_characters(query, "query")
        options = SimpleSearchOptions.for_version(self._behaviour, query, context_length)
        kept = self._index
        if kept.building:  # searches read every note until the first build ends
            share = built_share(kept.done, kept.total)
            await report(
                share or 0,
                100,
                f"building the vault index ({share if share is not None else '?'}% done); "
                "this search reads the notes meanwhile",
            )

        def search() -> list[SimpleHit]:
            with collector_paused():
                hits, candidates = scored()
            return engine_search(self._vault, options, candidates) if hits is None else hits

        def scored() -> tuple[list[SimpleHit] | None, set[str] | None]:
            index = kept.index
            # (asked first: the watcher's health when the candidates are taken, not after)
            watched = kept.watched
            listed = index.candidates(query) if index is not None else None
            candidates = None if listed is None else set(listed)
            indexed: TextsByPath | None = None
            if index is not None and listed is not None:
                indexed = self._searched  # mostly all there: no copy of thousands
                if missing := self._searched.missing(listed):  # not in memory (yet)
                    found = self._searched.found(listed)  # (kept while the file's are added)
                    fetched = index.texts(missing) or []
                    self._searched.fill(fetched)
                    found.update((text.path, text) for text in fetched)
                    indexed = found
            hits = scored_search(
                self._vault, self._texts, options, candidates, indexed, watched=watched
            )
            return hits, candidates

        return await self._engine(search, Call("/search/simple/", ""))

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        # the plugin's JSON body parser sees the query as JSON text: send it the same way
        parsed = json.loads(json.dumps(query))

        def search() -> Any:
            index = self._index.index
            rows = (
                indexed_jsonlogic(
                    self._vault, index, self._linked, self._texts, self._behaviour, parsed
                )
                if index is not None
                else None
            )
            if rows is None:
                rows = jsonlogic_search(self._vault, self._behaviour, parsed)
            return js_value(rows)

        rows = await self._engine(search, Call("/search/", ""))
        return [dict(row) for row in STRUCTURED_RESULTS.validate_python(rows)]

    def marks_generation(self) -> tuple[int, int] | None:
        """The index's generation for its marked notes; None until the index answers (the
        notes' bytes answer then, ``folder/marks.py``)."""
        index = self._index.index
        if index is None or not index.ready:
            return None
        return id(index), self._marks.generation

    async def marked_notes(self) -> dict[str, Marks]:
        """The notes carrying a protection tag: from the index, the notes whose frontmatter
        or tags mention 'mcp-' (as current as the index's tag counts); before the index
        answers, from every note's bytes (``folder/marks.py``). The index's answer is kept
        until the index changes (``folder/indexed_marks.py``)."""

        def found() -> dict[str, Marks]:
            index = self._index.index
            marked = self._marks.marked(index) if index is not None else None
            return self._mark_scan.marked() if marked is None else marked

        return await self._engine(found, Call("/search/", ""))

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        raise NeedsObsidian("Dataview DQL search", _NOT_ASKED)

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        raise NeedsObsidian("Semantic search (Smart Connections)", _NOT_ASKED)

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        await self._opened()
        index = self._index.index
        if index is None or not index.ready:
            raise LocalSearchUnavailable(self._not_indexed())
        if self._index.opening:  # the model loaded, the stored vectors read: milliseconds
            await self._meaning_settled.wait()
        meaning, notice = self._meaning, None
        if meaning is None or not meaning.loaded:
            if mode == "semantic":
                raise LocalSearchUnavailable(
                    f"Search by meaning is not available: {self._meaning_missing(meaning)} "
                    "Meanwhile mode='keyword' ranks notes by their words, from the same index."
                )
            if mode == "hybrid":
                notice = f"Ranked by words only: {self._meaning_missing(meaning)}"
            mode, meaning = "keyword", None
        else:
            await meaning.catch_up(index)
        root = str(self._vault.vault)

        def ranked() -> LocalResults:
            rankings = local_search.rank(
                meaning, index, query, wanted, local_search.RANK_DEPTH, mode
            )
            if rankings is None:
                raise LocalSearchUnavailable(self._not_indexed())
            return local_search.answer(rankings, mode, root, limit, notice)

        return await self._run(ranked)

    def _not_indexed(self) -> str:
        kept = self._index
        if kept.building:
            share = built_share(kept.done, kept.total)
            progress = f" ({share}% done)" if share is not None else ""
            return (
                f"The vault index is being built{progress}; search by words or meaning answers "
                "once it is. Meanwhile search_simple finds notes holding every word."
            )
        return (
            "The vault index could not be opened (see the server's log), so notes cannot be "
            "ranked by words or meaning. search_simple finds notes holding every word."
        )

    def _meaning_missing(self, meaning: MeaningIndex | None) -> str:
        if meaning is not None:  # loaded, not yet read its vectors from the index
            return "the note vectors are being loaded; ask again in a moment."
        return f"{self._no_meaning}."

    async def list_tags(self) -> list[dict[str, Any]]:
        def counted() -> list[tuple[str, int]]:
            index = self._index.index
            counts = index.tag_counts() if index is not None else None
            return tag_counts(self._vault) if counts is None else counts

        counts = await self._engine(counted, Call("/tags/", ""))
        answer = TagsAnswer.model_validate(
            {"tags": [{"name": name, "count": n} for name, n in counts]}
        )
        return list(answer.tags)

    async def note_links(self) -> list[NoteLinks]:
        return await search_note_links(self)  # the index's links, as a search sees them

    # --- writing ----------------------------------------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        path = _note_path(path, "Writing")
        data = utf8(content, "content")

        def write() -> None:
            writes.check_file_path(self._vault, path)
            writes.write(self._vault, path, data)
            self._written(path)

        await self._engine(write, note_call(path))

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        path = _note_path(path, "Writing")
        utf8(content, "content")

        def write() -> bool:
            writes.check_file_path(self._vault, path)
            written = writes.write_if_unchanged(self._vault, path, expected, content)
            if written:
                self._written(path)
            return written

        return await self._engine(write, note_call(path))

    async def append_note(self, path: str | None, content: str) -> None:
        path = _note_path(path, "Appending")
        utf8(content, "content")

        def append() -> None:
            writes.check_file_path(self._vault, path)
            writes.append(self._vault, path, content)
            self._written(path)

        await self._engine(append, note_call(path))

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        path = _note_path(path, "Patching")
        # the instruction the plugin would receive, so it is validated the same way
        _headers, body = encode_patch(request, FOLDER_SEMANTICS)
        candidate = json.loads(body)
        call = patch_call(note_call(path), request, FOLDER_SEMANTICS)

        def patch() -> str:
            if not path or path.endswith("/"):
                raise NotAFile(path)
            try:
                document = patch_v2(self._vault, path, candidate).document
            except PATCH_V2_ERRORS as error:
                raise _Answered(from_patch_v2(error)) from None
            self._written(path)
            return document

        return await self._engine(patch, call)

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        path = _note_path(path, "Deleting")
        call = delete_call(note_call(path))

        def delete() -> None:
            writes.delete(self._vault, path, to_trash=not permanent)
            self._texts.forget(path)
            if (index := self._index.index) is not None:
                index.note_removed(path)

        await self._engine(delete, call)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        await self.delete_note(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates:
        """Move the note and rewrite the links to it in every note (engine/relink.py), as
        Obsidian does; a dry run plans the same and changes nothing."""
        validate_vault_path(source)
        validate_vault_path(destination)
        call = move_call(note_call(source), destination)

        def move() -> RelinkPlan:
            if not source or source.endswith("/"):
                raise NotAFile(source)
            plan = writes.move(
                self._vault,
                source,
                destination,
                overwrite=overwrite,
                dry_run=dry_run,
                candidates=self._relink_candidates(source, destination),
            )
            if not dry_run:
                self._moved(plan)
            return plan

        plan = await self._engine(move, call)
        return LinkUpdates(
            notes=tuple((note.path, note.links) for note in plan.notes),
            stranded=tuple(dict.fromkeys(link.path for link in plan.stranded)),
            failed=plan.failed,
        )

    async def changed_elsewhere(self, paths: Sequence[str]) -> None:
        """Another writer (Obsidian, asked through the plugin) has just changed, created or
        removed these vault paths: the file list, the texts and the index learn it now, so
        the next read, listing or search sees it without waiting for the watcher (which
        sees it too, later, and finds nothing left to do)."""

        def learn() -> None:
            for path in paths:
                self._texts.forget(path)
                if self._vault.on_disk(path) == "file":
                    self._vault.record_write(path)
                else:
                    self._vault.record_delete(path)
            if (index := self._index.index) is not None:
                index.refresh(paths)

        await self._run(learn)

    def _relink_candidates(self, source: str, destination: str) -> list[str] | None:
        """The notes a move may have to relink, from the index: those with a link whose name
        the move concerns, and any the index does not hold as it is on disk now (new, or
        changed since its last update). None (read every note) while the index is not ready."""
        index = self._index.index if self._index.ready else None
        rows = index.notes() if index is not None else None
        if rows is None:
            return None
        names = relink.moved_names(source, destination)
        indexed = {row.path: row for row in rows}
        picked = []
        for path in self._vault.markdown_files():
            row = indexed.get(path)
            if row is None or any(relink.link_name(link) in names for link in row.links):
                picked.append(path)
                continue
            try:
                st = os.stat(self._vault.disk_path(path))
            except OSError:
                continue
            if (st.st_mtime_ns, st.st_size) != (row.mtime_ns, row.size):
                picked.append(path)
        return picked

    # --- only Obsidian ----------------------------------------------------------------------

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        raise NeedsObsidian("Opening a note in Obsidian", _NOT_ASKED)

    async def list_commands(self) -> list[dict[str, Any]]:
        raise NeedsObsidian("Listing Obsidian's commands", _NOT_ASKED)

    async def execute_command(self, command_id: str) -> None:
        raise NeedsObsidian("Running an Obsidian command", _NOT_ASKED)

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        raise NeedsObsidian("Reading a periodic note by its period", _NOT_ASKED)

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        raise NeedsObsidian("Appending to a periodic note by its period", _NOT_ASKED)

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        raise NeedsObsidian("Running a Templater template", _NOT_ASKED)

    async def aclose(self) -> None:
        return None

    # --- the engine, in a worker thread -----------------------------------------------------

    async def _run(self, work: Callable[[], _T]) -> _T:
        self._calls += 1
        try:
            await self._opened()

            def locked() -> _T:
                with self._lock:
                    return work()

            return await anyio.to_thread.run_sync(locked)
        finally:
            self._calls -= 1
            self._last_call = time.monotonic()

    async def _opened(self) -> None:
        """The folder walked: by ``running``'s background work, or now, outside it."""
        kept = self._index
        if kept.opening:
            await kept.wait_opened()
        elif not kept.listed:
            await anyio.to_thread.run_sync(self._list_now)

    def _list_now(self) -> None:
        with self._lock:
            if not self._index.listed:
                self._vault.refresh()
                self._index.listed = True

    async def _engine(self, work: Callable[[], _T], call: Call) -> _T:
        """Run ``work``; an engine failure is the client's error for the plugin's answer."""
        try:
            return await self._run(work)
        except _Answered as answered:
            raise _client_error(answered.error, call) from None
        except ChangedOnDisk as error:  # the plugin has no such answer: say what happened
            kept = _SET_ASIDE.format(copy=error.set_aside) if error.set_aside else ""
            raise NoteChanged(error.path, kept + _BUSY_NOTE) from None
        except EngineError as error:
            if isinstance(error.__cause__, OSError) and _name_too_long(error.__cause__):
                raise self._too_long(error.__cause__, call) from None
            raise _client_error(from_engine(error), call) from None
        except OSError as error:
            if _name_too_long(error):
                raise self._too_long(error, call) from None
            if isinstance(error, FileNotFoundError):  # removed behind the index's back
                raise _client_error(ApiError(status=404), call) from None
            raise

    def _too_long(self, error: OSError, call: Call) -> NameTooLong:
        """The disk's ENAMETOOLONG as the limits of the file system the vault is on. It names
        the vault path the disk refused (of a rename's two, the longer), else the call's."""
        root = self._vault.vault
        named = [
            os.fsdecode(name)
            for name in (error.filename, error.filename2)
            if isinstance(name, str | bytes)
        ]
        path = call.subject
        if named:
            disk = Path(max(named, key=lambda name: len(os.fsencode(name))))
            relative = disk.relative_to(root).as_posix() if disk.is_relative_to(root) else ""
            if relative and not is_hidden(relative):  # not a temporary file beside a note
                path = relative
        return NameTooLong.refused_by_disk(
            path,
            _pathconf(root, "PC_NAME_MAX"),
            _pathconf(root, "PC_PATH_MAX"),
            len(os.fsencode(root)),
        )

    def _written(self, path: str) -> None:
        """vaultgate wrote the note at ``path``: the index and the text cache learn it now."""
        self._texts.forget(path)
        if (index := self._index.index) is not None:
            index.note_written(path)

    def _moved(self, plan: RelinkPlan) -> None:
        """vaultgate moved a note and rewrote the links to it in ``plan.notes``."""
        for note in plan.notes:
            self._texts.forget(note.path)
        self._texts.forget(plan.source)
        if (index := self._index.index) is not None:
            index.note_moved(plan.source, plan.destination)
            index.refresh([note.path for note in plan.notes])

    def _settle(self, found: FolderScan) -> None:
        """Start-up's last work, in a worker thread: the temporary files of writes a crash
        killed swept (only ours, an hour old or more; the start's walk found them), then the
        index's texts into memory for the first searches, the marked notes (the cold ``LIKE``
        over every row: 0.4 s on 80,000 notes), and the folder tree for the first
        listing (13 ms on 20,000 notes, 60 ms on 80,000), each while the server is idle."""
        sweep_temporaries(self._vault.vault, found.temporaries)
        if len(self._searched) < len(self._vault.markdown_files()):  # else a build put all in
            self._load_searched()
        if self._wait_idle() and (index := self._index.index) is not None:
            self._marks.marked(index)  # the first search's protection check, answered ahead
        if self._wait_idle():
            with self._lock:
                self._current_tree()

    def _load_searched(self) -> None:
        """The index's texts that memory does not hold yet, WARM_BATCH notes at a time while
        no call runs, until they are all there or the memory set aside is full."""
        index = self._index.index
        if index is None or not self._wait_idle():
            return
        paths = index.files()
        if paths is None:
            return
        missing = self._searched.missing(paths)
        for start in range(0, len(missing), WARM_BATCH):
            if self._searched.full() or not self._wait_idle():
                return
            texts = index.texts(missing[start : start + WARM_BATCH])
            if texts is None:
                return
            self._searched.fill(texts)

    def _wait_idle(self) -> bool:
        """Until no call has run for IDLE_SECONDS (in a worker thread); whether the server
        still runs."""
        while self._index.opening and (
            self._calls or time.monotonic() - self._last_call < IDLE_SECONDS
        ):
            time.sleep(IDLE_SECONDS / 5)
        return self._index.opening

    def _current_tree(self) -> FolderTree:
        files = self._vault.files
        if self._tree is None or self._tree.files is not files:
            self._tree = FolderTree(files)
        return self._tree

    def _file_bytes(self, path: str) -> bytes:
        """A note's bytes; a folder path is NotANote, as the plugin's listing answer is."""
        found = self._vault.on_disk(path)
        if found == "folder":
            raise NotANote(path)
        if found is None:
            raise _Answered(ApiError(status=404))
        return self._vault.read_bytes(path)

    def _require_indexed_note(self, path: str) -> None:
        if not self._vault.is_file(path):  # hidden, or missing: not in Obsidian's index
            if self._vault.is_folder(path):
                raise NotANote(path)
            raise _Answered(ApiError(status=404))


class _Answered(Exception):
    """The plugin's answer to a failure the engine reports in its own terms."""

    def __init__(self, error: ApiError) -> None:
        self.error = error
        super().__init__(error.message)


def _client_error(error: ApiError, call: Call) -> ObsidianError:
    response = httpx.Response(error.status, json=error.body(), headers=error.headers)
    return error_for(response, call)


# ERROR_FILENAME_EXCED_RANGE: Windows' own word for it, which Python maps to ENOENT
_WINDOWS_PATH_TOO_LONG = 206


def _name_too_long(error: OSError) -> bool:
    return (
        error.errno == errno.ENAMETOOLONG
        or getattr(error, "winerror", None) == _WINDOWS_PATH_TOO_LONG
    )


def _pathconf(folder: Path, name: str) -> int | None:
    """A limit of the file system holding ``folder``, where it says (POSIX)."""
    try:
        limit = os.pathconf(folder, name)
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or no such limit
        return None
    return limit if limit > 0 else None


def _note_path(path: str | None, action: str) -> str:
    if path is None:
        raise NeedsObsidian(f"{action} the note open in Obsidian", _NOT_ASKED)
    validate_vault_path(path)
    return path
