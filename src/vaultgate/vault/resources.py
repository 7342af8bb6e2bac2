"""Vault files as MCP resources, without MCP: reading one, and listing notes page by page.

- **Reading** is bounded like a read: a text file's first ``CONTENT_WINDOW`` characters as
  the first contents item, and when more remains, as items of their own, the window's metadata
  and the seed's truncation sentence with the call that reads on. A note is decoded
  as the read tools decode it; another file is text when its bytes are UTF-8 without NUL and
  its type is not a known binary one. A binary attachment is announced (type, size), never
  sent: a host would paste base64 into the conversation.
- **Listing** offers the notes, most recently modified first (a person attaching a note most
  often wants one just worked on), from one JsonLogic search of every note's ``stat``
  (cached like every search, so the pages asked within a while agree). A page holds as many
  notes as fit in ``LIST_PAGE_BUDGET`` characters of JSON; its cursor is the offset of the
  next note, written ``o<offset>``.

Everything goes through the guarded client, so hidden paths, allow/deny and ``mcp-hidden``
apply as to every read: such a file is never listed, and reading it answers "not found".
"""

from __future__ import annotations

import datetime
import mimetypes
from dataclasses import dataclass
from typing import Any

from vaultgate.backend import Backend
from vaultgate.calls import call
from vaultgate.errors import InvalidArgument
from vaultgate.paging import (
    CONTENT_WINDOW,
    DEFAULT_RESPONSE_BUDGET,
    compact_json,
    fit_count,
    window_text,
)
from vaultgate.vault.listing import NOTE_SUFFIX
from vaultgate.vault.note_uris import note_uri
from vaultgate.vault.search import VaultSearcher

NOTE_MIME = "text/markdown"
LIST_PAGE_BUDGET = DEFAULT_RESPONSE_BUDGET - 100  # the envelope: {"resources":[…],"nextCursor"}
CURSOR_PREFIX = "o"
_CURSOR_DIGITS = 12  # an offset into a trillion notes
_CURSOR_SHOWN = 40  # characters of a refused cursor repeated in the error
# Every note is a row (a one-item array is truthy): its mtime and size, in one search.
NOTE_STATS = {"merge": [[{"var": "stat.mtime"}], [{"var": "stat.size"}]]}
# Obsidian's own text formats and the usual ones mimetypes may not know on every platform.
_TEXT_TYPES = {
    ".md": NOTE_MIME,
    ".canvas": "application/json",
    ".base": "text/yaml",
    ".txt": "text/plain",
    ".csv": "text/csv",
    ".json": "application/json",
    ".yaml": "text/yaml",
    ".yml": "text/yaml",
}
_BINARY_FAMILIES = ("image/", "audio/", "video/", "font/")
_BINARY_TYPES = {"application/pdf", "application/zip", "application/octet-stream"}


@dataclass(frozen=True, slots=True)
class TextResource:
    path: str
    mime_type: str
    parts: tuple[str, ...]  # the window's text; when cut, its metadata and how to read on

    def contents(self) -> list[tuple[str, str]]:
        """``(text, MIME type)`` of each contents item: the window in the file's own type, its
        metadata as JSON, the sentence that says how to read on as plain text."""
        types = (self.mime_type, "application/json", "text/plain")
        return list(zip(self.parts, types, strict=False))


@dataclass(frozen=True, slots=True)
class BinaryResource:
    path: str
    mime_type: str
    size: int  # bytes

    def contents(self) -> list[tuple[str, str]]:
        """One plain-text item about the file (its own type would promise the bytes)."""
        return [(self.text, "text/plain")]

    @property
    def text(self) -> str:
        """What is sent instead of the bytes."""
        return (
            f"{self.path!r} is a binary file ({self.mime_type}, {self.size:,} bytes); its "
            "content is not sent. Link or embed it from a note, e.g. "
            f"![[{self.path}]], or open it in Obsidian."
        )


@dataclass(frozen=True, slots=True)
class ListedNote:
    path: str
    mtime: int  # epoch milliseconds
    size: int  # bytes

    def entry(self) -> dict[str, Any]:
        """The note's entry in ``resources/list``, in wire spelling."""
        return {
            "uri": note_uri(self.path),
            "name": self.path,
            "mimeType": NOTE_MIME,
            "size": self.size,
            "annotations": {"lastModified": _iso(self.mtime)},
        }


@dataclass(frozen=True, slots=True)
class ListPage:
    notes: tuple[ListedNote, ...]
    next_cursor: str | None
    total: int


