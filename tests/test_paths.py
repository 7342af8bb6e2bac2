"""Vault paths: what is refused before any request, and how segments are encoded."""

from __future__ import annotations

import re
import sys
import unicodedata
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.errors import HiddenPath, InvalidArgument, InvalidPath, NameTooLong
from vaultgate.paths import (
    NAME_MAX_BYTES,
    PATH_MAX_BYTES,
    encode_header_value,
    encode_vault_path,
    is_hidden,
    may_have_twin,
    normalize_directory,
    refuse_hidden_pattern,
    same_name,
    unicode_twin,
    validate_vault_path,
)

PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")

# Segments of notes Obsidian indexes: anything but '/', '\\' and NUL, not starting with '.'.
segments = st.one_of(
    st.text(
        st.characters(exclude_categories=["Cs"], exclude_characters="/\\\x00"),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["My Notes", "café", "🎉 party", "C#", "100%", "what?", "a&b", "a..b.md"]),
).filter(lambda segment: not segment.startswith("."))

vault_paths = st.lists(segments, min_size=1, max_size=5).map("/".join)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("Daily Notes/2024-01-01.md", id="spaces"),
        pytest.param("Café/naïve résumé.md", id="unicode"),
        pytest.param("漢字/ノート.md", id="cjk"),
        pytest.param("🎉/party 👩\u200d💻.md", id="emoji"),
        pytest.param("C#/notes #1.md", id="hash"),
        pytest.param("100%/done%20.md", id="percent"),
        pytest.param("Why?/what?.md", id="question-mark"),
        pytest.param("R&D/a&b.md", id="ampersand"),
        pytest.param("a..b.md", id="double-dot-inside-a-name"),
        pytest.param("notes/v1.2..3/x.md", id="dots-inside-a-folder-name"),
        pytest.param("Projects/", id="folder-with-trailing-slash"),
        pytest.param("a", id="single-segment"),
    ],
)
def test_ordinary_vault_paths_are_accepted_unchanged(path: str) -> None:
    assert validate_vault_path(path) == path


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        pytest.param("..", "'..' segments", id="dotdot-alone"),
        pytest.param("../secret.md", "'..' segments", id="dotdot-first"),
        pytest.param("a/../b.md", "'..' segments", id="dotdot-middle"),
        pytest.param("a/..", "'..' segments", id="dotdot-last"),
        pytest.param("a/../", "'..' segments", id="dotdot-before-trailing-slash"),
        pytest.param(".", "'.' segments", id="dot-alone"),
        pytest.param("./a.md", "'.' segments", id="dot-first"),
        pytest.param("a/./b.md", "'.' segments", id="dot-middle"),
        pytest.param("/etc/passwd", "starts with '/'", id="leading-slash"),
        pytest.param("/", "starts with '/'", id="root-slash"),
        pytest.param("a\\b.md", "backslashes", id="backslash"),
        pytest.param("..\\secret.md", "backslashes", id="windows-traversal"),
        pytest.param("a\x00.md", "NUL", id="nul"),
        pytest.param("a//b.md", "empty segment", id="double-slash"),
        pytest.param("a//", "empty segment", id="double-trailing-slash"),
        pytest.param("", "empty", id="empty"),
    ],
)
def test_unsafe_vault_paths_are_refused_with_a_reason(path: str, reason: str) -> None:
    with pytest.raises(InvalidPath) as caught:
        validate_vault_path(path)

    assert caught.value.path == path
    assert reason in caught.value.reason
    assert isinstance(caught.value, InvalidArgument)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(".obsidian/app.json", id="config"),
        pytest.param(".obsidian/plugins/obsidian-local-rest-api/data.json", id="the-key-file"),
        pytest.param(".obsidian/plugins/evil/main.js", id="plugin-code"),
        pytest.param(".obsidian/", id="config-folder"),
        pytest.param(".obsidian", id="config-folder-bare"),
        pytest.param(".trash/Private/old.md", id="trash"),
        pytest.param(".git/config", id="git"),
        pytest.param(".DS_Store", id="finder-file"),
        pytest.param("Projects/.hidden/x.md", id="hidden-folder-inside"),
        pytest.param("Projects/.secret.md", id="hidden-note"),
        pytest.param("notes/...md", id="three-dots"),
    ],
)
def test_hidden_paths_are_refused_as_not_part_of_the_vault(path: str) -> None:
    with pytest.raises(HiddenPath, match="Hidden and configuration files are not part") as caught:
        validate_vault_path(path)

    assert caught.value.path == path
    assert isinstance(caught.value, InvalidPath)
    assert is_hidden(path)


