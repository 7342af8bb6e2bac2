"""The notes carrying a protection tag, found by reading the notes themselves: what the
folder answers before its index does (during a first build, or with no index at all).

The plugin's way, a JsonLogic search over every note's metadata, parses every note through
the engine's ``Vault`` (more than 10 s on 20,000 notes). Here each note is read once, as
bytes, and parsed only when it may carry a tag (``may_be_marked``): its frontmatter, however
long, mentions 'mcp-' or holds a backslash (a YAML escape can spell the tag), or its body
holds '#mcp-'. The others, almost every note, are never parsed; the candidates are parsed
with the Vault's own parse, so the answer is the search's. Most notes are shorter than a
disk block, so reading them whole costs about what reading their first 4 KB did (20,000
notes: docs/design.md). What each note said is kept by its ``(mtime, size)``: the marks are
asked again every 30 s until the index is ready, and only notes changed since are read again.
"""

from __future__ import annotations

import os
import re
import threading

from vaultgate.engine.vault import Vault
from vaultgate.protection import Marks, marked_from_rows

# what markdown.parse_frontmatter reads as the frontmatter's closing line, in bytes
_CLOSE = re.compile(rb"^---[ \t]*\r?$", re.MULTILINE)
_IN_FRONTMATTER = re.compile(rb"mcp-|\\", re.IGNORECASE)
_INLINE = re.compile(rb"#mcp-", re.IGNORECASE)


class MarkScan:
    """The marked notes of one vault folder, from its notes' bytes; safe across threads."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._seen: dict[str, tuple[tuple[int, int], Marks | None]] = {}
        self._lock = threading.Lock()

    def marked(self) -> dict[str, Marks]:
        """Every note of the vault carrying a protection tag, by path."""
        with self._lock:
            root = str(self._vault.vault)
            seen: dict[str, tuple[tuple[int, int], Marks | None]] = {}
            for path in self._vault.markdown_files():
                disk = os.path.join(root, path)
                try:
                    known = self._seen.get(path)
                    if known is not None:
                        st = os.stat(disk)
                        if (st.st_mtime_ns, st.st_size) == known[0]:
                            seen[path] = known
                            continue
                    with open(disk, "rb") as handle:
                        # the stat before the read: a change in between is read again next time
                        st = os.fstat(handle.fileno())
                        data = handle.read()
                    seen[path] = ((st.st_mtime_ns, st.st_size), self._decide(path, data))
                except OSError:
                    continue  # as the search leaves out a note it cannot read
            self._seen = seen  # notes gone since are forgotten
            return {path: marks for path, (_, marks) in seen.items() if marks is not None}

    def _decide(self, path: str, data: bytes) -> Marks | None:
        if not may_be_marked(data):
            return None
        meta = self._vault.meta(path)  # the Vault's parse, as the search's
        rows = [{"filename": path, "result": [meta.frontmatter, meta.tags]}]
        return marked_from_rows(rows).get(path)


def may_be_marked(data: bytes) -> bool:
    """Whether a note whose bytes are ``data`` may carry a protection tag: a superset of the
    notes that do, tested without decoding or parsing."""
    body = 0
    if data.startswith((b"---\n", b"---\r\n")):
        close = _CLOSE.search(data, 4)
        if close is not None:  # else no frontmatter: the whole note is body
            if _IN_FRONTMATTER.search(data, 0, close.start()):
                return True
            body = close.end()
    return _INLINE.search(data, body) is not None


def scan_marks(vault: Vault) -> dict[str, Marks]:
    """Every note of ``vault`` carrying a protection tag, read afresh."""
    return MarkScan(vault).marked()