def mime_type_of(path: str) -> str:
    """The file's MIME type from its extension (``application/octet-stream`` if unknown)."""
    suffix = "." + path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    known = _TEXT_TYPES.get(suffix)
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type("x" + suffix, strict=False)
    return guessed or "application/octet-stream"


def is_binary_type(mime_type: str) -> bool:
    return mime_type.startswith(_BINARY_FAMILIES) or mime_type in _BINARY_TYPES


def as_text(data: bytes) -> str | None:
    """The bytes as text, or None when they are not UTF-8 or hold a NUL (a binary file)."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def windowed(path: str, text: str) -> tuple[str, ...]:
    """The first window of ``text`` as a read answers it (``Window.parts``): the text alone
    when it fits; else the window, its metadata, and the seed's truncation sentence followed by
    the read call from where the window ends (a resource read takes no startIndex)."""
    window = window_text(text, start_index=0, max_length=CONTENT_WINDOW)
    parts = window.parts()
    if window.has_more:
        rest = call("get_vault_file", filename=path, startIndex=window.end_index)
        parts[-1] += (
            f" This resource is the first {window.end_index:,} of {window.total_length:,} "
            f"characters of {path!r}: read the rest with {rest}."
        )
    return tuple(parts)


async def read_resource(client: Backend, path: str) -> TextResource | BinaryResource:
    """The resource of the vault file at ``path`` (NotFound as the read tools answer it)."""
    mime_type = mime_type_of(path)
    data = await client.read_file(path)
    if path.endswith(NOTE_SUFFIX):
        text: str | None = data.decode("utf-8", errors="replace")  # as read_note decodes it
    elif is_binary_type(mime_type):
        text = None
    else:
        text = as_text(data)
        if text is not None and mime_type == "application/octet-stream":
            mime_type = "text/plain"
    if text is None:
        return BinaryResource(path, mime_type, len(data))
    return TextResource(path, mime_type, windowed(path, text))


def parse_cursor(cursor: str | None) -> int:
    """The offset a ``resources/list`` cursor names (0 without one).

    More digits than any vault's offset needs is no cursor of ours: Python would refuse to
    read past 4,300 of them, and the error repeats only the cursor's start.
    """
    if cursor is None:
        return 0
    digits = cursor.removeprefix(CURSOR_PREFIX)
    if (
        not cursor.startswith(CURSOR_PREFIX)
        or not digits.isascii()
        or not digits.isdigit()
        or len(digits) > _CURSOR_DIGITS
    ):
        shown = cursor if len(cursor) <= _CURSOR_SHOWN else f"{cursor[:_CURSOR_SHOWN]}…"
        raise InvalidArgument(
            f"Invalid cursor {shown!r}: pass the nextCursor of the previous resources/list "
            "page as it came, or no cursor to start from the most recent note."
        )
    return int(digits)


async def notes_by_recency(searcher: VaultSearcher, *, offset: int = 0) -> list[ListedNote]:
    """Every reachable note, most recently modified first (then by path): searched now for
    a first page, from its snapshot for a later one (``offset``)."""
    rows = (await searcher.structured(NOTE_STATS, "jsonlogic", offset=offset)).value
    notes = []
    for row in rows:
        path, stats = row.get("filename"), row.get("result")
        if not isinstance(path, str) or not isinstance(stats, list) or len(stats) != 2:
            continue
        mtime, size = stats
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in stats):
            continue
        notes.append(ListedNote(path, int(mtime), int(size)))
    return sorted(notes, key=lambda note: (-note.mtime, note.path))


def list_page(
    notes: list[ListedNote], cursor: str | None, *, budget: int = LIST_PAGE_BUDGET
) -> ListPage:
    """The page of ``notes`` the cursor starts, within ``budget`` characters of JSON."""
    offset = parse_cursor(cursor)
    if offset > 0 and offset >= len(notes):
        raise InvalidArgument(
            f"The cursor {cursor!r} is past the last note ({len(notes)} listed now; notes "
            "were removed since). List again without a cursor."
        )
    rest = notes[offset:]
    kept = fit_count((compact_json(note.entry()) for note in rest), budget)
    page = tuple(rest[:kept])
    after = offset + kept
    return ListPage(
        page, f"{CURSOR_PREFIX}{after}" if after < len(notes) else None, total=len(notes)
    )


def _iso(mtime_ms: int) -> str:
    when = datetime.datetime.fromtimestamp(mtime_ms / 1000, datetime.UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
