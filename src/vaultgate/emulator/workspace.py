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
