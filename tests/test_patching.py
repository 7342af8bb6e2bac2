"""vaultgate.patching: the plugin's header-driven PATCH engine (markdown-patch 1.x), pure."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgate.markdown import parse_frontmatter
from vaultgate.patching import (
    CONTENT_NOT_MERGEABLE,
    CONTENT_PREEXISTS,
    CONTENT_TYPE_INVALID,
    CONTENT_TYPE_INVALID_FOR_TARGET,
    INVALID_TARGET,
    TABLE_COLUMN_COUNT,
    ContentGuard,
    Patch,
    PatchFailed,
    UnparseableFrontmatter,
    apply_patch,
    block_span,
    merge_values,
    split_table,
)

SECTIONS = "# A\n\nalpha\n\n## B\n\nbeta\n\n# C\n\ngamma\n"

YEARS = "# 2024\n\n## Notes\n\nold\n\n# 2025\n\n## Notes\n\nnew\n"

UNICODE = "# Café ☕\n\n## Tâches\n\nFaire.\n"

BLOCKS = "Intro.\n\nShip it. ^goal1\n\n- one\n- two ^item2\n- three\n"

TABLE = "# T\n\n| City | Pop |\n| --- | --- |\n| Oslo | 1 |\n\n^t1\n"

FRONTMATTER = """\
---
title: Hello
count: 3
flag: true
nothing:
tags: [a, b]
meta:
  x: 1
