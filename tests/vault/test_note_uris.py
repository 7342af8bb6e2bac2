"""The resource URI of a vault file: RFC 3986 escapes, folders kept, and back again."""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.errors import InvalidArgument
from vaultgate.vault.note_uris import note_uri, path_of

AWKWARD = [
    pytest.param("Projects/Plan 🚀 #1 100%.md", id="emoji-hash-percent"),
    pytest.param("日本語/メモ.md", id="cjk"),
    pytest.param(unicodedata.normalize("NFD", "Areas/Café/Résumé.md"), id="nfd"),
    pytest.param("C# & .NET/100%25 done?.md", id="escape-lookalike"),
    pytest.param("Attachments/diagram (1).png", id="attachment"),
]


@pytest.mark.parametrize("path", AWKWARD)
def test_a_path_comes_back_from_its_uri_unchanged(path: str) -> None:
    assert path_of(note_uri(path)) == path


def test_the_uri_escapes_what_a_uri_would_misread_and_keeps_the_folders() -> None:
    assert note_uri("Projects/Plan 🚀 #1 100%.md") == (
        "vault:///Projects/Plan%20%F0%9F%9A%80%20%231%20100%25.md"
    )


@pytest.mark.parametrize("path", AWKWARD)
def test_a_host_expanding_the_template_reaches_the_same_path(path: str) -> None:
    assert path_of("vault:///" + quote(path, safe="")) == path


def test_an_iri_with_literal_characters_reads_as_itself() -> None:
    assert path_of("vault:///日本語/メモ.md") == "日本語/メモ.md"


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        pytest.param("file:///etc/passwd", "is not a vaultgate resource", id="scheme"),
        pytest.param("vault:///", "names no file", id="empty"),
        pytest.param("vault:///Projects/", "names no file", id="folder"),
        pytest.param("vault:///%C3.md", "no UTF-8 text", id="half-character"),
        pytest.param("vault:///..%2F..%2Fetc.md", "'..' segments", id="escape-up"),
    ],
)
def test_a_bad_uri_says_what_a_uri_looks_like(uri: str, expected: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        path_of(uri)

    assert expected in str(caught.value)


names = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\"),
    min_size=1,
    max_size=20,
).filter(lambda name: name not in (".", "..") and not name.startswith("."))


@given(st.lists(names, min_size=1, max_size=4))
def test_every_path_round_trips(segments: list[str]) -> None:
    path = "/".join(segments)
    assert path_of(note_uri(path)) == path
