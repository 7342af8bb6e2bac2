"""Writing a whole note back without clobbering a change made since it was read.

No plugin version has a conditional whole-note write, so a read-modify-write reads the note
again just before it writes and writes only when the text is still exactly what the change
was computed from. What is left is the moment between that last read and the write: a
change landing there is lost, as with any editor that saves a note. The folder backend
writes atomically, but through the same protocol, so the window is the same for both.
"""

from __future__ import annotations

import hashlib

from vaultgate.backend import Backend
from vaultgate.errors import NoteChanged


def fingerprint(text: str) -> str:
    """A short digest of a note's exact text (lone surrogates included)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


async def write_if_unchanged(
    client: Backend, path: str, expected: str, new: str, *, what_next: str
) -> None:
    """Write ``new`` to ``path`` if the note still reads ``expected``; else NoteChanged."""
    current = (await client.read_note(path)).content
    if current != expected:
        raise NoteChanged(path, what_next)
    await client.write_note(path, new)
