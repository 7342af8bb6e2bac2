"""Which queries may read a value naming another note: decided from the query's text."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgate.vault.unseen import (
    dql_link_field,
    reads_links,
    reads_note_values,
    whole_notes_query,
)


@pytest.mark.parametrize(
    ("query", "reads"),
    [
        pytest.param({"var": "links"}, True, id="links"),
        pytest.param({"var": "backlinks.0"}, True, id="an item of backlinks"),
        pytest.param({"var": "unresolvedLinks"}, True, id="unresolved links"),
        pytest.param({"var": ""}, True, id="the whole note JSON"),
        pytest.param({"var": None}, True, id="null: the whole note JSON"),
        pytest.param({"var": {"cat": ["li", "nks"]}}, True, id="a computed field"),
        pytest.param({"var": [["links"]]}, True, id="an array that stringifies to links"),
        pytest.param({"missing": ["tags", "links.0"]}, True, id="missing link"),
        pytest.param({"missing_some": [1, ["path", "backlinks"]]}, True, id="missing_some"),
        pytest.param({"in": ["a", {"var": "links"}]}, True, id="tested, not shown"),
        pytest.param({"map": [{"var": "backlinks"}, {"var": ""}]}, True, id="mapped"),
        pytest.param({"reduce": [{"var": "tags"}, {"var": "current"}, {"var": "links"}]}, True),
        pytest.param({"if": [True, {"var": "links"}, 1]}, True, id="a branch"),
        pytest.param({"var": "frontmatter.links"}, False, id="a frontmatter key named links"),
        pytest.param({"in": ["project", {"var": "tags"}]}, False, id="tags"),
        pytest.param({"glob": ["Projects/**", {"var": "path"}]}, False, id="path"),
        pytest.param({"in": ["links", {"var": "content"}]}, False, id="the word in content"),
        pytest.param({"some": [{"var": "tags"}, {"==": [{"var": ""}, "x"]}]}, False, id="item"),
        pytest.param({"var": 1}, False, id="a number"),
        pytest.param({"a": {"var": "links"}, "b": 1}, False, id="two keys: data, not logic"),
    ],
)
def test_a_query_reads_links_when_any_field_it_may_read_is_another_note(
    query: Any, reads: bool
) -> None:
    assert reads_links(query) is reads


def test_the_whole_note_query_asks_for_the_text_exactly_when_the_query_names_content() -> None:
    assert '"content"' not in str(whole_notes_query({"var": "links"})).replace("'", '"')
    assert "content" in str(whole_notes_query({"in": ["x", {"var": "content"}]}))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("TABLE file.inlinks", "file.inlinks"),
        ('TABLE file.name FROM "Projects" WHERE contains(file.outlinks, "x")', "file.outlinks"),
        ("TABLE status", "status"),
        ("TABLE file.name FROM [[Secret/plan]]", "[[...]]"),
        ("TABLE file.name FROM outgoing(x)", "outgoing(...)"),
        ('TABLE file.name, file.size FROM "Café 日本" OR #tag/sub SORT file.mtime DESC', None),
        ('TABLE file.name WHERE contains(file.path, "status") LIMIT 5', None),
    ],
)
def test_a_dql_query_names_the_first_field_that_may_hold_a_link(
    query: str, field: str | None
) -> None:
    assert dql_link_field(query) == field


@pytest.mark.parametrize("query", ['LIST FROM ""', "TASK", 'list file.inlinks FROM "A"', ""])
def test_a_query_the_plugin_refuses_itself_is_left_to_it(query: str) -> None:
    # the plugin answers "Only TABLE dataview queries are supported"; vaultgate must not
    # refuse it first for a reason that is not the real one
    assert dql_link_field(query) is None


@pytest.mark.parametrize(
    ("query", "shows"),
    [
        pytest.param(True, False, id="every note"),
        pytest.param({"var": "path"}, False, id="the path"),
        pytest.param(
            {"if": [{">=": [{"var": "stat.mtime"}, 1]}, {"var": "stat.mtime"}, 0]},
            False,
            id="recent changes",
        ),
        pytest.param({"var": "content"}, True, id="the text"),
        pytest.param({"substr": [{"var": "content"}, 0, 9]}, True, id="a cut of the text"),
        pytest.param({"var": "frontmatter.codename"}, True, id="a frontmatter value"),
        pytest.param({"in": ["日本", {"var": "tags"}]}, True, id="tags"),
        pytest.param({"var": ""}, True, id="the whole note JSON"),
        pytest.param({"var": {"cat": ["pa", "th"]}}, True, id="a computed field"),
        pytest.param({"map": [{"var": "links"}, {"var": ""}]}, True, id="links, item by item"),
    ],
)
def test_a_query_shows_a_note_s_values_unless_it_reads_only_what_a_listing_shows(
    query: object, shows: bool
) -> None:
    # a hidden note's values are checked on the note as it is now (issue 36)
    assert reads_note_values(query) is shows