@given(parts=st.lists(segments, max_size=4), position=st.integers(0, 4), name=segments)
def test_a_hidden_segment_is_refused_wherever_it_stands(
    parts: list[str], position: int, name: str
) -> None:
    parts.insert(min(position, len(parts)), "." + name)
    path = "/".join(parts)

    with pytest.raises(HiddenPath):
        validate_vault_path(path)
    # normalize_directory strips surrounding blanks first, so '\r/.x' may fail as '/.x' does
    with pytest.raises(InvalidPath):
        normalize_directory(path)


@pytest.mark.parametrize("pattern", [".obsidian/**", "**/.*", "Projects/.hidden/*.md", ".trash"])
def test_a_glob_naming_a_hidden_segment_is_refused(pattern: str) -> None:
    with pytest.raises(HiddenPath, match="pattern"):
        refuse_hidden_pattern(pattern)


@pytest.mark.parametrize("pattern", ["**/*.md", "Projects/**", "a..b/*", "*.obsidian.md"])
def test_ordinary_globs_pass(pattern: str) -> None:
    refuse_hidden_pattern(pattern)


def test_an_empty_path_is_accepted_only_when_allowed() -> None:
    assert validate_vault_path("", allow_empty=True) == ""


@given(path=vault_paths)
def test_any_path_of_real_segments_is_accepted_unchanged(path: str) -> None:
    assert validate_vault_path(path) == path
    assert validate_vault_path(path + "/") == path + "/"


@given(
    parts=st.lists(segments, max_size=4),
    position=st.integers(min_value=0, max_value=4),
    bad=st.sampled_from(["..", "."]),
)
def test_a_dot_or_dotdot_segment_is_refused_wherever_it_stands(
    parts: list[str], position: int, bad: str
) -> None:
    parts.insert(min(position, len(parts)), bad)
    path = "/".join(parts)

    with pytest.raises(InvalidPath, match=f"'{re.escape(bad)}' segments"):
        validate_vault_path(path)
    with pytest.raises(InvalidPath):
        validate_vault_path(path + "/")


# --- names the disk cannot hold -------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("日本語" * 28 + ".md", id="cjk"),  # 84 characters of 3 bytes, and .md
        pytest.param("🚀" * 63 + ".md", id="emoji"),
        pytest.param("a" * 255, id="ascii"),
        pytest.param("Café #1 100%" + "é" * 121, id="accents"),
    ],
)
@pytest.mark.parametrize("where", ["{}", "Notes/{}", "{}/b.md", "Notes/{}/"])
def test_a_name_holds_255_bytes_and_not_one_more(name: str, where: str) -> None:
    assert len(name.encode()) == NAME_MAX_BYTES
    longer = name + "x"
    assert validate_vault_path(where.format(name)) == where.format(name)

    with pytest.raises(NameTooLong) as caught:
        validate_vault_path(where.format(longer))

    message = str(caught.value)
    assert "a name can hold at most 255 bytes (UTF-8)" in message
    assert " has 256: shorten it" in message
    assert longer not in message  # abbreviated, never echoed in full
    assert longer[:20] in message
    assert len(message) < 300
    assert caught.value.path == where.format(longer)
    assert caught.value.limit == NAME_MAX_BYTES
    assert isinstance(caught.value, InvalidPath)


