"""The notes linking to a file that is not a note, found by one search of every note's links.

The plugin's note JSON (which holds ``backlinks`` from 4.0) waits for Obsidian's metadata cache,
which never describes a file that is not markdown: there it answers only after its 5-second
timeout (``waitForFileCache``, 3.4.3+). vaultgate never asks it for one; a JsonLogic search of
the resolved ``links`` every note JSON carries (4.0+) answers at once.
"""

from __future__ import annotations

from typing import Any

from vaultgate.backend import Backend

NOTE_SUFFIX = ".md"


def is_markdown(path: str) -> bool:
    """Does Obsidian's metadata cache describe the file (a note JSON without the wait)?"""
    return path.lower().endswith(NOTE_SUFFIX)


def linking_query(path: str) -> dict[str, Any]:
    """JsonLogic: true for each note whose resolved links name ``path``."""
    return {"in": [path, {"var": "links"}]}


async def linking_notes(client: Backend, path: str) -> list[str]:
    """The notes whose resolved links name ``path``, by one search, in the vault's order."""
    rows = await client.search_jsonlogic(linking_query(path))
    return [str(row["filename"]) for row in rows if isinstance(row.get("filename"), str)]
