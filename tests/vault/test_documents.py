"""The text each read format windows: the json format is the plugin's note JSON, content last."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from vaultgate.paging import window_text
from vaultgate.vault.documents import note_json_text

texts = st.lists(st.sampled_from(["a", "😀", "漢字", "\r\n", "👩\u200d💻", "🇫🇷", "\n", '"'])).map(
    "".join
)

NOTE_JSON = {
    "content": "# Plan\r\n\n## Risks 😀\nrain\n## Later\nnothing\n",
    "frontmatter": {"status": "draft"},
    "path": "Projects/Plan.md",
    "stat": {"ctime": 1, "mtime": 2, "size": 44},
    "tags": ["#plan"],
}


def test_the_json_text_is_the_plugins_note_json_with_the_content_last() -> None:
    text = note_json_text(NOTE_JSON, None)

    assert json.loads(text) == NOTE_JSON
    assert list(json.loads(text)) == ["frontmatter", "path", "stat", "tags", "content"]
    assert text.endswith('"content":"# Plan\\r\\n\\n## Risks 😀\\nrain\\n## Later\\nnothing\\n"}')


def test_a_section_is_named_and_only_its_text_is_the_content() -> None:
    rendered = json.loads(note_json_text(NOTE_JSON, "Risks 😀"))

    assert rendered["section"] == "Risks 😀"
    assert rendered["content"] == "## Risks 😀\nrain\n"
    assert rendered["frontmatter"] == {"status": "draft"}


@given(content=texts, max_length=st.integers(min_value=1, max_value=60))
def test_the_json_windows_of_a_walk_join_into_the_json_text(content: str, max_length: int) -> None:
    text = note_json_text({**NOTE_JSON, "content": content}, None)
    pieces = []
    start = 0
    while True:
        window = window_text(text, start_index=start, max_length=max_length)
        pieces.append(window.parts()[0])
        if not window.has_more:
            break
        start = window.end_index

    assert json.loads("".join(pieces))["content"] == content
