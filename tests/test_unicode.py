"""Half a character: found where it stands, replaced only for showing."""

from __future__ import annotations

import pytest

from vaultgate.unicode import lone_surrogate_at, replace_lone_surrogates


@pytest.mark.parametrize(
    ("value", "position"),
    [
        pytest.param("plain 日本 🚀", None, id="whole-characters"),
        pytest.param("ab\ud83d", 2, id="high-half-at-the-end"),
        pytest.param("\ude80ab", 0, id="low-half-at-the-start"),
        pytest.param("a🚀b\udfffc", 3, id="after-a-whole-emoji"),
    ],
)
def test_the_first_lone_surrogate_is_found(value: str, position: int | None) -> None:
    assert lone_surrogate_at(value) == position


def test_lone_surrogates_become_replacement_characters_and_whole_emoji_stay() -> None:
    assert replace_lone_surrogates("\ude80 zz 🚀 日本 \ud83d") == "\ufffd zz 🚀 日本 \ufffd"
