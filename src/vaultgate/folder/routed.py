"""``VAULTGATE_BACKEND=auto`` with a vault folder: the folder for the vault, Obsidian for itself.

Everything the folder can answer (listing, reading, searching, tags, writes, patches, moves,
deletes) is answered from the folder, whether Obsidian runs or not. What only Obsidian can
do (the note open in it, commands, opening a note, periodic notes, Templater, smart search,
Dataview) goes to the plugin; when the plugin does not answer, that is NeedsObsidian, which
says Obsidian must be running, instead of a connection error.

When vaultgate found the folder itself (``writes_via_plugin``), changes to notes go to the
plugin while it answers, and the folder re-reads what they touched at once
(``folder/through_plugin.py``); with the folder configured, the folder makes them.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from vaultgate.backend import (
    BackendReport,
    LinkUpdates,
    LocalMode,
    LocalResults,
    Note,
    NoteLinks,
    ServerStatus,
)
from vaultgate.errors import (
    NeedsObsidian,
    ObsidianError,
    ObsidianTimeout,
    ObsidianUnreachable,
    WrongProtocol,
)
from vaultgate.folder.backend import OBSIDIAN_ONLY, FolderBackend
from vaultgate.folder.through_plugin import PluginChanges, Sent
from vaultgate.locations import LinkMap
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.client import ObsidianClient, template_target
from vaultgate.obsidian.features import FeatureSet
from vaultgate.obsidian.models import SimpleHit
from vaultgate.patch_request import PatchRequest
from vaultgate.protection import Marks

_T = TypeVar("_T")


class RoutedBackend:
    def __init__(
        self,
        folder: FolderBackend,
        obsidian: ObsidianClient,
        *,
        writes_via_plugin: bool = False,
        on_doubt: Callable[[str], None] | None = None,
    ) -> None:
        """``writes_via_plugin``: the folder was found (Obsidian's vault list), not configured:
        changes to notes go to the plugin while it answers, each only once the plugin agrees
        with the folder on the notes it touches; ``on_doubt`` learns when it does not."""
        self.folder = folder
        self.obsidian = obsidian
        self.writes_via_plugin = writes_via_plugin
        self._changes = PluginChanges(folder, obsidian, on_doubt=on_doubt)

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

    def generation(self) -> int | None:
        return self.folder.generation()  # Obsidian writes the same folder the watcher sees

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

    async def read_file(self, path: str) -> bytes:
        return await self.folder.read_file(path)

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        return await self.folder.search_simple(query, context_length)

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        return await self.folder.search_jsonlogic(query)

    async def list_tags(self) -> list[dict[str, Any]]:
        return await self.folder.list_tags()

    def marks_generation(self) -> tuple[int, int] | None:
        return self.folder.marks_generation()

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
        sent = await self._by_plugin(
            "Writing", path, lambda: self.obsidian.write_note(path, content)
        )
        if sent is None:
            await self.folder.write_note(path, content)

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        sent = await self._by_plugin(
            "Writing",
            path,
            lambda: self.obsidian.write_note_if_unchanged(path, expected, content),
        )
        if sent is None:
            return await self.folder.write_note_if_unchanged(path, expected, content)
        return sent.value

    async def append_note(self, path: str | None, content: str) -> None:
        if path is None:
            await self._obsidian(
                "Appending to the note open in Obsidian", self.obsidian.append_note(None, content)
            )
            return
        sent = await self._by_plugin(
            "Appending to", path, lambda: self.obsidian.append_note(path, content)
        )
        if sent is None:
            await self.folder.append_note(path, content)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        if path is None:
            return await self._obsidian(
                "Patching the note open in Obsidian", self.obsidian.patch_note(None, request)
            )
        # only a plugin that patches as the folder does: JSON instructions, 5.0 and later
        sent = await self._by_plugin(
            "Patching", path, lambda: self.obsidian.patch_note(path, request), needs="patch_v2"
        )
        return await self.folder.patch_note(path, request) if sent is None else sent.value

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        if path is None:
            await self._obsidian(
                "Deleting the note open in Obsidian",
                self.obsidian.delete_note(None, permanent=permanent),
            )
            return
        sent = await self._by_plugin(
            "Deleting",
            path,
            lambda: self.obsidian.delete_note(path, permanent=permanent),
            needs=_deleting(permanent),
        )
        if sent is None:
            await self.folder.delete_note(path, permanent=permanent)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        sent = await self._by_plugin(
            "Deleting",
            path,
            lambda: self.obsidian.delete_listed_file(path, permanent=permanent),
            needs=_deleting(permanent),
        )
        if sent is None:
            await self.folder.delete_listed_file(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates:
        if self.writes_via_plugin and not dry_run:
            moved = await self._changes.move(source, destination, overwrite=overwrite)
            if moved is not None:
                return moved
        return await self.folder.move_note(
            source, destination, overwrite=overwrite, dry_run=dry_run
        )

    # --- Obsidian ---------------------------------------------------------------------------

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        return await self._obsidian("Dataview DQL search", self.obsidian.search_dql(query))

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        return await self.folder.search_local(query, mode=mode, wanted=wanted, limit=limit)

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
        try:  # the plugin chose the note: ask which, so that the folder sees it at once
            note = await self.obsidian.read_periodic(period, date)
        except ObsidianError:
            return  # the watcher sees it shortly
        if note.path:
            await self.folder.changed_elsewhere([note.path])

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
        result = await self._obsidian("Running a Templater template", pending)
        if create_file and target_path is not None:  # the note it wrote, seen at once
            await self.folder.changed_elsewhere([template_target(target_path)])
        return result

    async def aclose(self) -> None:
        await self.obsidian.aclose()
        await self.folder.aclose()

    async def _by_plugin(
        self,
        action: str,
        path: str,
        send: Callable[[], Awaitable[_T]],
        *,
        needs: str | None = None,
    ) -> Sent[_T] | None:
        """The change made through the plugin (``writes_via_plugin``); None: not sent."""
        if not self.writes_via_plugin:
            return None
        return await self._changes.make(action, path, send, needs=needs)

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


def _deleting(permanent: bool) -> str | None:
    """What the plugin needs to delete as the folder does: before 5.0 it deletes for good,
    so a delete to the trash stays the folder's there."""
    return None if permanent else "trash_delete"
