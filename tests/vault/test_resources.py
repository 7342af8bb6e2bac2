"""Resources without MCP: the list page's budget and cursor, text or binary, the window."""

from __future__ import annotations

import json

import pytest

from vaultgate.errors import InvalidArgument
from vaultgate.vault.resources import (
    ListedNote,
    as_text,
    is_binary_type,
    list_page,
    mime_type_of,
    windowed,
)

NOTES = [ListedNote(f"Bulk/Note {n:03} 日本 #{n} 100%.md", 1_000_000 - n, n) for n in range(300)]


def test_walking_the_cursors_gives_every_note_once_within_5000_characters_a_page() -> None:
    seen: list[str] = []
    cursor = None
    while True:
        page = list_page(NOTES, cursor)
        body = json.dumps(
            {"resources": [n.entry() for n in page.notes], "nextCursor": page.next_cursor},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        assert len(body) <= 5_000
        seen += [note.path for note in page.notes]
        cursor = page.next_cursor
        if cursor is None:
            break

    assert seen == [note.path for note in NOTES]


@pytest.mark.parametrize("cursor", ["x", "o-1", "o", "o١٢"])
def test_a_cursor_not_ours_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidArgument, match="Invalid cursor"):
        list_page(NOTES, cursor)


@pytest.mark.parametrize("digits", [13, 4_301, 50_000])
def test_a_cursor_of_too_many_digits_is_refused_in_a_short_message(digits: int) -> None:
    # past 4,300 digits int() raised ValueError: error code 0 and a traceback (issue 36)
    with pytest.raises(InvalidArgument, match="Invalid cursor") as refused:
        list_page(NOTES, "o" + "9" * digits)
    assert len(str(refused.value)) < 300


def test_a_cursor_past_the_end_says_to_list_again() -> None:
    with pytest.raises(InvalidArgument, match="List again without a cursor"):
        list_page(NOTES[:3], "o10")


@pytest.mark.parametrize(
    ("path", "mime", "binary"),
    [
        ("a/Note.md", "text/markdown", False),
        ("a/Board.canvas", "application/json", False),
        ("a/photo 🐱.PNG", "image/png", True),
        ("a/paper.pdf", "application/pdf", True),
        ("a/noextension", "application/octet-stream", True),
    ],
)
def test_mime_types(path: str, mime: str, binary: bool) -> None:
    assert mime_type_of(path) == mime
    assert is_binary_type(mime) is binary


def test_bytes_are_text_only_as_utf_8_without_nul() -> None:
    assert as_text("日本 🚀\r\n".encode()) == "日本 🚀\r\n"
    assert as_text(b"\x89PNG\r\n\x1a\n\x00") is None
    assert as_text(b"\xff\xfe") is None


def test_a_short_text_is_whole_and_a_long_one_says_how_to_read_on() -> None:
    assert windowed("a.md", "short\r\n") == ("short\r\n",)

    body, metadata, notice = windowed("a b.md", "x" * 25_000)

    assert body == "x" * 10_000
    assert json.loads(metadata) == {
        "truncated": True,
        "totalLength": 25_000,
        "startIndex": 0,
        "endIndex": 10_000,
        "nextIndex": 10_000,
        "hasMore": True,
    }
    assert notice.startswith("Content truncated. Call with startIndex of 10000 to get more.")
    assert 'get_vault_file(filename="a b.md", startIndex=10000)' in notice
