"""The emulator's state: the engine's vault, plus what Obsidian's workspace holds.

``active_file`` is the note open in the editor (``/active/``); moving or deleting it through
the API updates it as Obsidian's workspace would. ``executed_commands`` and ``opened``
record what POST /commands/ and POST /open/ did, for tests to check.
"""

from __future__ import annotations

from pathlib import Path

from vaultgate.engine.vault import Vault


class EmulatorState(Vault):
    """Mutable state shared by every request (and by tests: ``active_file``)."""

    def __init__(self, vault: Path, *, active_file: str | None = None) -> None:
        super().__init__(vault)
        self.active_file = active_file
        self.executed_commands: list[str] = []  # POST /commands/{id}/, in order
        self.opened: list[tuple[str, bool]] = []  # POST /open/{path}: (path, newLeaf)
        # (method, decoded path) of every authenticated request, in order: what was asked of
        # the plugin (tests tell the plugin's changes from the folder's by it)
        self.requests: list[tuple[str, str]] = []
        # each file whose note JSON waited out the metadata cache (routes_vault)
        self.metadata_waits: list[str] = []

    def note_deleted(self, path: str) -> None:
        """The open note is gone: nothing is open."""
        if self.active_file == path:
            self.active_file = None

    def folder_deleted(self, path: str) -> None:
        if self.active_file is not None and self.active_file.startswith(f"{path}/"):
            self.active_file = None

    def note_moved(self, source: str, destination: str) -> None:
        """The open note moved: the editor follows it."""
        if self.active_file == source:
            self.active_file = destination
