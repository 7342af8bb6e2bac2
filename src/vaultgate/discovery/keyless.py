"""Answers that would show Obsidian's API key are withheld, whatever backend gave them.

The plugin keeps its key in ``.obsidian/plugins/obsidian-local-rest-api/data.json``. A note
that is a symbolic link to that file is read by the plugin like any note, and only a policy
that knows the vault folder sees where the link leads (``vault/policy.py``). With the plugin
alone (before the found folder is verified, or with no folder at all) nothing on disk is
asked, so the text itself is: a note, a file, a search row or a template's answer holding
the key is never returned. A single note is refused (``LinkNotFollowed``: the link leads to
a hidden file); a search or listing of rows leaves the row out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from vaultgate.backend import Note
from vaultgate.errors import LinkNotFollowed

_T = TypeVar("_T")


class Keyless:
    """Checks answers for ``secret`` (None: no key configured, nothing to withhold)."""

    def __init__(self, secret: str | None) -> None:
        self._text = secret or None
        self._bytes = secret.encode("utf-8") if secret else None

    def holds(self, value: Any) -> bool:
        if self._text is None or self._bytes is None:
            return False
        if isinstance(value, bytes):
            return self._bytes in value
        if isinstance(value, str):
            return self._text in value
        # ensure_ascii=False: the key as typed, not escaped; default=str: dataclasses, dates
        return self._text in json.dumps(value, ensure_ascii=False, default=str)

    def single(self, path: str, value: _T) -> _T:
        """``value``, unless it holds the key (then the note is refused)."""
        if self.holds(value):
            raise LinkNotFollowed(path, "hidden")
        return value

    def note(self, note: Note) -> Note:
        """``note``, unless its text holds the key."""
        if self.holds(note.content):
            raise LinkNotFollowed(note.path or "the note", "hidden")
        return note

    def rows(self, rows: Sequence[_T]) -> list[_T]:
        """The rows that do not hold the key."""
        return [row for row in rows if not self.holds(row)]