---
Body text.
"""


def heading(operation: str, path: tuple[str, ...], content: str, **options: Any) -> Patch:
    return Patch(operation, "heading", path, content, **options)  # type: ignore[arg-type]


def failure(text: str, patch: Patch) -> str:
    with pytest.raises(PatchFailed) as caught:
        apply_patch(text, patch)
    return caught.value.reason


# --- headings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        pytest.param(
            heading("append", ("A",), "new\n"),
            "# A\n\nalpha\n\n## B\n\nbeta\n\nnew\n\n# C\n\ngamma\n",
            id="append-keeps-the-blank-line-before-the-next-heading",
        ),
        pytest.param(
            heading("prepend", ("A",), "new\n"),
            "# A\nnew\n\nalpha\n\n## B\n\nbeta\n\n# C\n\ngamma\n",
            id="prepend-lands-right-below-the-heading-line",
        ),
        pytest.param(
            heading("replace", ("A", "B"), "x\n"),
            "# A\n\nalpha\n\n## B\nx\n\n# C\n\ngamma\n",
            id="replace-a-nested-section",
        ),
        pytest.param(
            heading("replace", ("A",), "x"),
            "# A\nx\n\n# C\n\ngamma\n",
            id="replace-takes-the-subsections-too",
        ),
        pytest.param(
            heading("append", ("C",), "new\n"),
            "# A\n\nalpha\n\n## B\n\nbeta\n\n# C\n\ngamma\nnew\n",
            id="append-to-the-last-section",
        ),
        pytest.param(
            heading("append", ("A", "B"), "\nnew\n\n", trim_target_whitespace=True),
            "# A\n\nalpha\n\n## B\n\nbeta\nnew\n\n# C\n\ngamma\n",
            id="trimmed-append",
        ),
        pytest.param(
            heading("prepend", ("A", "B"), "new\n", trim_target_whitespace=True),
            "# A\n\nalpha\n\n## B\nnew\nbeta\n\n# C\n\ngamma\n",
            id="trimmed-prepend",
        ),
        pytest.param(
            heading("replace", ("A", "B"), "## B2\nx\n\n", scope="markerAndContent"),
            "# A\n\nalpha\n\n## B2\nx\n\n# C\n\ngamma\n",
            id="marker-and-content-scope-includes-the-heading-line",
        ),
        pytest.param(
            heading("replace", ("A", "B"), "x\n", scope="marker"),
            "# A\n\nalpha\n\n## B\nx\n\n# C\n\ngamma\n",
            id="marker-scope-edits-content-as-the-1x-engine-does",
        ),
    ],
)
def test_heading_operations(patch: Patch, expected: str) -> None:
    assert apply_patch(SECTIONS, patch) == expected


def test_append_to_the_last_section_drops_the_notes_trailing_blank_lines() -> None:
    patched = apply_patch("# C\n\ngamma\n\n\n", heading("append", ("C",), "new\n"))
    assert patched == "# C\n\ngamma\nnew\n"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param(
            ("2024", "Notes"),
            "# 2024\n\n## Notes\n\nold\n\nx\n\n# 2025\n\n## Notes\n\nnew\n",
            id="first-parent",
        ),
        pytest.param(
            ("2025", "Notes"),
            "# 2024\n\n## Notes\n\nold\n\n# 2025\n\n## Notes\n\nnew\nx\n",
            id="second-parent",
        ),
    ],
)
def test_nested_duplicate_headings_are_told_apart_by_their_full_path(
    path: tuple[str, ...], expected: str
) -> None:
    assert apply_patch(YEARS, heading("append", path, "x\n")) == expected


def test_a_bare_leaf_name_is_not_a_target() -> None:
    assert failure(YEARS, heading("append", ("Notes",), "x\n")) == INVALID_TARGET


def test_create_if_missing_with_a_bare_leaf_appends_a_new_heading_at_the_end() -> None:
    patched = apply_patch(
        YEARS, heading("append", ("Notes",), "x\n", create_target_if_missing=True)
    )
    assert patched == YEARS + "# Notes\nx\n"


def test_create_if_missing_nests_below_the_deepest_existing_ancestor() -> None:
    patched = apply_patch(
        YEARS, heading("append", ("2024", "Todo", "Soon"), "x\n", create_target_if_missing=True)
    )
    assert patched == (
        "# 2024\n\n## Notes\n\nold\n\n## Todo\n### Soon\nx\n# 2025\n\n## Notes\n\nnew\n"
    )


def test_create_if_missing_starts_a_new_line_when_the_note_lacks_one() -> None:
    patched = apply_patch("text", heading("append", ("New",), "x", create_target_if_missing=True))
    assert patched == "text\n# New\nx"


def test_the_last_of_several_identical_paths_is_the_target() -> None:
    patched = apply_patch("# Log\nMon\n# Log\nTue\n", heading("append", ("Log",), "x\n"))
    assert patched == "# Log\nMon\n# Log\nTue\nx\n"


@pytest.mark.parametrize("operation", ["append", "prepend", "replace"])
def test_unicode_heading_paths(operation: str) -> None:
    patched = apply_patch(UNICODE, heading(operation, ("Café ☕", "Tâches"), "Écrire.\n"))
    assert "Écrire.\n" in patched
    assert patched.startswith("# Café ☕\n\n## Tâches\n")


def test_crlf_notes_keep_crlf_at_the_joints() -> None:
    text = "# A\r\n\r\nalpha\r\n\r\n# B\r\n\r\nbeta\r\n"
    patched = apply_patch(text, heading("append", ("A",), "new"))
    assert patched == "# A\r\n\r\nalpha\r\n\r\nnew\r\n\r\n# B\r\n\r\nbeta\r\n"


# --- the content-exists guard ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("guard", "operation", "fails"),
    [
        pytest.param(ContentGuard.ALL, "append", True, id="3x-append"),
        pytest.param(ContentGuard.ALL, "replace", True, id="3x-replace"),
        pytest.param(ContentGuard.EXTENDING, "prepend", True, id="4x-reject-prepend"),
        pytest.param(ContentGuard.EXTENDING, "replace", False, id="4x-reject-replace"),
        pytest.param(ContentGuard.OFF, "append", False, id="off"),
    ],
)
def test_the_guard_refuses_text_already_in_the_target(
    guard: ContentGuard, operation: str, fails: bool
) -> None:
    patch = heading(operation, ("A", "B"), "  beta\n", guard=guard)
    if fails:
        assert failure(SECTIONS, patch) == CONTENT_PREEXISTS
    else:
        assert apply_patch(SECTIONS, patch) != SECTIONS


def test_the_guard_looks_only_inside_the_target() -> None:
    patch = heading("append", ("C",), "alpha\n", guard=ContentGuard.ALL)
    assert apply_patch(SECTIONS, patch).endswith("gamma\nalpha\n")


# --- blocks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        pytest.param(
            Patch("append", "block", "goal1", " now"),
            "Intro.\n\nShip it. now ^goal1\n\n- one\n- two ^item2\n- three\n",
            id="append-splices-before-the-id",
        ),
        pytest.param(
            Patch("prepend", "block", "goal1", "Really: "),
            "Intro.\n\nReally: Ship it. ^goal1\n\n- one\n- two ^item2\n- three\n",
            id="prepend",
        ),
        pytest.param(
            Patch("replace", "block", "goal1", "Done."),
            "Intro.\n\nDone. ^goal1\n\n- one\n- two ^item2\n- three\n",
            id="replace-keeps-the-id",
        ),
        pytest.param(
            Patch("append", "block", "item2", " (2)"),
            "Intro.\n\nShip it. ^goal1\n\n- one\n- two (2) ^item2\n- three\n",
            id="a-list-item",
        ),
        pytest.param(
            Patch("append", "block", "new1", "Fresh.", create_target_if_missing=True),
            BLOCKS + "\nFresh.\n\n^new1",
            id="create-if-missing-appends-a-labelled-block",
        ),
    ],
)
def test_block_operations(patch: Patch, expected: str) -> None:
    assert apply_patch(BLOCKS, patch) == expected


def test_a_missing_block_is_an_invalid_target() -> None:
    assert failure(BLOCKS, Patch("append", "block", "nope", "x")) == INVALID_TARGET


def test_a_table_labelled_on_its_own_line_includes_its_last_line_break() -> None:
    start, end = block_span(TABLE, "t1") or (0, 0)
    assert TABLE[start:end] == "| City | Pop |\n| --- | --- |\n| Oslo | 1 |\n"


# --- table rows -----------------------------------------------------------------------------

HEADER = "| City | Pop |\n| --- | --- |\n"


@pytest.mark.parametrize(
    ("operation", "rows", "table"),
    [
        pytest.param("append", [["Rome", "2"]], "| Oslo | 1 |\n| Rome | 2 |\n", id="append"),
        pytest.param("append", ["Rome", "2"], "| Oslo | 1 |\n| Rome | 2 |\n", id="one-flat-row"),
        pytest.param("prepend", [["Rome", "2"]], "| Rome | 2 |\n| Oslo | 1 |\n", id="prepend"),
        pytest.param(
            "replace", [["Rome", "2"], ["Bern", "3"]], "| Rome | 2 |\n| Bern | 3 |\n", id="replace"
        ),
    ],
)
def test_json_rows_edit_a_block_labelled_table(operation: str, rows: Any, table: str) -> None:
    patch = Patch(operation, "block", "t1", rows, content_type="json")  # type: ignore[arg-type]
    assert apply_patch(TABLE, patch) == f"# T\n\n{HEADER}{table}\n^t1\n"


@pytest.mark.parametrize(
    ("text", "target", "rows", "reason"),
    [
        pytest.param(TABLE, "t1", [["Rome"]], TABLE_COLUMN_COUNT, id="too-few-cells"),
        pytest.param(TABLE, "t1", [["a", "b", "c"]], TABLE_COLUMN_COUNT, id="too-many-cells"),
        pytest.param(TABLE, "t1", [[1, 2]], CONTENT_TYPE_INVALID, id="numbers-not-strings"),
        pytest.param(TABLE, "t1", "Rome", CONTENT_TYPE_INVALID, id="a-string"),
        pytest.param(BLOCKS, "goal1", [["a"]], CONTENT_TYPE_INVALID_FOR_TARGET, id="not-a-table"),
    ],
)
def test_bad_table_rows_fail(text: str, target: str, rows: Any, reason: str) -> None:
    patch = Patch("append", "block", target, rows, content_type="json")
    assert failure(text, patch) == reason


def test_json_rows_on_a_heading_need_a_table_right_below_it() -> None:
    patch = Patch("append", "heading", ("T",), [["Rome", "2"]], content_type="json")
    assert failure(TABLE, patch) == CONTENT_TYPE_INVALID_FOR_TARGET


def test_split_table_reads_the_column_count() -> None:
    table = split_table("| a | b \\| c | d |\n|:--|---:|---|\n| 1 | 2 | 3 |\n")
    assert table is not None
    assert table.columns == 3
    assert table.body == "| 1 | 2 | 3 |\n"
    assert split_table("a paragraph\nof text\n") is None


# --- frontmatter ----------------------------------------------------------------------------


def frontmatter_after(patch: Patch, text: str = FRONTMATTER) -> dict[str, Any]:
    patched = apply_patch(text, patch)
    assert patched.endswith("---\nBody text.\n")
    data: dict[str, Any] = parse_frontmatter(patched).data
    return data


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("text", id="string"),
        pytest.param(7, id="integer"),
        pytest.param(2.5, id="float"),
        pytest.param(False, id="boolean"),
        pytest.param(None, id="null"),
        pytest.param([1, "two", None], id="list"),
        pytest.param({"k": "v", "n": [1]}, id="object"),
    ],
)
def test_json_replace_keeps_every_json_type(value: Any) -> None:
    data = frontmatter_after(Patch("replace", "frontmatter", "count", value, content_type="json"))
    assert data["count"] == value
    assert type(data["count"]) is type(value)
    assert data["title"] == "Hello"


@pytest.mark.parametrize(
    ("operation", "key", "value", "expected"),
    [
        pytest.param("append", "tags", ["c"], ["a", "b", "c"], id="append-list"),
        pytest.param("prepend", "tags", ["c"], ["c", "a", "b"], id="prepend-list"),
        pytest.param("append", "meta", {"y": 2}, {"x": 1, "y": 2}, id="append-object"),
        pytest.param("append", "meta", {"x": 9}, {"x": 9}, id="incoming-keys-win"),
        pytest.param("prepend", "meta", {"x": 9}, {"x": 1}, id="prepend-object-keeps-existing"),
        pytest.param("append", "title", " world", "Hello world", id="append-string"),
        pytest.param("prepend", "title", "Oh ", "Oh Hello", id="prepend-string"),
    ],
)
def test_append_and_prepend_merge(operation: str, key: str, value: Any, expected: Any) -> None:
    patch = Patch(operation, "frontmatter", key, value, content_type="json")  # type: ignore[arg-type]
    assert frontmatter_after(patch)[key] == expected


@pytest.mark.parametrize(
    ("key", "value"),
    [
        pytest.param("tags", "c", id="string-onto-list"),
        pytest.param("title", ["x"], id="list-onto-string"),
        pytest.param("meta", ["x"], id="list-onto-object"),
        pytest.param("count", "1", id="string-onto-number"),
        pytest.param("nothing", "x", id="string-onto-null"),
        pytest.param("tags", 1, id="a-number"),
        pytest.param("tags", True, id="a-boolean"),
        pytest.param("tags", None, id="null"),
    ],
)
def test_merges_of_mismatched_or_scalar_values_fail(key: str, value: Any) -> None:
    patch = Patch("append", "frontmatter", key, value, content_type="json")
    assert failure(FRONTMATTER, patch) == CONTENT_NOT_MERGEABLE


@pytest.mark.parametrize(
    ("operation", "value", "expected"),
    [
        pytest.param("append", ["x"], ["x"], id="list"),
        pytest.param("append", "x", "x", id="string"),
        pytest.param("prepend", {"a": 1}, {"a": 1}, id="object"),
        pytest.param("replace", 5, 5, id="replace-any-type"),
        pytest.param("replace", None, None, id="replace-with-null"),
    ],
)
def test_create_if_missing_starts_a_key_of_the_contents_type(
    operation: str, value: Any, expected: Any
) -> None:
    patch = Patch(
        operation,  # type: ignore[arg-type]
        "frontmatter",
        "fresh",
        value,
        content_type="json",
        create_target_if_missing=True,
    )
    assert frontmatter_after(patch)["fresh"] == expected


def test_a_missing_key_is_an_invalid_target_unless_created() -> None:
    patch = Patch("replace", "frontmatter", "fresh", 1, content_type="json")
    assert failure(FRONTMATTER, patch) == INVALID_TARGET


def test_appending_a_number_to_a_missing_key_cannot_merge() -> None:
    patch = Patch(
        "append", "frontmatter", "fresh", 1, content_type="json", create_target_if_missing=True
    )
    assert failure(FRONTMATTER, patch) == CONTENT_NOT_MERGEABLE


def test_markdown_content_is_stored_as_a_string() -> None:
    assert frontmatter_after(Patch("replace", "frontmatter", "count", "42"))["count"] == "42"


def test_appending_to_a_list_changes_only_that_list_in_its_own_style() -> None:
    patched = apply_patch(
        FRONTMATTER, Patch("append", "frontmatter", "tags", ["c"], content_type="json")
    )
    assert patched == FRONTMATTER.replace("tags: [a, b]", "tags: [a, b, c]")


def test_a_note_without_frontmatter_gets_one() -> None:
    patch = Patch(
        "replace", "frontmatter", "k", "v", content_type="json", create_target_if_missing=True
    )
    assert apply_patch("# Title\n", patch) == "---\nk: v\n---\n# Title\n"


def test_crlf_notes_get_a_crlf_frontmatter_block() -> None:
    patch = Patch("replace", "frontmatter", "k", "w", content_type="json")
    assert apply_patch("---\r\nk: v\r\n---\r\nBody\r\n", patch) == "---\r\nk: w\r\n---\r\nBody\r\n"


@pytest.mark.parametrize(
    "patch",
    [
        pytest.param(Patch("append", "heading", ("A",), "x"), id="heading"),
        pytest.param(Patch("replace", "frontmatter", "k", "x"), id="frontmatter"),
    ],
)
def test_unparseable_frontmatter_fails_every_patch(patch: Patch) -> None:
    with pytest.raises(UnparseableFrontmatter):
        apply_patch("---\nk: [unclosed\n---\n# A\n", patch)


def test_merge_values_is_the_documented_table() -> None:
    assert merge_values([1], [2]) == [1, 2]
    assert merge_values({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    assert merge_values("a", "b") == "ab"
    with pytest.raises(PatchFailed):
        merge_values([1], {"a": 1})