def test_a_vault_path_holds_1024_bytes_and_not_one_more() -> None:
    path = "/".join(["日本語 🚀 #1"] * 56) + "/" + "x" * 16  # 56 names of 17 bytes, and 16
    assert len(path.encode()) == PATH_MAX_BYTES
    assert validate_vault_path(path) == path

    with pytest.raises(NameTooLong) as caught:
        validate_vault_path(path + "x")

    message = str(caught.value)
    assert "a vault path can hold at most 1,024 bytes (UTF-8); this one has 1,025" in message
    assert caught.value.limit == PATH_MAX_BYTES
    assert path not in message


wide_names = st.text(
    st.characters(exclude_categories=["Cs"], min_codepoint=0x80, exclude_characters="/\\"),
    min_size=40,
    max_size=100,
)


@given(parts=st.lists(wide_names, min_size=1, max_size=6))
def test_a_path_is_refused_exactly_when_a_name_or_the_whole_is_too_long(
    parts: list[str],
) -> None:
    path = "/".join(parts)
    fits = all(len(part.encode()) <= NAME_MAX_BYTES for part in parts) and (
        len(path.encode()) <= PATH_MAX_BYTES
    )
    if fits:
        assert validate_vault_path(path) == path
    else:
        with pytest.raises(NameTooLong):
            validate_vault_path(path)


# --- names in another Unicode form ------------------------------------------------------------

NFD_CAFE = unicodedata.normalize("NFD", "Café ☕.md")


@pytest.mark.parametrize(
    ("name", "entries", "twin"),
    [
        pytest.param("Café ☕.md", [NFD_CAFE, "other.md"], NFD_CAFE, id="nfc-new-nfd-listed"),
        pytest.param(NFD_CAFE, ["Café ☕.md"], "Café ☕.md", id="nfd-new-nfc-listed"),
        pytest.param("Réunions", ["Re\u0301unions/", "a.md"], "Re\u0301unions/", id="a-folder"),
        pytest.param("Café ☕.md", ["Café ☕.md", NFD_CAFE], None, id="the-name-itself-exists"),
        pytest.param("Café ☕.md", ["Cafe ☕.md", "café ☕.md"], None, id="no-twin"),
        pytest.param("K #1.md", ["\u212a #1.md"], "\u212a #1.md", id="kelvin-sign"),
        pytest.param("\u6b04.md", ["\uf91d.md"], "\uf91d.md", id="cjk-compatibility-ideograph"),
        pytest.param(
            "한국.md",
            [unicodedata.normalize("NFD", "한국.md")],
            unicodedata.normalize("NFD", "한국.md"),
            id="hangul",
        ),
    ],
)
def test_a_twin_is_a_listed_name_of_the_same_nfc_form_with_other_code_points(
    name: str, entries: list[str], twin: str | None
) -> None:
    assert unicode_twin(name, entries) == twin


@pytest.mark.parametrize(
    ("path", "may"),
    [
        pytest.param("Projects/plan 100% #1.md", False, id="ascii"),
        pytest.param("Kanban.md", True, id="a-K"),
        pytest.param("a;b.md", True, id="a-semicolon"),
        pytest.param("`code`.md", True, id="a-backtick"),
        pytest.param("Café.md", True, id="accented"),
        pytest.param("日本.md", True, id="cjk"),
    ],
)
def test_only_a_name_that_can_be_written_another_way_may_have_a_twin(path: str, may: bool) -> None:
    assert may_have_twin(path) is may


def test_no_code_point_composes_to_an_ascii_character_the_twin_shortcut_skips() -> None:
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        composed = unicodedata.normalize("NFC", char)
        if composed != char and composed.isascii():
            assert may_have_twin(composed), hex(code)


# --- names one disk holds as one file ----------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        pytest.param("Notes/Plan.md", "notes/plan.md", True, id="case"),
        pytest.param("Café ☕.md", "Cafe\u0301 ☕.md", True, id="unicode-form"),
        pytest.param("CAFÉ.md", "cafe\u0301.md", True, id="both"),
        pytest.param("Notes/a.md", "Notes/b.md", False, id="other"),
    ],
)
def test_same_name_ignores_letter_case_and_unicode_form(
    first: str, second: str, same: bool
) -> None:
    assert same_name(first, second) is same


