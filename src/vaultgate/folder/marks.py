"""The notes carrying a protection tag, found by reading the head of each note: what the
folder answers before its index does (during a first build, or with no index at all).

The plugin's way, a JsonLogic search over every note's metadata, parses every note through
the engine's ``Vault`` (more than 10 s on 20,000 notes). A protection tag lives in the
frontmatter, which starts the note: the first HEAD_BYTES of a note tell, for almost every
note, that it has no frontmatter or that its frontmatter never mentions 'mcp-'; only the
others are parsed, with the Vault's own parse, so the answer is the search's.
"""

from __future__ import annotations

import os

from vaultgate.engine.vault import Vault
from vaultgate.protection import MARK_PREFIX, Marks, marks_of

HEAD_BYTES = 4096
_MARK = MARK_PREFIX.encode("ascii")


def scan_marks(vault: Vault) -> dict[str, Marks]:
    """Every note of ``vault`` whose frontmatter carries a protection tag, by path."""
    root = str(vault.vault)
    marked: dict[str, Marks] = {}
    for path in vault.markdown_files():
        try:
            with open(os.path.join(root, path), "rb") as handle:
                head = handle.read(HEAD_BYTES)
            if not _may_be_marked(head):
                continue
            meta = vault.meta(path)
        except OSError:
            continue  # as the search leaves out a note it cannot read
        tags = marks_of(meta.frontmatter)
        if tags:
            marked[path] = Marks(tags, tuple(meta.tags))
    return marked


def _may_be_marked(head: bytes) -> bool:
    """Whether a note starting with ``head`` may carry a protection tag in its frontmatter."""
    if not head.startswith((b"---\n", b"---\r\n")):
        return False  # no frontmatter (as markdown.parse_frontmatter reads it)
    if _MARK in head.lower():
        return True
    return b"\n---" not in head[3:]  # the frontmatter goes on past the head: read it all
