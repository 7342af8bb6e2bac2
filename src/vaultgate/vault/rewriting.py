"""Writing a whole note back without clobbering a change made since it was read.

The write is conditional (``Backend.write_note_if_unchanged``): it lands only while the note
is still exactly the text the change was computed from. The folder backend checks that
just before its atomic rename, and a file replaced or appended to in the last instant is put
back (``engine/vaultfs.py``); no plugin version has a conditional write, so through the
plugin the note is read again just before the PUT, and a change landing between that read
and the write is lost, as with any editor that saves a note (docs/design.md, "Changes made
elsewhere").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar

from vaultgate.backend import Backend, Note
from vaultgate.errors import NoteChanged

R = TypeVar("R")

REWRITE_ATTEMPTS = 3
"""How many times :func:`rewrite` computes an edit on a note other programs keep changing."""


def fingerprint(text: str) -> str:
    """A short digest of a note's exact text (lone surrogates included)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


async def write_if_unchanged(
    client: Backend, path: str, expected: str, new: str, *, what_next: str
) -> None:
    """Write ``new`` to ``path`` if the note still reads ``expected``; else NoteChanged."""
    if not await client.write_note_if_unchanged(path, expected, new):
        raise NoteChanged(path, what_next)


async def rewrite(
    client: Backend, path: str, edit: Callable[[Note], tuple[str, R]], *, what_next: str
) -> R:
    """Read the note, compute its new text and what to answer with ``edit``, and write it
    only if the note is unchanged; when another program changed it meanwhile, the edit is
    computed again on its new text (``REWRITE_ATTEMPTS`` in all), then NoteChanged. An
    edit that changes nothing writes nothing."""
    for _ in range(REWRITE_ATTEMPTS):
        note = await client.read_note(path)
        new, answer = edit(note)
        if new == note.content or await client.write_note_if_unchanged(path, note.content, new):
            return answer
    raise NoteChanged(path, what_next)
