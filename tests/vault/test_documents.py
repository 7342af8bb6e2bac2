"""What a windowed read answers: the content alone when it is whole, else window and metadata."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from vaultgate.vault.documents import render_text

texts = st.lists(st.sampled_from(["a", "😀", "漢字", "\r\n", "👩\u200d💻", "🇫🇷", "\n"])).map(
    "".join
)


@given(text=texts, max_length=st.integers(min_value=1, max_value=30), data=st.data())
def test_the_metadata_comes_only_with_a_cut_or_a_later_window(
    text: str, max_length: int, data: st.DataObject
) -> None:
    start = data.draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))

    parts = render_text(text, max_length=max_length, start_index=start).parts()

    whole = start == 0 and len(text) <= max_length
    if whole:
        assert parts == [text]
    else:
        body, metadata = parts
        assert body.startswith(text[start : start + max_length])
        assert json.loads(metadata)["truncated"] is True
        assert json.loads(metadata)["startIndex"] == start
