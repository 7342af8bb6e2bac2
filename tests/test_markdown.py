"""vaultgate.markdown: frontmatter, headings and sections, blocks, tags, links, document maps."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgate.errors import AmbiguousSection, InvalidArgument, SectionNotFound
from vaultgate.markdown import (
    DUPLICATE_MARKER,
    DocumentMap,
    Heading,
    block_ids,
    document_map,
    extract_links,
    extract_tags,
    find_block,
    heading_tree,
    parse_frontmatter,
    parse_headings,
    resolve_heading,
    section_text,
)

VAULT = Path(__file__).resolve().parent.parent / "fixtures" / "vault"


def paths(text: str) -> list[str]:
    return [h.full_path for h in parse_headings(text)]


def heading(text: str, full_path: str) -> Heading:
    return resolve_heading(parse_headings(text), full_path)


# --- frontmatter ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "data", "end_marker", "valid"),
    [
        pytest.param("# Title\n", {}, None, True, id="none"),
        pytest.param("---\ntitle: x\n", {}, None, True, id="unclosed-is-not-frontmatter"),
        pytest.param("\n---\na: 1\n---\n", {}, None, True, id="not-at-start"),
        pytest.param("--- \na: 1\n---\n", {}, None, True, id="opening-line-must-be-exact"),
        pytest.param("---\n---\nbody", {}, "body", True, id="empty-block"),
        pytest.param(
            "---\ntags: [a, b]\naliases:\n  - First\n  - Second\n---\nbody",
            {"tags": ["a", "b"], "aliases": ["First", "Second"]},
            "body",
            True,
            id="lists",
        ),
        pytest.param(
            "---\ncreated: 2026-11-17\nupdated: 2026-11-17T09:30:00\n---\nbody",
            {"created": "2026-11-17", "updated": "2026-11-17T09:30:00"},
            "body",
            True,
            id="dates-stay-strings",
        ),
        pytest.param(
            "---\nwhen: 2026-11-17 08:00\nzoned: 2026-11-17 08:00:00+01:00\n"
            "short: 2026-1-2\nexplicit: !!timestamp 2026-11-17\n---\nbody",
            {
                "when": "2026-11-17 08:00",
                "zoned": "2026-11-17 08:00:00+01:00",
                "short": "2026-1-2",
                "explicit": "2026-11-17",
            },
            "body",
            True,
            id="dates-stay-as-written",
        ),
        pytest.param(
            "---\nproject:\n  client: Acme\n  budget: {amount: 12000, currency: EUR}\n---\nbody",
            {"project": {"client": "Acme", "budget": {"amount": 12000, "currency": "EUR"}}},
            "body",
            True,
            id="nested-maps",
        ),
        pytest.param(
            "---\nrating: 4.5\ncount: 3\ndone: true\ndraft: False\nnothing: null\n---\nbody",
            {"rating": 4.5, "count": 3, "done": True, "draft": False, "nothing": None},
            "body",
            True,
            id="numbers-booleans-null",
        ),
        pytest.param(
            "---\ncountry: NO\nanswer: yes\nswitch: off\n---\nbody",
            {"country": "NO", "answer": "yes", "switch": "off"},
            "body",
            True,
            id="yaml-1.2-booleans-only",
        ),
        pytest.param(
            "---\n2026-11-17: day\n42: answer\ntrue: yes\n---\nbody",
            {"2026-11-17": "day", "42": "answer", "true": "yes"},
            "body",
            True,
            id="non-string-keys",
        ),
        pytest.param(
            "---\nbig: .inf\nodd: !!set {b, a}\n---\nbody",
            {"big": "inf", "odd": ["a", "b"]},
            "body",
            True,
            id="non-json-scalars",
        ),
        pytest.param("---\ntitle: [unclosed\n---\nbody", {}, "body", False, id="invalid-yaml"),
        pytest.param("---\n- a\n- b\n---\nbody", {}, "body", False, id="list-not-mapping"),
        pytest.param("---\njust text\n---\nbody", {}, "body", False, id="scalar-not-mapping"),
        pytest.param("---\n\ttab: 1\n---\nbody", {}, "body", False, id="tab-indent-invalid"),
        pytest.param(
            "---\r\ntitle: x\r\ntags:\r\n  - a\r\n---\r\nbody",
            {"title": "x", "tags": ["a"]},
            "body",
            True,
            id="crlf",
        ),
        pytest.param("---\na: 1\n---  \nbody", {"a": 1}, "body", True, id="closing-trailing-blank"),
        pytest.param("---\na: 1\n---", {"a": 1}, "", True, id="closing-at-end-of-text"),
        pytest.param("---\na: 1\n----\nb: 2\n---\nbody", {}, "body", False, id="four-dashes"),
    ],
)
def test_parse_frontmatter(
    text: str, data: dict[str, Any], end_marker: str | None, valid: bool
) -> None:
    fm = parse_frontmatter(text)
    expected_end = 0 if end_marker is None else len(text) - len(end_marker)
    assert (fm.data, fm.end, fm.valid) == (data, expected_end, valid)


def test_frontmatter_data_is_json_serialisable() -> None:
    text = (
        "---\nwhen: 2026-11-17 08:00:00+01:00\nblob: !!binary aGVsbG8=\n"
        "nested: [{d: 2026-01-02}, [1, 2.5, null]]\n---\n"
    )
    data = parse_frontmatter(text).data
    assert json.loads(json.dumps(data, allow_nan=False)) == {
        "when": "2026-11-17 08:00:00+01:00",
        "blob": "aGVsbG8=",
        "nested": [{"d": "2026-01-02"}, [1, 2.5, None]],
    }


def test_frontmatter_alias_bomb_is_invalid_not_expanded() -> None:
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    text = "\n".join([*lines, "---", "body"])
    fm = parse_frontmatter(text)
    assert (fm.data, fm.valid, fm.end) == ({}, False, len(text) - len("body"))


def test_frontmatter_recursive_alias_is_invalid() -> None:
    assert not parse_frontmatter("---\nloop: &l [*l]\n---\n").valid


# --- headings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "# A\n## B\n### C\n## D\n# E\n", ["A", "A::B", "A::B::C", "A::D", "E"], id="nesting"
        ),
        pytest.param("# A\n### C\n## D\n", ["A", "A::C", "A::D"], id="h3-directly-under-h1"),
        pytest.param("### Deep\n# Top\n", ["Deep", "Top"], id="document-may-start-deep"),
        pytest.param("## Title ##\n# C#\n", ["Title", "C#"], id="closing-hashes"),
        pytest.param("#  Spaced   \n", ["Spaced"], id="surrounding-blanks"),
        pytest.param("   # Three\n    # Four\n", ["Three"], id="indent-up-to-three"),
        pytest.param("#tag\n####### Seven\n# \n#\n# #\n", [], id="not-headings"),
        pytest.param("#\tTabbed\n", ["Tabbed"], id="tab-after-hashes"),
        pytest.param(
            "# In\n```\n# code\n```\n~~~md\n## tilde\n~~~\n## Out\n", ["In", "In::Out"], id="fences"
        ),
        pytest.param(
            "````\n```\n# still code\n```\n````\n# After\n", ["After"], id="longer-fence-closes"
        ),
        pytest.param("```\n# code\n~~~\n# code too\n", [], id="unclosed-fence-hides-rest"),
        pytest.param("``` a`b\n# real\n", ["real"], id="backtick-info-is-not-a-fence"),
        pytest.param("- item\n  ```\n  # code\n  ```\n# Yes\n", ["Yes"], id="indented-fence"),
        pytest.param("---\n# not: heading\n---\n# Yes\n", ["Yes"], id="frontmatter-skipped"),
        pytest.param(
            "# Ünïcödé 日本語\n## 🚀 Launch\n",
            ["Ünïcödé 日本語", "Ünïcödé 日本語::🚀 Launch"],
            id="unicode",
        ),
        pytest.param("# A\r\n## B\r\n", ["A", "A::B"], id="crlf"),
    ],
)
def test_parse_headings_paths(text: str, expected: list[str]) -> None:
    assert paths(text) == expected


def test_heading_offsets_and_levels() -> None:
    text = "intro\n# A\nbody a\n## B\nbody b\n# C"
    a, b, c = parse_headings(text)
    assert (a.level, a.text, a.path) == (1, "A", ("A",))
    assert (a.start, a.body_start, a.end) == (6, 10, text.index("# C"))
    assert (b.level, b.start, b.body_start, b.end) == (2, 17, 22, text.index("# C"))
    assert (c.start, c.body_start, c.end) == (len(text) - 3, len(text), len(text))


def test_heading_offsets_with_crlf_point_into_original_text() -> None:
    text = "# A\r\nline\r\n## B\r\nmore\r\n"
    a, b = parse_headings(text)
    assert text[a.start : a.body_start] == "# A\r\n"
    assert text[b.start : b.body_start] == "## B\r\n"
    assert section_text(text, b) == "more\r\n"


@pytest.mark.parametrize(
    ("target", "section"),
    [
        pytest.param("A", "a\n## A1\na1\n### A1x\nx\n## A2\na2\n", id="includes-subsections"),
        pytest.param("A::A1", "a1\n### A1x\nx\n", id="stops-at-same-level"),
        pytest.param("A::A1::A1x", "x\n", id="stops-at-higher-level"),
        pytest.param("A::A2", "a2\n", id="stops-at-h1"),
        pytest.param("B", "b\n```\n# not a heading\n```\n", id="runs-to-end-past-code"),
    ],
)
def test_section_text_bounds(target: str, section: str) -> None:
    text = "# A\na\n## A1\na1\n### A1x\nx\n## A2\na2\n# B\nb\n```\n# not a heading\n```\n"
    assert section_text(text, heading(text, target)) == section


# --- resolving heading targets --------------------------------------------------------------

PROJECTS = """# Project Alpha
## Notes
alpha notes
### Risks
alpha risks
# Project Beta
## Notes
beta notes
## Timeline
"""


@pytest.mark.parametrize(
    ("target", "full_path"),
    [
        pytest.param("Project Alpha::Notes", "Project Alpha::Notes", id="full-path"),
        pytest.param("Risks", "Project Alpha::Notes::Risks", id="unique-leaf"),
        pytest.param("Notes::Risks", "Project Alpha::Notes::Risks", id="tail"),
        pytest.param(" Project Beta :: Notes ", "Project Beta::Notes", id="components-stripped"),
        pytest.param("Timeline", "Project Beta::Timeline", id="leaf-of-second-parent"),
        pytest.param("Project Beta", "Project Beta", id="top-level"),
    ],
)
def test_resolve_heading(target: str, full_path: str) -> None:
    assert resolve_heading(parse_headings(PROJECTS), target).full_path == full_path


def test_resolve_ambiguous_leaf_lists_every_full_path() -> None:
    with pytest.raises(AmbiguousSection) as caught:
        resolve_heading(parse_headings(PROJECTS), "Notes")
    err = caught.value
    assert err.target == "Notes"
    assert err.candidates == ["Project Alpha::Notes", "Project Beta::Notes"]
    assert "'Project Alpha::Notes'" in str(err)
    assert "'Project Beta::Notes'" in str(err)
    assert "Pass one of these full paths" in str(err)


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("notes", id="case-sensitive"),
        pytest.param("Missing", id="absent"),
        pytest.param("Project Beta::Risks", id="wrong-parent"),
        pytest.param("Notes::Project Alpha", id="reversed"),
        pytest.param("", id="empty"),
    ],
)
def test_resolve_not_found_lists_existing_headings(target: str) -> None:
    with pytest.raises(SectionNotFound) as caught:
        resolve_heading(parse_headings(PROJECTS), target)
    message = str(caught.value)
    assert caught.value.target == target
    assert "'Project Alpha::Notes::Risks'" in message
    assert "'Parent::Child'" in message


def test_resolve_not_found_lists_at_most_twenty_headings() -> None:
    text = "".join(f"# H{i}\n" for i in range(25))
    with pytest.raises(SectionNotFound) as caught:
        resolve_heading(parse_headings(text), "Nope")
    message = str(caught.value)
    assert "'H19'" in message
    assert "'H20'" not in message
    assert "(and 5 more)" in message


def test_resolve_in_note_without_headings() -> None:
    with pytest.raises(SectionNotFound, match="no headings"):
        resolve_heading(parse_headings("just text\n"), "Log")


def test_exact_full_path_wins_over_tail_match() -> None:
    text = "# Notes\n# A\n## Notes\n"
    assert resolve_heading(parse_headings(text), "Notes").start == 0


def test_repeated_identical_full_path_resolves_to_the_last_as_the_plugin_does() -> None:
    # markdown-patch keys its document map by heading path, so a later repeat wins.
    text = "# Day\n## Log\nfirst\n# Day\n## Log\nsecond\n"
    headings = parse_headings(text)
    assert section_text(text, resolve_heading(headings, "Day::Log")) == "second\n"
    assert section_text(text, resolve_heading(headings, "Log")) == "second\n"


def test_resolve_with_custom_delimiter() -> None:
    found = resolve_heading(parse_headings(PROJECTS), "Project Beta/Notes", delimiter="/")
    assert found.full_path == "Project Beta::Notes"
    with pytest.raises(AmbiguousSection) as caught:
        resolve_heading(parse_headings(PROJECTS), "Notes", delimiter="/")
    assert caught.value.candidates == ["Project Alpha/Notes", "Project Beta/Notes"]


def test_resolve_rejects_empty_delimiter() -> None:
    with pytest.raises(InvalidArgument):
        resolve_heading(parse_headings(PROJECTS), "Notes", delimiter="")


# --- heading tree ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        pytest.param("", {}, id="empty"),
        pytest.param("# H1\n## Sub\n# H2\n", {"H1": {"Sub": {}}, "H2": {}}, id="plugin-example"),
        pytest.param("# A\n### C\n## D\n", {"A": {"C": {}, "D": {}}}, id="skipped-level"),
        pytest.param(
            "# Day\n## Log\n## Log\n## Log\n",
            {"Day": {"Log": {}, "Log\u2063": {}, "Log\u2063\u2063": {}}},
            id="repeated-siblings",
        ),
        pytest.param(
            "# A\n## Notes\n# B\n## Notes\n",
            {"A": {"Notes": {}}, "B": {"Notes": {}}},
            id="same-text-different-parents",
        ),
        pytest.param(
            "# A\n## x\n# A\n## x\n",
            {"A": {"x": {}}, "A\u2063": {"x": {}}},
            id="repeated-parents-keep-children-apart",
        ),
        pytest.param(
            "# Log\u2063\n# Log\n# Log\n",
            {"Log\u2063": {}, "Log": {}, "Log\u2063\u2063": {}},
            id="text-already-ending-in-marker",
        ),
    ],
)
def test_heading_tree(text: str, tree: dict[str, Any]) -> None:
    assert heading_tree(text) == tree


def test_duplicate_marker_is_invisible_separator() -> None:
    assert DUPLICATE_MARKER == "\u2063"


# --- block references -----------------------------------------------------------------------

BLOCKS = """---
note: ^notablock
---
# Data

