"""Protection tags as Obsidian reads them (frontmatter, inline, nested), and the rule each sets
for a write."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgate.engine import jsonlogic
from vaultgate.errors import ProtectedNote
from vaultgate.markdown import parse_frontmatter
from vaultgate.patch_request import PatchRequest
from vaultgate.protection import (
    HIDDEN,
    MARKED_QUERY,
    PROTECTED,
    READONLY,
    check_write,
    marked_from_rows,
    marks_in_text,
    marks_of,
    marks_of_note_json,
    tag_marks,
)


def note(frontmatter: str, body: str = "Body.\n") -> str:
    return f"---\n{frontmatter}\n---\n{body}"


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        pytest.param("tags: [a, mcp-hidden]", {HIDDEN}, id="flow-list"),
        pytest.param("tags: a, mcp-readonly", {READONLY}, id="comma-string"),
        pytest.param("tags: a mcp-readonly", {READONLY}, id="blank-string"),
        pytest.param("tags:\n  - a\n  - mcp-protected", {PROTECTED}, id="yaml-list"),
        pytest.param("tag: mcp-hidden", {HIDDEN}, id="tag-key"),
        pytest.param("Tags: [MCP-Hidden]", {HIDDEN}, id="key-and-tag-in-any-case"),
        pytest.param('tags: "#mcp-readonly"', {READONLY}, id="leading-hash"),
        pytest.param("tags:\n  - '#MCP-PROTECTED'\n  - mcp-hidden", {PROTECTED, HIDDEN}, id="two"),
        pytest.param("tags: [mcp-hidden-not, my-mcp-hidden]", set(), id="other-tags"),
        pytest.param("tags: #mcp-hidden", set(), id="a-yaml-comment-is-no-tag"),
        pytest.param("status: mcp-hidden", set(), id="another-key"),
        pytest.param("tags: [mcp-hidden", set(), id="invalid-yaml"),
        pytest.param("tags: {a: mcp-hidden}", set(), id="a-mapping-is-no-tag-list"),
        pytest.param("TaGs: mcp-hidden", {HIDDEN}, id="mixed-case-key"),
        pytest.param('TAG: "mcp-hidden"', {HIDDEN}, id="upper-case-key-quoted-string"),
        pytest.param('tags: ["\\x6dcp-hidden"]', {HIDDEN}, id="yaml-hex-escape"),
        pytest.param('tags: "\\u006dcp-readonly, x"', {READONLY}, id="yaml-unicode-escape"),
        pytest.param("tags: [mcp-hidden/drafts]", {HIDDEN}, id="nested"),
        pytest.param("tags: '#MCP-Protected/a/b 日本'", {PROTECTED}, id="nested-in-a-string"),
        pytest.param("tags: [mcp-hiddenness, x/mcp-hidden]", set(), id="not-the-tag-or-a-child"),
        pytest.param("tagſ: mcp-hidden", set(), id="a-key-obsidian-does-not-fold"),
        pytest.param("# a comment: mcp-hidden\ntags: [x]  # mcp-hidden", set(), id="comments"),
    ],
)
def test_tags_are_read_as_obsidian_reads_them(frontmatter: str, expected: set[str]) -> None:
    assert marks_in_text("Notes/a b #1 100% 🚀.md", note(frontmatter)) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("# Title\n\n#mcp-hidden and more 🙈\n", {HIDDEN}, id="inline"),
        pytest.param("日本 #MCP-Readonly/x\r\n", {READONLY}, id="nested-any-case-crlf"),
        pytest.param("a\n\n  #mcp-protected/ b\n", {PROTECTED}, id="nested-trailing-slash"),
        pytest.param("```\n#mcp-hidden\n```\n", set(), id="in-a-code-fence"),
        pytest.param("~~~md\n#mcp-hidden\n~~~\n", set(), id="in-a-tilde-fence"),
        pytest.param("see `#mcp-hidden` here\n", set(), id="in-inline-code"),
        pytest.param("a#mcp-hidden and x#mcp-readonly\n", set(), id="no-blank-before"),
        pytest.param("#mcp-hiddenness #mcp\n", set(), id="another-tag"),
        pytest.param("[[#mcp-hidden]] mcp-hidden\n", set(), id="no-hash-tag"),
    ],
)
def test_inline_tags_outside_code_protect_a_note(body: str, expected: set[str]) -> None:
    assert marks_in_text("Notes/a #1 100%.md", note("title: x", body)) == expected
    assert marks_in_text("Notes/a #1 100%.md", body) == expected


def test_inline_and_frontmatter_tags_add_up() -> None:
    text = note("tags: [mcp-readonly]", "#mcp-hidden/drafts\n")
    assert marks_in_text("a.md", text) == {READONLY, HIDDEN}


def test_a_frontmatter_that_is_not_closed_is_body() -> None:
    assert marks_in_text("a.md", "---\ntags: [x]\n#mcp-hidden\n") == {HIDDEN}


def test_only_markdown_notes_carry_tags() -> None:
    assert marks_in_text("a.txt", note("tags: [mcp-hidden]")) == frozenset()
    assert marks_in_text("a.MD", note("tags: [mcp-hidden]")) == {HIDDEN}


def test_the_plugins_frontmatter_is_read_the_same_way() -> None:
    assert marks_of({"tags": ["#MCP-Readonly", "x"], "TAG": "mcp-hidden"}) == {READONLY, HIDDEN}
    assert marks_of({"tAgS": "mcp-protected/x"}) == {PROTECTED}
    assert marks_of(None) == frozenset()


def test_a_note_json_counts_its_inline_tags() -> None:
    assert marks_of_note_json({"frontmatter": {}, "tags": ["x", "MCP-Hidden/drafts"]}) == {HIDDEN}
    assert marks_of_note_json({"frontmatter": {"Tag": "mcp-readonly"}, "tags": 3}) == {READONLY}


def evaluate(frontmatter: str, tags: list[str]) -> Any:
    """The marked-notes query over one note, as the plugin's JsonLogic sees it."""
    data = {"frontmatter": parse_frontmatter(note(frontmatter)).data, "tags": tags}
    return jsonlogic.apply(MARKED_QUERY, data)


