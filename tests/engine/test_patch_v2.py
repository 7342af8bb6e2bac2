"""The 5.x JSON-instruction engine (patch_v2) and instruction validation, without HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgate.engine.instruction import Instruction, InvalidInstruction, parse_instruction
from vaultgate.engine.patch_v2 import (
    CannotApply,
    ContentPreexists,
    KeyCollision,
    PreconditionFailed,
    TargetNotFound,
    apply_instruction,
)
from vaultgate.engine.representations import content_version
from vaultgate.markdown import DUPLICATE_MARKER, parse_frontmatter

ONE = "# One\n\nbody of one\n"


def run(text: str, **fields: Any) -> str:
    return apply_instruction(text, parse_instruction(fields)).document


def heading(text: str, target: list[str], operation: str, content: str, **more: Any) -> str:
    return run(
        text, targetType="heading", target=target, operation=operation, content=content, **more
    )


# --- headings: whitespace is the engine's ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "operation", "expected"),
    [
        pytest.param(ONE, "append", "# One\n\nbody of one\n\nX\n", id="append-new-block"),
        pytest.param(ONE, "prepend", "# One\n\nX\n\nbody of one\n", id="prepend-new-block"),
        pytest.param(ONE, "replace", "# One\n\nX\n", id="replace-keeps-the-blank-line"),
        pytest.param("# One\nbody of one\n", "replace", "# One\nX\n", id="flush-stays-flush"),
        pytest.param("# One\n\n# F\n", "append", "# One\nX\n\n# F\n", id="empty-section-flush"),
        pytest.param(ONE, "delete", "# One\n\n", id="delete-empties-the-body"),
    ],
)
def test_documented_whitespace(text: str, operation: str, expected: str) -> None:
    fields: dict[str, Any] = {"targetType": "heading", "target": ["One"], "operation": operation}
    if operation != "delete":
        fields["content"] = "X"
    assert run(text, **fields) == expected


@pytest.mark.parametrize("content", ["X", "X\n", "\nX\n", "X\n\n", "\n\n  \nX\n \n"])
def test_edge_newlines_in_content_make_no_difference(content: str) -> None:
    assert heading(ONE, ["One"], "append", content) == "# One\n\nbody of one\n\nX\n"


def test_replacing_a_body_with_itself_is_byte_identical() -> None:
    assert heading(ONE, ["One"], "replace", "body of one") == ONE


def test_the_gap_before_the_next_section_is_kept() -> None:
    text = "# A\n\nalpha\n\n## B\n\nbeta\n\n# C\n"
    assert heading(text, ["A"], "append", "new") == "# A\n\nalpha\n\n## B\n\nbeta\n\nnew\n\n# C\n"


def test_heading_levels_in_content_are_relative_to_the_target() -> None:
    text = "# A\n\n## B\n\nbeta\n"
    patched = heading(text, ["A", "B"], "append", "# Sub\n\n## Deeper")
    assert patched == "# A\n\n## B\n\nbeta\n\n### Sub\n\n#### Deeper\n"


def test_a_heading_rebased_past_level_six_is_written_with_a_warning() -> None:
    text = "# 1\n## 2\n### 3\n#### 4\n##### 5\n###### 6\n"
    result = apply_instruction(
        text,
        parse_instruction(
            {
                "targetType": "heading",
                "target": ["1", "2", "3", "4", "5", "6"],
                "operation": "append",
                "content": "# Seven",
            }
        ),
    )
    assert result.document.endswith("###### 6\n####### Seven\n")
    assert [w["code"] for w in result.warnings] == ["heading-depth-overflow"]


def test_the_document_root_is_the_empty_target() -> None:
    text = "---\nk: v\n---\nIntro.\n"
    assert heading(text, [], "prepend", "First") == "---\nk: v\n---\nFirst\n\nIntro.\n"
    assert run(text, targetType="heading", target=None, operation="append", content="Last") == (
        "---\nk: v\n---\nIntro.\n\nLast\n"
    )


def test_later_duplicate_siblings_are_addressed_with_the_marker() -> None:
    text = "# Log\n\nMon\n\n# Log\n\nTue\n"
    assert heading(text, ["Log"], "append", "x") == "# Log\n\nMon\n\nx\n\n# Log\n\nTue\n"
    second = heading(text, [f"Log{DUPLICATE_MARKER}"], "append", "x")
    assert second == "# Log\n\nMon\n\n# Log\n\nTue\n\nx\n"


def test_a_bare_leaf_is_not_found() -> None:
    with pytest.raises(TargetNotFound, match="target not found"):
        heading("# A\n\n## B\n\nb\n", ["B"], "append", "x")


def test_create_if_missing_nests_at_the_right_level_inside_the_parent() -> None:
    text = "# A\n\nalpha\n\n# C\n\ngamma\n"
    patched = heading(text, ["A", "New", "Deep"], "append", "x", createTargetIfMissing=True)
    assert patched == "# A\n\nalpha\n\n## New\n### Deep\nx\n\n# C\n\ngamma\n"


def test_create_if_missing_never_creates_for_delete() -> None:
    with pytest.raises(TargetNotFound):
        run(
            ONE,
            targetType="heading",
            target=["Nope"],
            operation="delete",
            createTargetIfMissing=True,
        )


def test_reject_if_content_preexists_refuses_a_repeat() -> None:
    with pytest.raises(ContentPreexists):
        heading(ONE, ["One"], "append", "body of one", rejectIfContentPreexists=True)


def test_a_heading_takes_no_value() -> None:
    with pytest.raises(InvalidInstruction, match="no structured form"):
        run(ONE, targetType="heading", target=["One"], operation="append", value=["x"])


def test_rename_keeps_the_level_and_the_body() -> None:
    text = "# A\n\n## B\n\nbeta\n"
    assert heading(text, ["A", "B"], "replace", "Bee", scope="marker") == "# A\n\n## Bee\n\nbeta\n"


def test_marker_and_content_delete_removes_the_subtree() -> None:
    text = "# A\n\n## B\n\nbeta\n\n### C\n\ngamma\n\n## D\n"
    patched = run(
        text, targetType="heading", target=["A", "B"], operation="delete", scope="markerAndContent"
    )
    assert patched == "# A\n\n## D\n"


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"scope": "markerAndContent", "operation": "append"}, id="sibling-insert"),
        pytest.param({"scope": "marker", "operation": "append"}, id="marker-append"),
        pytest.param({"within": -1}, id="within"),
    ],
)
def test_combinations_outside_the_emulated_subset_say_so(fields: dict[str, Any]) -> None:
    base: dict[str, Any] = {
        "targetType": "heading",
        "target": ["One"],
        "operation": "append",
        "content": "x",
    }
    with pytest.raises(InvalidInstruction, match="not emulated"):
        run(ONE, **{**base, **fields})


def test_if_match_must_be_the_current_version() -> None:
    fields = {"targetType": "heading", "target": ["One"], "operation": "append", "content": "x"}
    assert run(ONE, **fields, ifMatch=content_version(ONE)) != ONE
    with pytest.raises(PreconditionFailed):
        run(ONE, **fields, ifMatch="stale")


# --- blocks and tables ----------------------------------------------------------------------

BLOCK = "Ship it. ^goal1\n\n| City | Pop |\n| --- | --- |\n| Oslo | 1 |\n\n^t1\n"


@pytest.mark.parametrize(
    ("operation", "content", "first_line"),
    [
        pytest.param("append", "\n- more", "Ship it.\n- more ^goal1", id="append-is-literal"),
        pytest.param("prepend", "Now: ", "Now: Ship it. ^goal1", id="prepend"),
        pytest.param("replace", "Done.", "Done. ^goal1", id="replace"),
    ],
)
def test_block_content_is_spliced_literally(operation: str, content: str, first_line: str) -> None:
    patched = run(BLOCK, targetType="block", target="goal1", operation=operation, content=content)
    assert patched.startswith(first_line + "\n\n| City")


def test_table_rows_are_escaped_and_checked() -> None:
    patched = run(BLOCK, targetType="block", target="t1", operation="append", value=[["A|B", "2"]])
    assert "| Oslo | 1 |\n| A\\|B | 2 |\n\n^t1\n" in patched
    with pytest.raises(InvalidInstruction, match="columns"):
        run(BLOCK, targetType="block", target="t1", operation="append", value=[["x"]])
    with pytest.raises(InvalidInstruction, match="line break"):
        run(BLOCK, targetType="block", target="t1", operation="append", value=[["a\nb", "2"]])
    with pytest.raises(InvalidInstruction, match="table"):
        run(BLOCK, targetType="block", target="goal1", operation="append", value=[["a", "b"]])


def test_a_block_id_can_be_renamed() -> None:
    patched = run(
        BLOCK, targetType="block", target="goal1", operation="replace", scope="marker", content="g2"
    )
    assert patched.startswith("Ship it. ^g2\n")


# --- frontmatter ----------------------------------------------------------------------------

FM = "---\ntags: [a]\ntitle: Hi\n---\nBody\n"


def frontmatter(text: str = FM, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = parse_frontmatter(run(text, targetType="frontmatter", **fields)).data
    return data


@pytest.mark.parametrize("value", ["s", 1, 1.5, True, None, [1, 2], {"k": {"n": 1}}])
def test_frontmatter_values_keep_their_json_type(value: Any) -> None:
    assert frontmatter(target="title", operation="replace", value=value)["title"] == value


def test_frontmatter_merges_and_creates() -> None:
    assert frontmatter(target="tags", operation="append", value=["b"])["tags"] == ["a", "b"]
    created = frontmatter(target="new", operation="append", value=["x"], createTargetIfMissing=True)
    assert created["new"] == ["x"]
    with pytest.raises(TargetNotFound):
        frontmatter(target="new", operation="replace", value=1)


def test_a_frontmatter_type_mismatch_cannot_apply() -> None:
    with pytest.raises(CannotApply, match="object and string"):
        frontmatter(target="tags", operation="append", value="b")


def test_frontmatter_keys_are_renamed_and_removed() -> None:
    renamed = frontmatter(target="title", operation="replace", scope="marker", content="name")
    assert list(renamed) == ["tags", "name"]
    with pytest.raises(KeyCollision):
        frontmatter(target="title", operation="replace", scope="marker", content="tags")
    removed = frontmatter(target="title", operation="delete", scope="markerAndContent")
    assert removed == {"tags": ["a"]}


def test_frontmatter_values_ride_in_value_not_content() -> None:
    with pytest.raises(InvalidInstruction, match="value"):
        frontmatter(target="title", operation="replace", content="x")


# --- instruction validation -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "message"),
    [
        pytest.param({}, "targetType: Required; target: Required; operation: Required", id="empty"),
        pytest.param(
            {
                "targetType": "heading",
                "target": ["A"],
                "operation": "append",
                "content": "x",
                "z": 1,
            },
            "Unrecognized key(s) in object: 'z'",
            id="unknown-key",
        ),
        pytest.param(
            {"targetType": "heading", "target": "A::B", "operation": "append", "content": "x"},
            "target: a heading target is an array",
            id="a-1x-heading-path",
        ),
        pytest.param(
            {"targetType": "block", "target": "b", "operation": "upsert", "content": "x"},
            "operation: Invalid enum value",
            id="bad-operation",
        ),
        pytest.param(
            {"targetType": "block", "target": "b", "operation": "append"},
            "Provide exactly one of content, value, or destination",
            id="no-payload",
        ),
        pytest.param(
            {"targetType": "block", "target": "b", "operation": "delete", "content": "x"},
            "A delete carries no payload",
            id="delete-with-payload",
        ),
        pytest.param(
            {
                "targetType": "block",
                "target": "b",
                "operation": "append",
                "content": "x",
                "createTargetIfMissing": "yes",
            },
            "createTargetIfMissing: Expected boolean",
            id="flag-not-boolean",
        ),
    ],
)
def test_invalid_instructions_list_their_problems(candidate: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInstruction) as caught:
        parse_instruction(candidate)
    assert message in str(caught.value)


def test_a_valid_instruction_is_typed() -> None:
    parsed = parse_instruction(
        {"targetType": "heading", "target": ["A", "B"], "operation": "append", "content": "x"}
    )
    assert parsed == Instruction("heading", ("A", "B"), "append", payload="content", content="x")
