"""A backend that can change hands while the server runs: the plugin alone until the vault
folder is found and verified, then the folder with the plugin (``RoutedBackend``), and back.

The switch is one assignment, so a call runs wholly on the backend it started on. A backend
switched away from is closed by its owner (``finder``) only once the calls it was serving have
ended (``drained``).

Until the first search has settled (a folder served, or a reason why none is), a call that
would show note text waits for it, ``SETTLE_WAIT_SECONDS`` at most: the found folder's
policy sees where a symbolic link really leads, the plugin alone does not. A call still
unsettled after that answers under the plugin-only rules, and, like every answer on any
backend, never with Obsidian's API key in it (``keyless``): a note linking to the plugin's
``data.json`` was the way to it.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from vaultgate.discovery.keyless import Keyless

if TYPE_CHECKING:
    from vaultgate.locations import LinkMap
    from vaultgate.markdown import DocumentMap
    from vaultgate.obsidian.features import FeatureSet
    from vaultgate.obsidian.models import SimpleHit
    from vaultgate.patch_request import PatchRequest
    from vaultgate.protection import Marks


SETTLE_WAIT_SECONDS = 1.0  # how long a call showing note text waits for the first search


class SwitchingBackend:
    """Every call goes to the backend in use when it starts (see the module's docstring)."""

    def __init__(
        self,
        plugin: Backend,
        discovery: str,
        *,
        on_folder: Callable[[Path | None], None] | None = None,
        secret: str | None = None,
        settled: bool = False,
    ) -> None:
        """``on_folder`` learns each vault folder served (None: the plugin alone), so that the
        access policy decides on real locations in the folder the calls read. ``secret``:
        the API key, never shown. ``settled``: no search will run (nothing to wait for)."""
        self.plugin = plugin
        self._on_folder = on_folder
        self._current: Backend = plugin
        self._discovery = discovery  # how the folder was found and verified, or why not
        self._calls: dict[int, int] = {}  # calls in flight, by id() of their backend
        self._ended = anyio.Event()
        self._settled = anyio.Event()
        if settled:
            self._settled.set()
        self._keyless = Keyless(secret)

    @property
    def current(self) -> Backend:
        return self._current

    def use(self, backend: Backend, discovery: str, *, folder: Path | None = None) -> None:
        """From the next call on, ``backend`` answers (serving the vault folder ``folder``, or
        None for the plugin alone); ``discovery`` says why. The policy learns a folder before
        any call reaches it, and forgets one only once calls no longer start there."""
        if folder is not None and self._on_folder is not None:
            self._on_folder(folder)
        self._current = backend
        self._discovery = discovery
        if folder is None and self._on_folder is not None:
            self._on_folder(None)
        self._settled.set()

    def explain(self, discovery: str) -> None:
        """Why no folder is served (the search concluded so)."""
        self._discovery = discovery
        self._settled.set()

    async def _text_shown(self) -> None:
        """Before a call that would show note text: the first search settled, or waited for
        long enough (see the module's docstring)."""
        if not self._settled.is_set():
            with anyio.move_on_after(SETTLE_WAIT_SECONDS):
                await self._settled.wait()

    async def drained(self, backend: Backend) -> None:
        """Once no call is running on ``backend``."""
        while self._calls.get(id(backend)):
            await self._ended.wait()

    @asynccontextmanager
    async def _using(self) -> AsyncIterator[Backend]:
        backend = self._current
        key = id(backend)
        self._calls[key] = self._calls.get(key, 0) + 1
        try:
            yield backend
        finally:
            self._calls[key] -= 1
            if not self._calls[key]:
                del self._calls[key]
                ended, self._ended = self._ended, anyio.Event()
                ended.set()

    # --- server -----------------------------------------------------------------------------

    async def status(self) -> ServerStatus:
        async with self._using() as backend:
            return await backend.status()

    async def refresh_status(self) -> ServerStatus:
        async with self._using() as backend:
            return await backend.refresh_status()

    async def features(self) -> FeatureSet:
        async with self._using() as backend:
            return await backend.features()

    def report(self) -> BackendReport:
        return dataclasses.replace(self._current.report(), discovery=self._discovery)

    def link_map(self) -> LinkMap | None:
        return self._current.link_map()

    def generation(self) -> int | None:
        return self._current.generation()  # numbers never repeat across backends

    async def plugin_status(self) -> ServerStatus:
        async with self._using() as backend:
            return await backend.plugin_status()

    # --- reading ----------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        async with self._using() as backend:
            return await backend.list_directory(directory)

    async def list_files_below(self, directory: str) -> list[str] | None:
        async with self._using() as backend:
            return await backend.list_files_below(directory)

    async def read_note(self, path: str | None) -> Note:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.note(await backend.read_note(path))

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.single(path or "the note", await backend.read_note_json(path))

    async def read_document_map(self, path: str | None) -> DocumentMap:
        await self._text_shown()
        async with self._using() as backend:
            return await backend.read_document_map(path)

    async def note_size(self, path: str) -> int | None:
        async with self._using() as backend:
            return await backend.note_size(path)

    async def read_file(self, path: str) -> bytes:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.single(path, await backend.read_file(path))

    # --- searching --------------------------------------------------------------------------

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.rows(await backend.search_simple(query, context_length))

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.rows(await backend.search_jsonlogic(query))

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.rows(await backend.search_dql(query))

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        await self._text_shown()
        async with self._using() as backend:
            found = await backend.search_local(query, mode=mode, wanted=wanted, limit=limit)
        if found is None:
            return None
        return dataclasses.replace(found, rows=self._keyless.rows(found.rows))

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        await self._text_shown()
        async with self._using() as backend:
            found = await backend.search_smart(
                query, folders=folders, exclude_folders=exclude_folders, limit=limit
            )
        return self._keyless.rows(found)

    async def list_tags(self) -> list[dict[str, Any]]:
        async with self._using() as backend:
            return await backend.list_tags()

    def marks_generation(self) -> tuple[int, int] | None:
        return self.current.marks_generation()

    async def marked_notes(self) -> dict[str, Marks]:
        async with self._using() as backend:
            return await backend.marked_notes()

    async def note_links(self) -> list[NoteLinks]:
        async with self._using() as backend:
            return await backend.note_links()

    # --- writing ----------------------------------------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        async with self._using() as backend:
            await backend.write_note(path, content)

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        async with self._using() as backend:
            return await backend.write_note_if_unchanged(path, expected, content)

    async def append_note(self, path: str | None, content: str) -> None:
        async with self._using() as backend:
            await backend.append_note(path, content)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        async with self._using() as backend:
            return await backend.patch_note(path, request)

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        async with self._using() as backend:
            await backend.delete_note(path, permanent=permanent)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        async with self._using() as backend:
            await backend.delete_listed_file(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates | None:
        async with self._using() as backend:
            return await backend.move_note(
                source, destination, overwrite=overwrite, dry_run=dry_run
            )

    # --- only Obsidian ----------------------------------------------------------------------

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        async with self._using() as backend:
            await backend.open_note(path, new_leaf=new_leaf)

    async def list_commands(self) -> list[dict[str, Any]]:
        async with self._using() as backend:
            return await backend.list_commands()

    async def execute_command(self, command_id: str) -> None:
        async with self._using() as backend:
            await backend.execute_command(command_id)

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        await self._text_shown()
        async with self._using() as backend:
            return self._keyless.note(await backend.read_periodic(period, date))

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        async with self._using() as backend:
            await backend.append_periodic(period, content, date)

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        async with self._using() as backend:
            answer = await backend.execute_template(
                name, arguments, create_file=create_file, target_path=target_path
            )
        return self._keyless.single(target_path or name, answer)

    async def aclose(self) -> None:
        """The plugin's client; a routed backend in use is closed by its owner (``finder``)."""
        await self.plugin.aclose()
