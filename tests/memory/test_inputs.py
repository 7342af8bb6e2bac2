"""What the store accepts: redaction, caps, normal forms, hashes and id lists."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultgate.errors import InvalidMemoryInput
from vaultgate.memory.inputs import (
    MAX_CONTENT_CHARS,
    REDACTED,
    clean_text,
    content_hash,
    normalize_project,
    normalize_scope,
    normalize_topic_key,
    normalize_type,
    optional_project,
    parse_id_list,
    redact,
    searchable,
    suggest_topic_key,
    unique_ids,
)

# --- redaction ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "spans"),
    [
        pytest.param("no secrets here", "no secrets here", 0, id="none"),
        pytest.param("key <private>sk-123</private> ok", "key [REDACTED] ok", 1, id="one"),
        pytest.param("<PRIVATE>a</Private>", "[REDACTED]", 1, id="any-case"),
        pytest.param("a <private>line1\nline2</private> b", "a [REDACTED] b", 1, id="multiline"),
        pytest.param(
            "<private>a</private> and <private>b</private>",
            "[REDACTED] and [REDACTED]",
            2,
            id="two-spans",
        ),
        pytest.param(
            "<private>a<private>b</private>c</private>d", "[REDACTED]d", 1, id="nested-is-one"
        ),
        pytest.param(
            "start <private>never closed", "start [REDACTED]", 1, id="unclosed-fails-closed"
        ),
        pytest.param("stray </private> tag", "stray </private> tag", 0, id="stray-close-is-text"),
        pytest.param("k <private x=1>SECRET</private> ok", "k [REDACTED] ok", 1, id="attribute"),
        pytest.param(
            '<private reason="a>b">SECRET</private>', "[REDACTED]", 1, id="quoted-bracket"
        ),
        pytest.param("< PRIVATE >SECRET</private>!", "[REDACTED]!", 1, id="spaces-upper"),
        pytest.param("<Private\n>SECRET\r\n</Private\t>日本", "[REDACTED]日本", 1, id="newline"),
        pytest.param("<private>SECRET</private >🔑", "[REDACTED]🔑", 1, id="close-space"),
        pytest.param("<private>SECRET< / PRIVATE>#1", "[REDACTED]#1", 1, id="close-spaced"),
        pytest.param("<PRIVATE x=1>SECRET never closed", "[REDACTED]", 1, id="unclosed-attr"),
        pytest.param("<privately>open</privately>", "<privately>open</privately>", 0, id="word"),
    ],
)
def test_private_spans_are_replaced(text: str, expected: str, spans: int) -> None:
    assert redact(text) == (expected, spans)


plain = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40)


@given(before=plain, secret=plain, after=plain)
def test_a_private_span_never_survives(before: str, secret: str, after: str) -> None:
    redacted, spans = redact(f"{before}<private>{secret}</private>{after}")

    assert redacted == f"{before}{REDACTED}{after}"
    assert spans == 1


@given(text=st.text(max_size=80))
def test_redaction_is_idempotent(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, 0)


# --- caps -----------------------------------------------------------------------------------


def test_content_at_the_cap_is_kept_whole_and_one_more_character_is_refused() -> None:
    at_cap = "é" * MAX_CONTENT_CHARS  # characters, not bytes, are counted

    assert clean_text("content", at_cap, cap=MAX_CONTENT_CHARS) == (at_cap, 0)
    with pytest.raises(InvalidMemoryInput, match=r"100,001 characters .* at most 100,000"):
        clean_text("content", at_cap + "é", cap=MAX_CONTENT_CHARS)


def test_the_cap_applies_to_what_is_stored_after_redaction() -> None:
    text = "<private>" + "x" * 50 + "</private>"
    assert clean_text("content", text, cap=20) == (REDACTED, 1)


@pytest.mark.parametrize("value", ["", "   \n\t"])
def test_empty_required_text_is_refused(value: str) -> None:
    with pytest.raises(InvalidMemoryInput, match="is empty"):
        clean_text("title", value, cap=10)


def test_a_lone_surrogate_is_refused_with_its_position() -> None:
    with pytest.raises(InvalidMemoryInput, match="position 3"):
        clean_text("content", "abc\ud800", cap=10)


def test_a_query_with_a_lone_surrogate_becomes_searchable_text() -> None:
    assert searchable("ab\ud800c") == "ab\ufffdc"


# --- normal forms ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("vaultgate", "vaultgate", id="plain"),
        pytest.param(" VaultGate ", "vaultgate", id="case-and-spaces"),
        pytest.param("My   Repo", "my repo", id="inner-spaces"),
        pytest.param(None, "", id="none"),
        pytest.param("   ", "", id="blank"),
    ],
)
def test_project_names_are_normalized(value: str | None, expected: str) -> None:
    assert normalize_project(value) == expected


def test_a_blank_project_filter_means_every_project() -> None:
    assert optional_project(None) is None
    assert optional_project("  ") is None
    assert optional_project(" X ") == "x"


def test_an_overlong_project_name_is_refused() -> None:
    with pytest.raises(InvalidMemoryInput, match="at most 200"):
        normalize_project("p" * 201)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("decision", "decision"), (" BugFix ", "bugfix"), ("session_summary", "session_summary")],
)
def test_types_are_lower_case_words(value: str, expected: str) -> None:
    assert normalize_type(value) == expected


@pytest.mark.parametrize("value", ["", "two words", "a/b", "x" * 41, "-lead"])
def test_unusable_types_are_refused(value: str) -> None:
    with pytest.raises(InvalidMemoryInput, match="type"):
        normalize_type(value)


def test_scope_is_project_or_personal() -> None:
    assert normalize_scope(" Personal ") == "personal"
    with pytest.raises(InvalidMemoryInput, match="'project' or 'personal'"):
        normalize_scope("team")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (" Architecture/Auth Flow ", "architecture/auth-flow"),
        ("", None),
        (None, None),
    ],
)
def test_topic_keys_are_normalized(value: str | None, expected: str | None) -> None:
    assert normalize_topic_key(value) == expected


def test_an_overlong_topic_key_is_refused_not_cut() -> None:
    with pytest.raises(InvalidMemoryInput, match="at most 120"):
        normalize_topic_key("k" * 121)


def test_the_duplicate_hash_ignores_case_and_spacing_only() -> None:
    base = content_hash("Auth flow", "We use JWT.")

    assert content_hash("  AUTH   flow", "we use\n jwt.") == base
    assert content_hash("Auth flow", "We use JWTs.") != base
    assert content_hash("Auth", "flow We use JWT.") != base  # a word moved out of the title
    assert content_hash("Auth flow x", "We use JWT.") != base


WHITESPACE = [chr(c) for c in range(0x3001) if chr(c).isspace()]  # every one is below U+3001


@given(
    st.lists(
        st.text(alphabet=st.sampled_from([*WHITESPACE, "a", "B", "ß", "\0"]), max_size=12),
        min_size=2,
        max_size=2,
    )
)
def test_the_duplicate_hash_is_the_one_files_already_hold(parts: list[str]) -> None:
    """Rows saved before keep their hashes: whitespace runs as one space, trimmed, casefolded."""
    title, content = parts
    normal = "\0".join(re.sub(r"\s+", " ", p).strip().casefold() for p in (title, content))

    assert content_hash(title, content) == hashlib.sha256(normal.encode("utf-8")).hexdigest()


def test_a_suggested_topic_key_is_type_and_title_slug() -> None:
    assert suggest_topic_key("decision", "Use JWT for Auth!") == "decision/use-jwt-for-auth"
    assert suggest_topic_key("bugfix", "???") == "bugfix/topic"


# --- id lists -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param([1, 2], [1, 2], id="list"),
        pytest.param("[1, 2, 3]", [1, 2, 3], id="json-text"),
        pytest.param("[]", [], id="json-empty"),
    ],
)
def test_id_lists_come_as_lists_or_json(value: str | list[int], expected: list[int]) -> None:
    assert parse_id_list(value, name="compact_ids") == expected


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("1, 2", id="not-json"),
        pytest.param('{"a": 1}', id="object"),
        pytest.param("[1, 2.5]", id="float"),
        pytest.param('["1"]', id="string-id"),
        pytest.param("[true]", id="bool"),
        pytest.param("12", id="scalar"),
    ],
)
def test_malformed_id_lists_are_refused(value: str) -> None:
    with pytest.raises(InvalidMemoryInput, match="compact_ids"):
        parse_id_list(value, name="compact_ids")


def test_unique_ids_keep_order_drop_repeats_and_enforce_bounds() -> None:
    assert unique_ids([3, 1, 3, 2], maximum=5, name="ids") == (3, 1, 2)
    with pytest.raises(InvalidMemoryInput, match="empty"):
        unique_ids([], maximum=5, name="ids")
    with pytest.raises(InvalidMemoryInput, match="at most 5"):
        unique_ids(range(1, 7), maximum=5, name="ids")  # type: ignore[arg-type]
    for impossible in (0, -1, 2**63, 2**64, 10**400):
        with pytest.raises(InvalidMemoryInput, match="ids from 1 to 9223372036854775807"):
            unique_ids([impossible], maximum=5, name="ids")
