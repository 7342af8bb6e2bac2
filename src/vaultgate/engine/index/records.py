"""One note as the index holds it: read from disk once, parsed once, folded once.

The metadata are what the engine's :class:`~vaultgate.engine.vault.Vault` parses from the same
text (``vaultgate.markdown``): frontmatter, tags, headings (level and text, from which both
heading paths and the 5.x heading tree follow) and link targets as written. The searched text
is the simple search's ``basename + "\\n\\n" + content``, folded (``fold.py``), with each NUL
stored as a space: SQLite's trigram tokenizer stops reading a text at its first NUL, so a
note's words after one would never be found. No simple-search term holds a space, so a term
without NUL occurs in the stored text exactly where it occurs in the folded one.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from vaultgate import markdown
from vaultgate.engine.index.fold import fold

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class IndexedNote:
    """What the index knows of one note, as of ``(mtime_ns, size)``."""

    path: str
    mtime_ns: int
    size: int
    frontmatter: dict[str, Any]
    frontmatter_valid: bool
    tags: tuple[str, ...]  # as ``markdown.extract_tags`` gives them: de-duplicated, no '#'
    headings: tuple[tuple[int, str], ...]  # (level, text) in document order
    links: tuple[str, ...]  # link targets as written, links before embeds (``extract_links``)
    inline_tags: tuple[str, ...] = ()  # each inline #tag occurrence (``markdown.inline_tags``)


@dataclass(frozen=True, slots=True)
class ReadNote:
    note: IndexedNote
    searched: str  # folded basename + "\n\n" + content


def read_note(root: str, path: str) -> ReadNote:
    """Read and parse the note at vault path ``path`` (OSError when it cannot be read).

    The file is stat'ed before it is read: if it changes in between, the stored stat is the
    older one, so the next comparison with the disk sees the change and reads it again.
    """
    with open(os.path.join(root, *path.split("/")), "rb") as handle:
        st = os.fstat(handle.fileno())
        # as the Vault reads notes: UTF-8, bad bytes replaced
        text = handle.read().decode("utf-8", "replace")
    frontmatter = markdown.parse_frontmatter(text)
    note = IndexedNote(
        path=path,
        mtime_ns=st.st_mtime_ns,
        size=st.st_size,
        frontmatter=frontmatter.data,
        frontmatter_valid=frontmatter.valid,
        tags=tuple(markdown.extract_tags(text)),
        headings=tuple((h.level, h.text) for h in markdown.parse_headings(text)),
        links=tuple(markdown.extract_links(text, embeds_last=True)),
        inline_tags=tuple(tag for _start, _end, tag in markdown.inline_tags(text)),
    )
    return ReadNote(note, searched_text(_basename(path), text))


def searched_text(basename: str, content: str) -> str:
    """What the index stores and looks terms up in, for a note of that name and content."""
    return fold(f"{basename}\n\n{content}").replace("\x00", " ")


def name_is_stored_as_is(path: str) -> bool:
    """Whether the searched text holds the note's name as it is (see ``_basename``)."""
    return path.isascii() or not _SURROGATE.search(path)


def _basename(path: str) -> str:
    """The note's name without '.md'. A name that is not valid UTF-8 (a lone surrogate from
    the file system) cannot go to SQLite: its surrogates become U+FFFD, which can only add
    matches, since no query looks a surrogate up (query.py)."""
    name = posixpath.splitext(posixpath.basename(path))[0]
    return name if name.isascii() else _SURROGATE.sub("\ufffd", name)
