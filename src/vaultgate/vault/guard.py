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
"""

from __future__ import annotations

import datetime
from typing import Any

from vaultgate.backend import Backend, BackendReport, LinkUpdates, NoteLinks
from vaultgate.errors import (
    AccessDenied,
    InvalidArgument,
    NotANote,
    NotFound,
    PathUnknown,
    ReadOnlyMode,
)
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.client import Note, ServerStatus, folder_not_found
from vaultgate.obsidian.features import FeatureSet
from vaultgate.obsidian.models import SimpleHit
from vaultgate.obsidian.patch import PatchRequest
from vaultgate.paths import normalize_directory, validate_vault_path
from vaultgate.vault.policy import AccessPolicy

ACTIVE_NOTE = "the note open in Obsidian"
HIDDEN_NOTES = "({} notes outside what you may reach)"
_LINK_LISTS = ("links", "backlinks")  # vault paths in the note JSON (4.0+)


class GuardedClient:
    """Any backend (``vaultgate.backend``) with the access policy applied to every call."""

    def __init__(self, inner: Backend, policy: AccessPolicy) -> None:
        self._inner = inner
        self.policy = policy

    # --- what needs no check ----------------------------------------------------------------

    async def status(self) -> ServerStatus:
        return await self._inner.status()

    async def refresh_status(self) -> ServerStatus:
        return await self._inner.refresh_status()

    async def features(self) -> FeatureSet:
        return await self._inner.features()

    def report(self) -> BackendReport:
        return self._inner.report()

    async def plugin_status(self) -> ServerStatus:
        return await self._inner.plugin_status()

    async def list_tags(self) -> list[dict[str, Any]]:
        return await self._inner.list_tags()

    async def list_commands(self) -> list[dict[str, Any]]:
        return await self._inner.list_commands()

    async def aclose(self) -> None:
        await self._inner.aclose()

    # --- reads ------------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        folder = normalize_directory(directory)
        if not self.policy.allows_folder(folder):
            raise folder_not_found(directory)
        entries = await self._inner.list_directory(folder)
        return [
            entry
            for entry in entries
            if (
                self.policy.allows_folder(folder + entry)
                if entry.endswith("/")
                else self.policy.allows(folder + entry)
            )
        ]

    async def list_files_below(self, directory: str) -> list[str] | None:
        folder = normalize_directory(directory)
        if not self.policy.allows_folder(folder):
            raise folder_not_found(directory)
        files = await self._inner.list_files_below(folder)
        if files is None:
            return None
        return [path for path in files if self.policy.allows(path)]

    async def read_note(self, path: str | None) -> Note:
        if path is None:
            note = await self._inner.read_note(None)
            self._check_resolved(note.path, ACTIVE_NOTE, "read")
            return note
        self.policy.check_read(path)
        return await self._inner.read_note(path)

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        if path is not None:
            self.policy.check_read(path)
        note = await self._inner.read_note_json(path)
        if path is None:
            self._check_resolved(str(note.get("path", "")), ACTIVE_NOTE, "read")
        for key in _LINK_LISTS:
            if isinstance(links := note.get(key), list):
                note[key] = [p for p in links if not isinstance(p, str) or self.policy.allows(p)]
        return note

    async def read_document_map(self, path: str | None) -> DocumentMap:
        if path is None:
            path = await self._active_path("read")
        self.policy.check_read(path)
        return await self._inner.read_document_map(path)

    async def note_size(self, path: str) -> int | None:
        self.policy.check_read(path)
        return await self._inner.note_size(path)

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        note = await self._inner.read_periodic(period, date)
        self._check_resolved(note.path, f"the {period} note", "read")
        return note

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        hits = await self._inner.search_simple(query, context_length)
        return [hit for hit in hits if self.policy.allows(hit["filename"])]

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        return self._visible(await self._inner.search_jsonlogic(query), "filename")

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        return self._visible(await self._inner.search_dql(query), "filename")

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
        return self._visible(results, "path")

    # --- writes -----------------------------------------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        await self._inner.write_note(await self._writable_note(path), content)

    async def append_note(self, path: str | None, content: str) -> None:
        await self._inner.append_note(await self._writable_note(path), content)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        return await self._inner.patch_note(await self._writable_note(path), request)

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        await self._inner.delete_note(await self._writable_note(path), permanent=permanent)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        """Delete a file a listing just showed as a file (bulk delete): no folder check."""
        validate_vault_path(path)
        self.policy.check_write(path)
        await self._inner.delete_note(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates | None:
        validate_vault_path(source)
        validate_vault_path(destination)
        self.policy.check_write(source)
        self.policy.check_write(destination)
        await self._refuse_folder(source)
        if await self._is_folder(destination):
            raise InvalidArgument(
                f"{destination!r} is a folder. To move the note into it, end the destination "
                f"with '/': {destination.removesuffix('/') + '/'!r}."
            )
        updates = await self._inner.move_note(
            source, destination, overwrite=overwrite, dry_run=dry_run
        )
        return None if updates is None else self._visible_updates(updates)

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        validate_vault_path(path)
        self.policy.check_write(path)  # opening a missing note creates it
        await self._inner.open_note(path, new_leaf=new_leaf)

    async def execute_command(self, command_id: str) -> None:
        if self.policy.read_only:
            raise ReadOnlyMode(f"command {command_id}")
        await self._inner.execute_command(command_id)

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
            await self._inner.append_periodic(period, content, date)
            return
        path = self._check_resolved(note.path, subject, "write")
        await self._inner.append_note(path, content)

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        validate_vault_path(name)
        self.policy.check_read(name)
        if create_file and target_path is not None:
            validate_vault_path(target_path)
            self.policy.check_write(target_path)
        return await self._inner.execute_template(
            name, arguments, create_file=create_file, target_path=target_path
        )

    # --- helpers ----------------------------------------------------------------------------

    async def _writable_note(self, path: str | None) -> str:
        """The vault path a single-note write goes to, checked: read-only, hidden, policy,
        and not a folder. None (the active note) is resolved to its path first."""
        if self.policy.read_only:
            raise ReadOnlyMode(path if path is not None else ACTIVE_NOTE)
        if path is None:
            return await self._active_path("write")
        validate_vault_path(path)
        self.policy.check_write(path)
        await self._refuse_folder(path)
        return path

    async def _active_path(self, action: str) -> str:
        note = await self._inner.read_note(None)
        return self._check_resolved(note.path, ACTIVE_NOTE, action)

    def _check_resolved(self, path: str, subject: str, action: str) -> str:
        """Check a path the plugin reported (the model never gave it, so it is never named)."""
        if not path:
            if action == "read" and not self.policy.restricts_paths:
                return path
            raise PathUnknown(subject)
        # the policy refuses a hidden path as hidden, naming only ``subject``
        if action == "read":
            self.policy.check_read(path, shown=subject)
        else:
            self.policy.check_write(path, shown=subject)
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

    def _visible_updates(self, updates: LinkUpdates) -> LinkUpdates:
        """Notes the policy hides are counted, never named: their links follow the move too
        (as in Obsidian), under the one name ``HIDDEN_NOTES``."""
        hidden = [(path, n) for path, n in updates.notes if not self.policy.allows(path)]
        if not hidden:
            return updates
        shown = [(path, n) for path, n in updates.notes if self.policy.allows(path)]
        shown.append((HIDDEN_NOTES.format(len(hidden)), sum(n for _, n in hidden)))
        return LinkUpdates(
            notes=tuple(shown),
            stranded=tuple(p for p in updates.stranded if self.policy.allows(p)),
            failed=tuple(p for p in updates.failed if self.policy.allows(p)),
        )

    def _visible(self, rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
        return [row for row in rows if self.policy.allows(str(row.get(key, "")))]

    # --- every note's links (issue 13) ------------------------------------------------------

    async def note_links(self) -> list[NoteLinks]:
        """Only notes the policy allows, and only the targets it allows: a note linked from
        hidden or denied notes alone counts as linked from nowhere the model can reach.
        Unresolved link texts name no file, so they are kept as written."""
        allows = self.policy.allows
        return [
            NoteLinks(note.path, tuple(p for p in note.links if allows(p)), note.unresolved)
            for note in await self._inner.note_links()
            if allows(note.path)
        ]
