"""The client every tool uses: the Obsidian client with the access policy applied to each call.

Every path a tool sends is checked before the request, and every path the plugin returns
(listings, search hits, the active file) is filtered, so no tool can reach around the policy.
The active file's path is only known after asking Obsidian, so with a restricting policy a
write to it first reads which note is open.
"""

from __future__ import annotations

import datetime
from typing import Any

import httpx

from vaultgate.config import ObsidianSettings
from vaultgate.errors import AccessDenied, NotFound, ReadOnlyMode
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.client import Note, ObsidianClient
from vaultgate.obsidian.models import SimpleHit
from vaultgate.obsidian.patch import PatchRequest
from vaultgate.paths import normalize_directory
from vaultgate.vault.policy import AccessPolicy


class GuardedClient(ObsidianClient):
    def __init__(
        self, settings: ObsidianSettings, http: httpx.AsyncClient, policy: AccessPolicy
    ) -> None:
        super().__init__(settings, http)
        self.policy = policy

    # --- reads ------------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        entries = await super().list_directory(directory)
        if not self.policy.restricts_paths:
            return entries
        folder = normalize_directory(directory)
        return [
            entry
            for entry in entries
            if (
                self.policy.allows_folder(folder + entry)
                if entry.endswith("/")
                else self.policy.allows(folder + entry)
            )
        ]

    async def read_note(self, path: str | None) -> Note:
        self._check_read(path)
        note = await super().read_note(path)
        self._check_read(note.path)
        return note

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        self._check_read(path)
        note = await super().read_note_json(path)
        self._check_read(str(note.get("path", path or "")))
        return note

    async def read_document_map(self, path: str | None) -> DocumentMap:
        if path is None and self.policy.restricts_paths:
            await self.read_note(None)  # learns (and checks) which note is open
        self._check_read(path)
        return await super().read_document_map(path)

    async def note_size(self, path: str) -> int | None:
        self.policy.check_read(path)
        return await super().note_size(path)

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        note = await super().read_periodic(period, date)
        self._check_read(note.path)
        return note

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        hits = await super().search_simple(query, context_length)
        return [hit for hit in hits if self.policy.allows(hit["filename"])]

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        return self._visible(await super().search_jsonlogic(query), "filename")

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        return self._visible(await super().search_dql(query), "filename")

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        results = await super().search_smart(
            query, folders=folders, exclude_folders=exclude_folders, limit=limit
        )
        return self._visible(results, "path")

    # --- writes -----------------------------------------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        await self._check_write(path)
        await super().write_note(path, content)

    async def append_note(self, path: str | None, content: str) -> None:
        await self._check_write(path)
        await super().append_note(path, content)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        await self._check_write(path)
        return await super().patch_note(path, request)

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        await self._check_write(path)
        await super().delete_note(path, permanent=permanent)

    async def move_note(self, source: str, destination: str, *, overwrite: bool) -> None:
        self.policy.check_write(source)
        self.policy.check_write(destination)
        await super().move_note(source, destination, overwrite=overwrite)

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        self.policy.check_write(path)  # opening a missing note creates it
        await super().open_note(path, new_leaf=new_leaf)

    async def execute_command(self, command_id: str) -> None:
        if self.policy.read_only:
            raise ReadOnlyMode(f"command {command_id}")
        await super().execute_command(command_id)

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        if self.policy.read_only:
            raise ReadOnlyMode(f"the {period} note")
        if self.policy.restricts_paths:
            try:
                note = await super().read_periodic(period, date)
            except NotFound:
                # A note that does not exist yet has no path we could check.
                raise AccessDenied(f"the {period} note", "create") from None
            self.policy.check_write(note.path)
        await super().append_periodic(period, content, date)

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        self.policy.check_read(name)
        if create_file and target_path is not None:
            self.policy.check_write(target_path)
        return await super().execute_template(
            name, arguments, create_file=create_file, target_path=target_path
        )

    # --- helpers ----------------------------------------------------------------------------

    def _check_read(self, path: str | None) -> None:
        if path:
            self.policy.check_read(path)

    async def _check_write(self, path: str | None) -> None:
        if path is None:
            if self.policy.read_only:
                raise ReadOnlyMode("the active file")
            if self.policy.restricts_paths:
                path = (await super().read_note(None)).path
        if path is not None:
            self.policy.check_write(path)

    def _visible(self, rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
        if not self.policy.restricts_paths:
            return rows
        return [row for row in rows if self.policy.allows(str(row.get(key, "")))]