# --- normalize_directory ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("directory", "normalized"),
    [
        pytest.param("", "", id="empty-is-root"),
        pytest.param("/", "", id="slash-is-root"),
        pytest.param("   ", "", id="blank-is-root"),
        pytest.param("Projects", "Projects/", id="adds-trailing-slash"),
        pytest.param("Projects/", "Projects/", id="keeps-trailing-slash"),
        pytest.param("Projects/2024", "Projects/2024/", id="nested"),
        pytest.param("  Daily Notes/ ", "Daily Notes/", id="strips-surrounding-blanks"),
        pytest.param("🎉 #1", "🎉 #1/", id="emoji-and-hash"),
    ],
)
def test_normalize_directory_gives_the_form_the_api_lists(directory: str, normalized: str) -> None:
    assert normalize_directory(directory) == normalized


@pytest.mark.parametrize("directory", ["../x", "a/../b", "/abs", "a\\b", "a//b", "./"])
def test_normalize_directory_refuses_unsafe_folders(directory: str) -> None:
    with pytest.raises(InvalidPath):
        normalize_directory(directory)


# --- encode_vault_path --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "encoded"),
    [
        pytest.param("Daily Notes/a b.md", "Daily%20Notes/a%20b.md", id="spaces"),
        pytest.param("C#/notes #1.md", "C%23/notes%20%231.md", id="hash"),
        pytest.param("100%.md", "100%25.md", id="percent"),
        pytest.param("what?.md", "what%3F.md", id="question-mark"),
        pytest.param("R&D/a&b.md", "R%26D/a%26b.md", id="ampersand"),
        pytest.param("café.md", "caf%C3%A9.md", id="unicode"),
        pytest.param("🎉.md", "%F0%9F%8E%89.md", id="emoji"),
        pytest.param("Projects/", "Projects/", id="trailing-slash-kept"),
        pytest.param("a-b_c.d~e/f.md", "a-b_c.d~e/f.md", id="unreserved-untouched"),
    ],
)
def test_encode_vault_path_encodes_each_segment_and_keeps_slashes(path: str, encoded: str) -> None:
    assert encode_vault_path(path) == encoded


@given(path=vault_paths)
def test_every_encoded_segment_unquotes_back_and_hides_no_delimiter(path: str) -> None:
    encoded = encode_vault_path(path)
    originals = path.split("/")
    encoded_segments = encoded.split("/")

    assert len(encoded_segments) == len(originals)
    assert encoded.isascii()
    for original, segment in zip(originals, encoded_segments, strict=True):
        assert unquote(segment) == original
        # Whatever remains once the %XX escapes are removed must hold no delimiter.
        bare = PERCENT_ESCAPE.sub("", segment)
        assert not set(bare) & set("/#?%& ")


# --- encode_header_value ------------------------------------------------------------------


@given(value=st.text(st.characters(exclude_categories=["Cs"])))
def test_header_values_are_printable_ascii_and_unquote_to_the_input(value: str) -> None:
    encoded = encode_header_value(value)

    assert all(" " <= char <= "~" for char in encoded)
    assert unquote(encoded) == value


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        pytest.param("Daily Notes/a b.md", "Daily Notes/a b.md", id="readable-kept"),
        pytest.param("Heading::Sub", "Heading::Sub", id="heading-delimiter-kept"),
        pytest.param("Café", "Caf%C3%A9", id="unicode"),
        pytest.param("50%", "50%25", id="percent"),
        pytest.param("a\r\nX-Injected: 1", "a%0D%0AX-Injected: 1", id="no-header-injection"),
    ],
)
def test_encode_header_value_examples(value: str, encoded: str) -> None:
    assert encode_header_value(value) == encoded


@given(st.text(alphabet="a./ #", max_size=12))
def test_is_hidden_means_a_segment_starting_with_a_dot(path: str) -> None:
    assert is_hidden(path) == any(segment.startswith(".") for segment in path.split("/"))
