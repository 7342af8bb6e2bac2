"""Reading one note in the three formats the read tools offer, always as a lossless window.

- ``markdown``: the note's text (or one section of it), windowed.
- ``json``: the plugin's note JSON (frontmatter, tags, stat, links) with the content windowed.
  The metadata is bounded (long lists are cut and their totals reported) and the content window
  shrinks by the metadata's size, so the whole JSON stays within ``maxLength``.
- ``map``: headings (full ``A::B`` paths), block ids and frontmatter keys, as compact JSON text,
  windowed like any other content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vaultgate import markdown
from vaultgate.backend import Backend
from vaultgate.errors import InvalidArgument
from vaultgate.paging import Window, compact_json, fit_count, truncation_notice, window_text
from vaultgate.vault.backlinks import is_markdown

NoteFormat = Literal["markdown", "json", "map"]

MAX_LENGTH_LIMIT = 100_000
METADATA_LIST_BUDGET = 600  # characters per list (tags, links, backlinks, unresolvedLinks)
FRONTMATTER_BUDGET = 1_500
MIN_JSON_CONTENT_WINDOW = 500
_METADATA_LISTS = ("tags", "links", "backlinks", "unresolvedLinks")


@dataclass(frozen=True, slots=True)
class RenderedDocument:
    """The first content block (window plus notice) and the window it shows."""

    body: str
    window: Window

    def parts(self) -> list[str]:
        """The response's texts: the content alone when the window holds all of it from the
        start, else the window and its metadata ``{truncated, totalLength, startIndex, endIndex,
        nextIndex, hasMore}`` (cut, or read from a ``startIndex`` past 0)."""
        if not self.window.truncated:
            return [self.body]
        return [self.body, compact_json(self.window.metadata())]


async def read_document(
    client: Backend,
    path: str | None,
    *,
    note_format: NoteFormat,
    max_length: int,
    start_index: int,
    section: str | None = None,
) -> RenderedDocument:
    """Read ``path`` (None: the active file) and render the requested window of it."""
    match note_format:
        case "markdown":
            note = await client.read_note(path)
            text = _section_or_whole(note.content, section)
            return render_text(text, max_length=max_length, start_index=start_index)
        case "map":
            if section is not None:
                note = await client.read_note(path)
                doc_map = markdown.document_map(_section_or_whole(note.content, section))
            else:
                doc_map = await client.read_document_map(path)
            text = compact_json(
                {
                    "headings": doc_map.headings,
                    "blocks": doc_map.blocks,
                    "frontmatterFields": doc_map.frontmatter_fields,
                }
            )
            return render_text(text, max_length=max_length, start_index=start_index)
        case "json":
            if path is not None and not is_markdown(path):
                # the plugin answers only after its 5-second metadata-cache timeout
                raise InvalidArgument(
                    f"format='json' describes a note (.md), and {path!r} is not one. Read it "
                    "with format='markdown' (text) or list its folder for its name and size."
                )
            note_json = await client.read_note_json(path)
            return _render_note_json(note_json, section, max_length, start_index)


def render_text(text: str, *, max_length: int, start_index: int) -> RenderedDocument:
    """A window of ``text`` with its notice: how every plain content response is shaped."""
    window = window_text(text, start_index=start_index, max_length=max_length)
    return RenderedDocument(window.body_with_notice(), window)


def _section_or_whole(text: str, section: str | None) -> str:
    """The whole note, or the section under one heading (its heading line included)."""
    if section is None:
        return text
    heading = markdown.resolve_heading(markdown.parse_headings(text), section)
    return text[heading.start : heading.end]


def _render_note_json(
    note_json: dict[str, Any], section: str | None, max_length: int, start_index: int
) -> RenderedDocument:
    content = _section_or_whole(str(note_json.get("content", "")), section)
    metadata = bounded_metadata(note_json)
    if section is not None:
        metadata["section"] = section

    # The window shrinks by the metadata and by JSON escaping so the whole object stays within
    # max_length; a few passes converge because each pass only removes what overflowed.
    window_length = max(MIN_JSON_CONTENT_WINDOW, max_length - len(compact_json(metadata)) - 16)
    window_length = min(window_length, max_length)
    while True:
        window = window_text(content, start_index=start_index, max_length=window_length)
        rendered = compact_json({**metadata, "content": window.text})
        overflow = len(rendered) - max_length
        if overflow <= 0 or window_length <= MIN_JSON_CONTENT_WINDOW:
            break
        window_length = max(MIN_JSON_CONTENT_WINDOW, window_length - overflow)
    body = rendered
    if window.has_more:
        body = f"{rendered}\n\n{truncation_notice(window.end_index)}"
    return RenderedDocument(body, window)


def bounded_metadata(note_json: dict[str, Any]) -> dict[str, Any]:
    """The note JSON without its content, with long lists cut to a budget and totals reported."""
    metadata: dict[str, Any] = {}
    totals: dict[str, int] = {}
    for key, value in note_json.items():
        if key == "content":
            continue
        if key in _METADATA_LISTS and isinstance(value, list):
            kept = value[
                : fit_count(map(compact_json, value), METADATA_LIST_BUDGET, at_least_one=False)
            ]
            if len(kept) < len(value):
                totals[key] = len(value)
            metadata[key] = kept
        elif key == "frontmatter" and len(compact_json(value)) > FRONTMATTER_BUDGET:
            metadata[key] = {
                "_omitted": (
                    f"The frontmatter is {len(compact_json(value))} characters; read it with "
                    "format='markdown' (it is at the top of the note) or list its keys with "
                    "format='map'."
                )
            }
        else:
            metadata[key] = value
    if totals:
        metadata["listsCut"] = {
            "totals": totals,
            "note": "Long lists were cut to stay small; the totals say how many there are.",
        }
    return metadata
