"""One frontmatter key changed on its own lines: every other byte stays (issue 27, item 4)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultgate.frontmatter_edit import NotEditableInPlace, delete_key, rename_key, set_value
from vaultgate.markdown import parse_frontmatter

# The issue's note: a comment, a quoted title, a date, an inline list and a 4.50
ISSUE_NOTE = (
    "---\n"
    "# written by me\n"
    'title: "Quoted title"\n'
    "status: draft\n"
    "completed: 2026-11-15\n"
    "aliases: [one, two]\n"
    "rating: 4.50\n"
    "tags: [alpha, beta/gamma]\n"
    "---\n"
    "# Body 🚀\n"
)

CRLF_NOTE = (
    "---\r\n"
    "名前: 日本語メモ 🚀\r\n"
    "tags:\r\n"
    "  - 日本\r\n"
    "  - area/研究   # kept\r\n"
    "\r\n"
    "summary: |\r\n"
    "  line one\r\n"
    "  line two ✨\r\n"
    "\r\n"
    "done: false\r\n"
    "---\r\n"
    "Body\r\n"
)


def data(text: str) -> dict[str, Any]:
    parsed = parse_frontmatter(text)
    assert parsed.valid
    return parsed.data


def test_deleting_an_unrelated_key_removes_only_its_line() -> None:
    assert delete_key(ISSUE_NOTE, "status") == ISSUE_NOTE.replace("status: draft\n", "")


def test_adding_a_tag_to_an_inline_list_keeps_it_inline() -> None:
    new = set_value(ISSUE_NOTE, "tags", ["alpha", "beta/gamma", "new"])

    assert new == ISSUE_NOTE.replace("[alpha, beta/gamma]", "[alpha, beta/gamma, new]")


def test_removing_a_tag_from_an_inline_list_keeps_the_other_items_bytes() -> None:
    new = set_value(ISSUE_NOTE, "tags", ["beta/gamma"])

    assert new == ISSUE_NOTE.replace("[alpha, beta/gamma]", "[beta/gamma]")


def test_a_new_date_is_appended_plain_at_the_end_of_the_block() -> None:
    new = set_value(ISSUE_NOTE, "updated", "2026-11-19")

    assert new == ISSUE_NOTE.replace("---\n# Body", "updated: 2026-11-19\n---\n# Body")


def test_setting_a_value_keeps_the_key_spacing_and_a_trailing_comment() -> None:
    text = "---\nstatus:   draft  # my note\nother: 1\n---\n"

    assert (
        set_value(text, "status", "done ✅") == "---\nstatus:   done ✅  # my note\nother: 1\n---\n"
    )


def test_a_value_that_would_misread_is_quoted_and_reads_back() -> None:
    new = set_value(ISSUE_NOTE, "status", "true")

    assert "status: 'true'\n" in new
    assert data(new)["status"] == "true"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        pytest.param(
            lambda t: set_value(t, "tags", ["日本", "area/研究", "新しい"]),
            CRLF_NOTE.replace("# kept\r\n", "# kept\r\n  - 新しい\r\n"),
            id="block-list-append",
        ),
        pytest.param(
            lambda t: set_value(t, "tags", ["area/研究"]),
            CRLF_NOTE.replace("  - 日本\r\n", ""),
            id="block-list-remove",
        ),
        pytest.param(
            lambda t: delete_key(t, "summary"),
            CRLF_NOTE.replace("summary: |\r\n  line one\r\n  line two ✨\r\n", ""),
            id="block-scalar-delete",
        ),
        pytest.param(
            lambda t: set_value(t, "名前", "名前 🌸"),
            CRLF_NOTE.replace("日本語メモ 🚀", "名前 🌸"),
            id="cjk-emoji-value",
        ),
        pytest.param(
            lambda t: rename_key(t, "done", "完了"),
            CRLF_NOTE.replace("done: false", "完了: false"),
            id="rename",
        ),
        pytest.param(
            lambda t: set_value(t, "new", ["a b", "#c"]),
            CRLF_NOTE.replace("done: false\r\n", "done: false\r\nnew:\r\n  - a b\r\n  - '#c'\r\n"),
            id="new-list-in-block-style",
        ),
    ],
)
def test_crlf_blocks_change_only_the_keys_lines(edit: Any, expected: str) -> None:
    assert edit(CRLF_NOTE) == expected


def test_a_note_without_frontmatter_gets_a_block_in_its_line_endings() -> None:
    assert set_value("# T\r\nx\r\n", "k", "v") == "---\r\nk: v\r\n---\r\n# T\r\nx\r\n"


def test_deleting_the_last_key_drops_the_block_but_a_comment_keeps_it() -> None:
    assert delete_key("---\nk: 1\n---\n# T\n", "k") == "# T\n"
    assert delete_key("---\n# mine\nk: 1\n---\n# T\n", "k") == "---\n# mine\n---\n# T\n"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        pytest.param("---\n{a: 1, b: 2}\n---\n", "flow-style mapping", id="flow-mapping"),
        pytest.param("---\na: &x 1\nb: *x\n---\n", "anchor or alias", id="anchor"),
        pytest.param("---\na: 1\nb: 2\na: 3\n---\n", "spells 'a' 2 times", id="twice"),
    ],
)
def test_what_cannot_change_on_its_own_lines_is_refused_with_what_to_do(
    text: str, why: str
) -> None:
    for edit in (lambda: set_value(text, "a", 9), lambda: delete_key(text, "a")):
        with pytest.raises(NotEditableInPlace, match=why) as refused:
            edit()
        assert "Edit the note's text" in str(refused.value)


# --- property: only the target key's lines differ --------------------------------------------

_PLAIN = st.text("abcxyz日本🚀é", min_size=1, max_size=6)
_KEYS = st.lists(st.text("abcdefgh", min_size=1, max_size=5), min_size=1, max_size=6, unique=True)
_SCALARS = st.one_of(
    st.integers(-1000, 1000),
    st.booleans(),
    st.none(),
    st.sampled_from(["2026-11-15", "4.50", "yes", "true", "a: b", "#x", "", " pad "]),
    _PLAIN,
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(st.one_of(_PLAIN, st.integers(0, 9)), max_size=4),
    st.dictionaries(st.text("pq", min_size=1, max_size=2), _SCALARS, max_size=2),
)


def _scalar_text(value: Any, style: int) -> str:
    if value is None:
        return ["", "null", "~"][style % 3]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if style % 2 or not value or value != value.strip() or value in ("yes", "true", "4.50"):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if any(c in value for c in ":#") or value[0] in "-?!&*[]{}|>'\"%@`,":
        return "'" + value.replace("'", "''") + "'"
    return value


@st.composite
def _blocks(draw: st.DrawFn) -> tuple[str, dict[str, tuple[int, int]], str]:
    """A frontmatter block written by hand in mixed styles, the line range (in the note's
    lines, the opening fence being line 0) of each key, and the line ending."""
    keys = draw(_KEYS)
    le = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    for key in keys:
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# a comment", "", "#  日本 🚀"])))
        first = len(lines) + 1
        kind = draw(st.sampled_from(["scalar", "inline", "block", "literal", "map"]))
        style = draw(st.integers(0, 5))
        if kind == "scalar":
            lines.append(f"{key}: {_scalar_text(draw(_SCALARS), style)}".rstrip())
        elif kind in ("inline", "block"):
            items = [_scalar_text(v, style) or '""' for v in draw(st.lists(_PLAIN, max_size=3))]
            if kind == "inline" or not items:
                lines.append(f"{key}: [{', '.join(items)}]")
            else:
                lines.append(f"{key}:")
                indent = "  " if style % 2 else ""
                lines.extend(f"{indent}- {item}" for item in items)
        elif kind == "literal":
            lines += [f"{key}: |", "  first line", "  second 🚀"]
        else:
            lines += [f"{key}:", "  inner: 1", "  other: [x]"]
        spans[key] = (first, len(lines) + 1)
    text = "---" + le + "".join(line + le for line in lines) + "---" + le + "body" + le
    return text, spans, le


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(block=_blocks(), pick=st.integers(0, 5), value=_VALUES, op=st.integers(0, 5))
def test_an_edit_changes_only_the_target_keys_lines(
    block: tuple[str, dict[str, tuple[int, int]], str], pick: int, value: Any, op: int
) -> None:
    text, spans, le = block
    before = data(text)
    keys = list(spans)
    key = keys[pick % len(keys)]
    start, end = spans[key]
    if op == 0:
        new, expected = set_value(text, key, value), {**before, key: value}
    elif op == 1:
        new = delete_key(text, key)
        expected = {k: v for k, v in before.items() if k != key}
    elif op == 2 and "fresh" not in spans:
        new, expected = set_value(text, "fresh", value), {**before, "fresh": value}
        start = end = len(text.splitlines()) - 2  # inserted before the closing fence
    elif op == 3 and isinstance(before[key], list):
        grown = [*before[key], "added 🚀"]
        new, expected = set_value(text, key, grown), {**before, key: grown}
    elif op == 4 and isinstance(before[key], list) and before[key]:
        shrunk = before[key][1:]
        new, expected = set_value(text, key, shrunk), {**before, key: shrunk}
    elif "renamed" not in spans:
        new = rename_key(text, key, "renamed")
        expected = {("renamed" if k == key else k): v for k, v in before.items()}
    else:
        return
    old_lines, new_lines = text.splitlines(keepends=True), new.splitlines(keepends=True)
    if not new.startswith("---"):  # the block's only key went, and the block with it
        assert expected == {}
        assert new == f"body{le}"
        return
    assert data(new) == expected
    kept_after = len(old_lines) - end
    assert new_lines[:start] == old_lines[:start]
    assert new_lines[len(new_lines) - kept_after :] == old_lines[end:]
    if le == "\r\n":
        assert "\n" not in new.replace("\r\n", "")