A paragraph that spans
two lines. ^para-1

- first item
- second item
  continued here ^item2
- third item

| name | value |
| ---- | ----- |
| a    | 1     |

^table1

```
code ^notablock
```
Not a block^glued and `x` ^last

Blanks before the marker \t  ^spaced
"""


def test_block_ids_in_document_order() -> None:
    assert block_ids(BLOCKS) == ["para-1", "item2", "table1", "last", "spaced"]


@pytest.mark.parametrize(
    ("block_id", "block"),
    [
        pytest.param("para-1", "A paragraph that spans\ntwo lines.", id="paragraph"),
        pytest.param("item2", "- second item\n  continued here", id="list-item"),
        pytest.param(
            "table1",
            "| name | value |\n| ---- | ----- |\n| a    | 1     |",
            id="table-then-standalone-id",
        ),
        pytest.param("^last", "Not a block^glued and `x`", id="caret-accepted"),
        pytest.param("spaced", "Blanks before the marker", id="blanks-before-marker-excluded"),
    ],
)
def test_find_block(block_id: str, block: str) -> None:
    start, end = find_block(BLOCKS, block_id)
    assert BLOCKS[start:end] == block


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        pytest.param("text ^abc\n", ["abc"], id="line-end"),
        pytest.param("text ^abc   \n", ["abc"], id="trailing-blanks"),
        pytest.param("^abc\n", ["abc"], id="alone"),
        pytest.param("text^abc\n", [], id="needs-blank-before"),
        pytest.param("text ^ab_c\n", [], id="underscore-not-allowed"),
        pytest.param("a ^x\nb ^x\n", ["x"], id="deduplicated"),
        pytest.param("a ^x1\r\nb ^Y-2\r\n", ["x1", "Y-2"], id="crlf"),
        pytest.param("~~~\na ^x\n~~~\n", [], id="in-tilde-fence"),
        pytest.param("a ^x more\n", [], id="not-at-end"),
    ],
)
def test_block_id_rules(text: str, ids: list[str]) -> None:
    assert block_ids(text) == ids


def test_standalone_id_directly_under_a_table() -> None:
    text = "| a |\n| - |\n| 1 |\n^tbl\n"
    start, end = find_block(text, "tbl")
    assert text[start:end] == "| a |\n| - |\n| 1 |"


def test_standalone_id_after_a_code_block_labels_the_code() -> None:
    text = "# H\n\n```py\nx = 1\n\ny = 2\n```\n\n^code\n"
    start, end = find_block(text, "code")
    assert text[start:end] == "```py\nx = 1\n\ny = 2\n```"


def test_standalone_id_under_a_heading_labels_nothing() -> None:
    text = "# H\n\n^lonely\n"
    assert find_block(text, "lonely") == (len("# H\n\n"), len("# H\n\n"))


def test_find_block_with_crlf() -> None:
    text = "# H\r\nline one\r\nline two ^b1\r\n\r\n| x |\r\n\r\n^t1\r\n"
    start, end = find_block(text, "b1")
    assert text[start:end] == "line one\r\nline two"
    start, end = find_block(text, "t1")
    assert text[start:end] == "| x |"


def test_find_block_missing_lists_ids() -> None:
    with pytest.raises(SectionNotFound) as caught:
        find_block(BLOCKS, "nope")
    assert caught.value.target == "nope"
    assert "'para-1'" in str(caught.value)
    assert "'table1'" in str(caught.value)


def test_find_block_ignores_ids_in_code() -> None:
    with pytest.raises(SectionNotFound, match="no block ids"):
        find_block("```\ntext ^hidden\n```\n", "hidden")


# --- document map ---------------------------------------------------------------------------


def test_document_map() -> None:
    text = "---\nstatus: open\ntags: [x]\n---\n# A\n## B\npara ^p1\n# C\n"
    assert document_map(text) == DocumentMap(
        headings=["A", "A::B", "C"], blocks=["p1"], frontmatter_fields=["status", "tags"]
    )


def test_document_map_with_invalid_frontmatter_has_no_fields() -> None:
    assert document_map("---\n: [\n---\n# A\n").frontmatter_fields == []


# --- tags -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        pytest.param("---\ntags: [alpha, beta]\n---\n", ["alpha", "beta"], id="fm-list"),
        pytest.param(
            "---\ntags: alpha, beta gamma\n---\n", ["alpha", "beta", "gamma"], id="fm-str"
        ),
        pytest.param("---\ntags:\n  - '#hashed'\n---\n", ["hashed"], id="fm-leading-hash"),
        pytest.param("---\ntag: single\n---\n", ["single"], id="fm-tag-key"),
        pytest.param("---\ntags: [2026, x]\n---\n", ["2026", "x"], id="fm-number-kept"),
        pytest.param("---\ntags: [a]\n---\n#b and #a\n", ["a", "b"], id="fm-first-then-inline"),
        pytest.param("#one two #three\n", ["one", "three"], id="inline"),
        pytest.param("#area/health and #a/b/c\n", ["area/health", "a/b/c"], id="nested"),
        pytest.param("#snake_case #kebab-case\n", ["snake_case", "kebab-case"], id="punctuation"),
        pytest.param("#日本語 #café\n", ["日本語", "café"], id="unicode"),
        pytest.param("#tag, #end.\n", ["tag", "end"], id="stops-at-punctuation"),
        pytest.param("#123 #2026 #v2 #1a\n", ["v2", "1a"], id="digits-only-not-a-tag"),
        pytest.param("# Heading\n## Sub #real\n", ["real"], id="heading-markers-not-tags"),
        pytest.param("a#b [x](#frag) [[#h]] &#35;\n", [], id="needs-blank-before"),
        pytest.param("```\n#code\n```\n~~~\n#tilde\n~~~\n", [], id="fenced-code"),
        pytest.param("use `#notatag` or ``#no`` but #yes\n", ["yes"], id="code-spans"),
        pytest.param("`span`#glued\n", [], id="glued-to-code-span"),
        pytest.param("#dup #dup #Dup\n", ["dup", "Dup"], id="deduplicated-case-sensitive"),
        pytest.param("---\ntitle: '#nope'\n---\n", [], id="fm-other-keys-ignored"),
        pytest.param("line\r\n#crlf\r\n", ["crlf"], id="crlf"),
        pytest.param(
            "---\ntags: [two words, ' padded ', one]\n---\n", ["padded", "one"], id="fm-space"
        ),
    ],
)
def test_extract_tags(text: str, tags: list[str]) -> None:
    assert extract_tags(text) == tags


# --- links ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "links"),
    [
        pytest.param("[[Note]] and [[Other note]]\n", ["Note", "Other note"], id="wikilinks"),
        pytest.param("[[Note|alias]] [[Note#Heading]]\n", ["Note"], id="alias-heading-dedup"),
        pytest.param("[[Folder/Deep note#^blk|x]]\n", ["Folder/Deep note"], id="block-link"),
        pytest.param("![[diagram.png]] ![[Note#Sec]]\n", ["diagram.png", "Note"], id="embeds"),
        pytest.param("[[#Local heading]]\n", [], id="same-note-heading"),
        pytest.param("| [[Note\\|alias]] |\n", ["Note"], id="escaped-pipe-in-table"),
        pytest.param(
            "[see](C%23%20%26%20.NET%20tips.md#Intro)\n", ["C# & .NET tips.md"], id="md-decoded"
        ),
        pytest.param('[a](<My Note.md>) [b](x.md "T")\n', ["My Note.md", "x.md"], id="md-forms"),
        pytest.param("![img](Attachments/a.png)\n", ["Attachments/a.png"], id="md-image"),
        pytest.param(
            "[w](https://a.b) [m](mailto:x@y.z) [o](obsidian://open?x) [h](#frag)\n",
            [],
            id="external-skipped",
        ),
        pytest.param("[a [b] c](n.md)\n", ["n.md"], id="nested-brackets-in-text"),
        pytest.param("[[B]] then [a](A.md) then [[C]]\n", ["B", "A.md", "C"], id="document-order"),
        pytest.param("```\n[[Hidden]]\n```\n`[[Span]]` [[Shown]]\n", ["Shown"], id="not-in-code"),
        pytest.param("---\nup: '[[Parent]]'\n---\n[[Child]]\n", ["Parent", "Child"], id="fm"),
        pytest.param("[[a]]\r\n[b](c.md)\r\n", ["a", "c.md"], id="crlf"),
    ],
)
def test_extract_links(text: str, links: list[str]) -> None:
    assert extract_links(text) == links


def test_obsidians_order_lists_links_before_embeds() -> None:
    text = "---\nup: '[[Parent]]'\n---\n![[pic.png]] [[B]] ![](img.png) [a](A.md) ![[B]]\n"
    assert extract_links(text) == ["Parent", "pic.png", "B", "img.png", "A.md"]
    assert extract_links(text, embeds_last=True) == ["Parent", "B", "A.md", "pic.png", "img.png"]


# --- properties -----------------------------------------------------------------------------

_words = st.text(alphabet="abcXYZ #`~^-|[]é🚀", min_size=0, max_size=12)
_element = st.one_of(
    st.tuples(st.integers(1, 6), _words).map(lambda lt: f"{'#' * lt[0]} {lt[1]}"),
    _words,
    st.just(""),
    st.sampled_from(["```", "~~~", "````", "---", "^blk", "text ^id-1", "| a | b |"]),
)
_documents = st.tuples(st.lists(_element, max_size=40), st.sampled_from(["\n", "\r\n"])).map(
    lambda parts: parts[1].join(parts[0])
)


@given(_documents)
@settings(max_examples=300, deadline=None)
def test_heading_sections_nest_and_never_overlap(text: str) -> None:
    headings = parse_headings(text)
    for h in headings:
        assert 0 <= h.start < h.body_start <= h.end <= len(text)
        assert h.path[-1] == h.text
        assert 1 <= len(h.path) <= h.level
        marker = text[h.start : h.body_start].lstrip(" ")[: h.level + 1]
        assert marker in ("#" * h.level + " ", "#" * h.level + "\t")
        assert h.end == len(text) or any(o.start == h.end and o.level <= h.level for o in headings)
    for i, a in enumerate(headings):
        for b in headings[i + 1 :]:
            nested = b.start < a.end and b.end <= a.end
            disjoint = a.end <= b.start
            assert nested or disjoint
            if a.path[:-1] == b.path[:-1] and a.level == b.level:  # siblings
                assert disjoint


@given(_documents)
@settings(max_examples=300, deadline=None)
def test_every_listed_block_id_is_findable(text: str) -> None:
    for block_id in block_ids(text):
        start, end = find_block(text, block_id)
        assert 0 <= start <= end <= len(text)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_text_parses_without_error(text: str) -> None:
    fm = parse_frontmatter(text)
    assert 0 <= fm.end <= len(text)
    json.dumps(fm.data)
    document_map(text)
    heading_tree(text)
    assert all(tag and not tag.startswith("#") for tag in extract_tags(text))
    assert all(link for link in extract_links(text))


# --- speed ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "---\ntags: [a]\n---\n"
            + "".join(
                f"## Section {i}\n\nProse on #topic{i % 40} with [[Note {i}]] and `code`. ^b{i}\n"
                f"- item [x](Folder/a%20b.md)\n\n```\n# code {i}\n```\n"
                for i in range(8000)
            ),
            id="realistic-1mb",
        ),
        pytest.param("#" + "".join("`" * k + " " for k in range(1, 1400)), id="backtick-runs"),
        pytest.param("[" * 1_000_000, id="open-brackets"),
        pytest.param("x ^" * 330_000, id="carets"),
    ],
)
def test_large_notes_parse_quickly(text: str) -> None:
    assert len(text) >= 900_000
    began = time.perf_counter()
    document_map(text)
    heading_tree(text)
    extract_tags(text)
    extract_links(text)
    # generous for slow CI; the quadratic regex this guards against took over ten seconds
    assert time.perf_counter() - began < 3.0


# --- the sample vault -----------------------------------------------------------------------


def vault_note(path: str) -> str:
    return (VAULT / path).read_text(encoding="utf-8")


def test_every_sample_note_has_valid_frontmatter() -> None:
    notes = sorted(VAULT.rglob("*.md"))
    assert len(notes) >= 30
    for note in notes:
        assert parse_frontmatter(note.read_text(encoding="utf-8")).valid, note


def test_sample_overview_has_ambiguous_notes_and_a_unique_risks() -> None:
    headings = parse_headings(vault_note("Projects/Overview.md"))
    with pytest.raises(AmbiguousSection) as caught:
        resolve_heading(headings, "Notes")
    assert caught.value.candidates == ["Project Alpha::Notes", "Project Beta::Notes"]
    assert resolve_heading(headings, "Risks").full_path == "Project Alpha::Notes::Risks"


@pytest.mark.parametrize("day", ["17", "18", "19", "20", "21"])
def test_sample_daily_notes_have_log_and_tasks(day: str) -> None:
    text = vault_note(f"Daily/2026-11-{day}.md")
    assert {"Log", "Tasks"} <= {h.text for h in parse_headings(text) if h.level == 2}
    assert "meeting" in text.lower()


@pytest.mark.parametrize(
    ("path", "block_id", "starts_with"),
    [
        pytest.param(
            "Projects/Work/Clients/Acme/Acme overview.md", "abc123", "The integration", id="eol"
        ),
        pytest.param("Areas/Health/Running log.md", "weekly-totals", "| Day |", id="after-table"),
        pytest.param("Areas/Finance/Budget 2026.md", "monthly-table", "| Category |", id="glued"),
    ],
)
def test_sample_block_ids(path: str, block_id: str, starts_with: str) -> None:
    text = vault_note(path)
    start, end = find_block(text, block_id)
    assert text[start:end].startswith(starts_with)
    assert f"^{block_id}" not in text[start:end]


def test_sample_long_essay_has_quasar_once_near_30000() -> None:
    text = vault_note("Resources/Long essay.md")
    assert len(text) > 50_000
    assert text.count("quasar") == 1
    at = text.index("quasar")
    assert abs(at - 30_000) < 1_000
    sections = [h for h in parse_headings(text) if h.level == 2]
    assert len(sections) == 20
    assert [h.text for h in sections if h.start < at < h.end] == ["Search versus structure"]


def test_sample_code_note_has_no_headings_or_tags_from_code() -> None:
    text = vault_note("Resources/Programming/C# & .NET tips.md")
    assert paths(text)[0] == "C# & .NET tips"
    assert not {"region", "if", "endif", "nullable"} & set(extract_tags(text))
    assert "this line is not a heading either" not in " ".join(paths(text))


def test_sample_welcome_links_include_the_percent_encoded_markdown_link() -> None:
    links = extract_links(vault_note("Welcome.md"))
    assert "Resources/Programming/C# & .NET tips.md" in links
    assert "Overview" in links


def test_sample_vault_has_meeting_in_at_least_eight_notes() -> None:
    notes = [p for p in VAULT.rglob("*.md") if "meeting" in p.read_text(encoding="utf-8").lower()]
    assert len(notes) >= 8
