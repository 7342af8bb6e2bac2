"""``VAULTGATE_BACKEND=auto`` with a vault folder: the folder for the vault, Obsidian for itself.

Everything the folder can answer (listing, reading, searching, tags, writes, patches, moves,
deletes) is answered from the folder, whether Obsidian runs or not. What only Obsidian can
do (the note open in it, commands, opening a note, periodic notes, Templater, smart search,
Dataview) goes to the plugin; when the plugin does not answer, that is NeedsObsidian, which
says Obsidian must be running, instead of a connection error.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable
from typing import Any, TypeVar

from vaultgate.backend import BackendReport, LinkUpdates, Note, NoteLinks, ServerStatus
from vaultgate.errors import NeedsObsidian, ObsidianTimeout, ObsidianUnreachable, WrongProtocol
from vaultgate.folder.backend import OBSIDIAN_ONLY, FolderBackend
from vaultgate.locations import LinkMap
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.features import FeatureSet
from vaultgate.obsidian.models import SimpleHit
from vaultgate.patch_request import PatchRequest
from vaultgate.protection import Marks

_T = TypeVar("_T")


class RoutedBackend:
    def __init__(self, folder: FolderBackend, obsidian: ObsidianClient) -> None:
        self.folder = folder
        self.obsidian = obsidian

    # --- server: the folder's semantics govern the vault tools ------------------------------

    async def status(self) -> ServerStatus:
        return await self.folder.status()

    async def refresh_status(self) -> ServerStatus:
        return await self.folder.refresh_status()

    async def features(self) -> FeatureSet:
        return await self.folder.features()

    def report(self) -> BackendReport:
        return BackendReport("auto", str(self.folder.folder), self.obsidian.base_url, OBSIDIAN_ONLY)

    def link_map(self) -> LinkMap | None:
        return self.folder.link_map()

    async def plugin_status(self) -> ServerStatus:
        """The plugin's own status (get_server_info reports both)."""
        return await self._obsidian("Asking Obsidian", self.obsidian.refresh_status())

    # --- the folder -------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        return await self.folder.list_directory(directory)

    async def list_files_below(self, directory: str) -> list[str] | None:
        return await self.folder.list_files_below(directory)

    async def read_note(self, path: str | None) -> Note:
        if path is None:
            return await self._obsidian(
                "Reading the note open in Obsidian", self.obsidian.read_note(None)
            )
        return await self.folder.read_note(path)

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        if path is None:
            return await self._obsidian(
                "Reading the note open in Obsidian", self.obsidian.read_note_json(None)
            )
        return await self.folder.read_note_json(path)

    async def read_document_map(self, path: str | None) -> DocumentMap:
        if path is None:
            return await self._obsidian(
                "Reading the note open in Obsidian", self.obsidian.read_document_map(None)
            )
        return await self.folder.read_document_map(path)

    async def note_size(self, path: str) -> int | None:
        return await self.folder.note_size(path)

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        return await self.folder.search_simple(query, context_length)

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        return await self.folder.search_jsonlogic(query)

    async def list_tags(self) -> list[dict[str, Any]]:
        return await self.folder.list_tags()

    async def marked_notes(self) -> dict[str, Marks]:
        return await self.folder.marked_notes()

    async def note_links(self) -> list[NoteLinks]:
        return await self.folder.note_links()

    async def write_note(self, path: str | None, content: str) -> None:
        if path is None:
            await self._obsidian(
                "Writing the note open in Obsidian", self.obsidian.write_note(None, content)
            )
            return
        await self.folder.write_note(path, content)

    async def append_note(self, path: str | None, content: str) -> None:
        if path is None:
            await self._obsidian(
                "Appending to the note open in Obsidian", self.obsidian.append_note(None, content)
            )
            return
        await self.folder.append_note(path, content)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        if path is None:
            return await self._obsidian(
                "Patching the note open in Obsidian", self.obsidian.patch_note(None, request)
            )
        return await self.folder.patch_note(path, request)

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        if path is None:
            await self._obsidian(
                "Deleting the note open in Obsidian",
                self.obsidian.delete_note(None, permanent=permanent),
            )
            return
        await self.folder.delete_note(path, permanent=permanent)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        await self.folder.delete_listed_file(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates:
        return await self.folder.move_note(
            source, destination, overwrite=overwrite, dry_run=dry_run
        )

    # --- Obsidian ---------------------------------------------------------------------------

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        return await self._obsidian("Dataview DQL search", self.obsidian.search_dql(query))

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        pending = self.obsidian.search_smart(
            query, folders=folders, exclude_folders=exclude_folders, limit=limit
        )
        return await self._obsidian("Semantic search (Smart Connections)", pending)

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        await self._obsidian(
            "Opening a note in Obsidian", self.obsidian.open_note(path, new_leaf=new_leaf)
        )

    async def list_commands(self) -> list[dict[str, Any]]:
        return await self._obsidian("Listing Obsidian's commands", self.obsidian.list_commands())

    async def execute_command(self, command_id: str) -> None:
        await self._obsidian(
            "Running an Obsidian command", self.obsidian.execute_command(command_id)
        )

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        return await self._obsidian(
            "Reading a periodic note by its period", self.obsidian.read_periodic(period, date)
        )

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        await self._obsidian(
            "Appending to a periodic note by its period",
            self.obsidian.append_periodic(period, content, date),
        )

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        pending = self.obsidian.execute_template(
            name, arguments, create_file=create_file, target_path=target_path
        )
        return await self._obsidian("Running a Templater template", pending)

    async def aclose(self) -> None:
        await self.obsidian.aclose()
        await self.folder.aclose()

    async def _obsidian(self, action: str, pending: Awaitable[_T]) -> _T:
        try:
            return await pending
        except WrongProtocol as exc:
            raise NeedsObsidian(action, str(exc)) from exc
        except (ObsidianUnreachable, ObsidianTimeout) as exc:
            raise NeedsObsidian(
                action,
                f"it is not answering at {self.obsidian.base_url} (is Obsidian open, with the "
                "plugin enabled?).",
            ) from exc