@pytest.mark.parametrize(
    "frontmatter",
    [
        "tags: [a, mcp-hidden]",
        "tags: a, MCP-ReadOnly",
        "Tag: '#mcp-protected'",
        "TAGS:\n  - mcp-hidden",
        "TaGs: mcp-hidden",
        "tAG: [x, MCP-Readonly/drafts]",
        'tags: ["\\x6dcp-hidden"]',
    ],
)
def test_the_search_finds_every_form_and_the_rows_say_which(frontmatter: str) -> None:
    result = evaluate(frontmatter, ["a"])

    assert jsonlogic.is_sane_truthy(result)
    marked = marked_from_rows([{"filename": "n.md", "result": result}])
    assert marked["n.md"].tags == marks_in_text("n.md", note(frontmatter))


def test_every_spelling_of_the_key_is_searched() -> None:
    for key in ("tags", "TAGS", "tAgS", "Tag", "tAG", "TAG"):
        assert jsonlogic.is_sane_truthy(evaluate(f"{key}: mcp-hidden", [])), key


@pytest.mark.parametrize(
    "listed",
    [["mcp-hidden"], ["x", "MCP-Protected/drafts"], ["mcp-readonly/a/b"]],
)
def test_the_search_finds_inline_and_nested_tags_in_the_tags_list(listed: list[str]) -> None:
    result = evaluate("title: x", listed)

    assert jsonlogic.is_sane_truthy(result)
    marked = marked_from_rows([{"filename": "n.md", "result": result}])
    assert marked["n.md"].tags == tag_marks(listed)


def test_the_search_passes_over_notes_without_a_tag() -> None:
    assert not jsonlogic.is_sane_truthy(evaluate("tags: [a, b]\ntitle: mcp-hidden", ["a"]))
    assert not jsonlogic.is_sane_truthy(evaluate("title: x", []))
    # a candidate whose mcp- tag is no protection tag is found, then dropped
    result = evaluate("tags: [mcp-tools-prompt]", [])
    assert marked_from_rows([{"filename": "p.md", "result": result}]) == {}


WRITES = ["create", "append", "patch", "delete", "move", "onto"]


@pytest.mark.parametrize("kind", WRITES)
def test_a_readonly_note_takes_no_write(kind: Any) -> None:
    with pytest.raises(ProtectedNote) as caught:
        check_write(kind, "Notes/ro 100%.md", frozenset({READONLY}))
    assert "mcp-readonly" in str(caught.value)
    assert "'Notes/ro 100%.md'" in str(caught.value)


@pytest.mark.parametrize("kind", WRITES)
def test_a_hidden_note_is_refused_without_naming_its_tag(kind: Any) -> None:
    with pytest.raises(ProtectedNote) as caught:
        check_write(kind, "h.md", frozenset({HIDDEN}))
    assert "mcp-hidden" not in str(caught.value)


@pytest.mark.parametrize("kind", ["delete", "move", "onto"])
def test_a_protected_note_is_never_deleted_or_moved(kind: Any) -> None:
    with pytest.raises(ProtectedNote, match="mcp-protected"):
        check_write(kind, "p.md", frozenset({PROTECTED}))


def test_a_protected_note_may_be_edited_while_it_keeps_its_tag() -> None:
    tags = frozenset({PROTECTED})
    check_write("append", "p.md", tags)
    check_write("create", "p.md", tags, content=note("tags: [x, mcp-protected]"))
    heading = PatchRequest("replace", "heading", "A", "new text")
    check_write("patch", "p.md", tags, patch=(heading, note("tags: [mcp-protected]")))
    added = PatchRequest("append", "frontmatter", "tags", '["x"]', "json")
    check_write("patch", "p.md", tags, patch=(added, note("tags: [mcp-protected]")))


@pytest.mark.parametrize(
    ("content", "patch"),
    [
        pytest.param(note("tags: [x]"), None, id="overwrite-without-the-tag"),
        pytest.param("no frontmatter\n", None, id="overwrite-without-frontmatter"),
        pytest.param(None, PatchRequest("replace", "frontmatter", "tags", "x"), id="replace-tags"),
        pytest.param(
            None,
            PatchRequest("replace", "frontmatter", "tags", '["x"]', "json"),
            id="replace-tags-as-json",
        ),
        pytest.param(
            None,
            PatchRequest("delete", "frontmatter", "tags", "", scope="markerAndContent"),
            id="delete-the-tags-key",
        ),
    ],
)
def test_no_write_takes_the_protected_tag_away(
    content: str | None, patch: PatchRequest | None
) -> None:
    before = note("tags: [mcp-protected]")
    with pytest.raises(ProtectedNote, match="take the tag away"):
        check_write(
            "patch" if patch else "create",
            "p.md",
            frozenset({PROTECTED}),
            content=content,
            patch=(patch, before) if patch else None,
        )


def test_a_tag_kept_under_another_key_still_protects() -> None:
    before = note("tags: [mcp-protected]\ntag: mcp-protected")
    replace = PatchRequest("replace", "frontmatter", "tags", "x")
    check_write("patch", "p.md", frozenset({PROTECTED}), patch=(replace, before))


def test_an_unmarked_note_takes_every_write() -> None:
    for kind in WRITES:
        check_write(kind, "n.md", frozenset(), content="anything")  # type: ignore[arg-type]
