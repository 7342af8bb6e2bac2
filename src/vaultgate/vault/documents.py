"""Reading one note in the three formats the read tools offer, always as a lossless window.

Every format is one text, windowed by ``paging.window_text`` the same way, so joining the
windows of a walk gives that text exactly (seed 004 windows whatever text the read answers):

- ``markdown``: the note's text (or one section of it).
- ``json``: the plugin's note JSON (frontmatter, tags, stat, links, then the content) as compact
  JSON text. A window of it is a slice of that text, not a JSON object of its own: the text
  whole parses; a short note's first window is the whole object.
- ``map``: headings (full ``A::B`` paths), block ids and frontmatter keys, as compact JSON text.
"""

from __future__ import annotations

from typing import Any, Literal

from vaultgate import markdown
from vaultgate.backend import Backend
from vaultgate.errors import InvalidArgument
from vaultgate.paging import Window, compact_json, window_text
from vaultgate.vault.backlinks import is_markdown

NoteFormat = Literal["markdown", "json", "map"]

MAX_LENGTH_LIMIT = 100_000


async def read_document(
    client: Backend,
    path: str | None,
    *,
    note_format: NoteFormat,
    max_length: int,
    start_index: int,
    section: str | None = None,
) -> Window:
    """Read ``path`` (None: the active file) and the requested window of it in ``note_format``."""
    text = await document_text(client, path, note_format, section)
    return window_text(text, start_index=start_index, max_length=max_length)


async def document_text(
    client: Backend, path: str | None, note_format: NoteFormat, section: str | None
) -> str:
    """The whole text a read of ``path`` in ``note_format`` windows."""
    match note_format:
        case "markdown":
            note = await client.read_note(path)
            return _section_or_whole(note.content, section)
        case "map":
            if section is not None:
                note = await client.read_note(path)
                doc_map = markdown.document_map(_section_or_whole(note.content, section))
            else:
                doc_map = await client.read_document_map(path)
            return compact_json(
                {
                    "headings": doc_map.headings,
                    "blocks": doc_map.blocks,
                    "frontmatterFields": doc_map.frontmatter_fields,
                }
            )
        case "json":
            if path is not None and not is_markdown(path):
                # the plugin answers only after its 5-second metadata-cache timeout
                raise InvalidArgument(
                    f"format='json' describes a note (.md), and {path!r} is not one. Read it "
                    "with format='markdown' (text) or list its folder for its name and size."
                )
            return note_json_text(await client.read_note_json(path), section)


def _section_or_whole(text: str, section: str | None) -> str:
    """The whole note, or the section under one heading (its heading line included)."""
    if section is None:
        return text
    heading = markdown.resolve_heading(markdown.parse_headings(text), section)
    return text[heading.start : heading.end]


def note_json_text(note_json: dict[str, Any], section: str | None) -> str:
    """The plugin's note JSON as compact text, ``content`` (the note, or one section of it)
    last, so the first window shows the frontmatter, tags, stat and links before the text."""
    content = _section_or_whole(str(note_json.get("content", "")), section)
    rendered = {key: value for key, value in note_json.items() if key != "content"}
    if section is not None:
        rendered["section"] = section
    rendered["content"] = content
    return compact_json(rendered)
