"""A hidden or denied note does not exist in any derived answer, on every backend.

Two vaults that differ only in one note: in the first it is there but out of reach (tagged
``mcp-hidden``, in a folder VAULTGATE_DENY names, or in a hidden folder), in the second it
was never written. Every answer built from other notes' links (JsonLogic values, note JSON,
broken links, orphans, backlinks) must be the same in both: a link to the note out of reach
is a link to a missing note, and what it links to is linked from nowhere.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from mcp.types import CallToolResult
from tests.tools.test_protection_tags import World, body, serve

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]
WITH_LINKS = ["4.1.7", "5.1.0", "folder", "auto"]  # note JSON with links (plugin 4.0+)
# "deny in another case": the rule says SECRET, the folder is Secret (rules fold case, as
# macOS and Windows find either name)
HOW = ["tag", "deny", "deny in another case", "hidden folder"]
DENIES = {"deny": "Secret", "deny in another case": "SECRET"}

NAME = "秘密 50% 🙈"
LINKER = "Public/links 日本 #2.md"
NFD_NAME = "other cafe\u0301 ✨"  # 'café' decomposed, as macOS writes it
OTHER = f"Public/{NFD_NAME}.md"
ONLY_FROM_HIDDEN = "Public/only linked from the hidden note 🐾.md"


def hidden_path(how: str) -> str:
    return f".secret/{NAME}.md" if how == "hidden folder" else f"Secret/{NAME}.md"


def notes(how: str) -> dict[str, str]:
    hidden = hidden_path(how)
    stem = hidden.removesuffix(".md")
    tags = "tags: [project, mcp-hidden]  # out of reach\n" if how == "tag" else ""
    return {
        LINKER: (
            f'---\nstatus: "open" # quoted, with a comment\n---\r\n# Links 🎉\r\n'
            f"See [[{stem}]] and [[{stem}|the plan]] and [[nowhere 🙉]]\r\n"
            f"![[{stem}#Part]] and [[{NFD_NAME}]] 日本語\r\n"
        ),
        OTHER: f"# Café\n\nBack to [[{LINKER.removesuffix('.md')}]].\n",
        ONLY_FROM_HIDDEN: "# Alone\n\nNothing visible links here.\n",
        hidden: (
            f"---\n{tags}---\n# Plan\n\n## Part\n\nzebrasecret, see [[{NFD_NAME}]] and "
            f"[[{ONLY_FROM_HIDDEN.removesuffix('.md')}]]\n"
        ),
        "Secret/pic 图.png" if how in DENIES else "Public/pic 图.png": "\x89PNG",
    }


def build(root: Path, how: str, *, with_hidden: bool) -> Path:
    vault = root / ("hidden" if with_hidden else "missing")
    vault.mkdir()
    for path, text in notes(how).items():
        if not with_hidden and path == hidden_path(how):
            continue
        if not with_hidden and how in DENIES and path.startswith("Secret/"):
            continue  # the whole folder is out of reach
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(text.encode("utf-8"))
    return vault


def env(how: str) -> dict[str, str]:
    return {"VAULTGATE_DENY": DENIES[how]} if how in DENIES else {}


# The probes: JsonLogic over derived values, and the link tools.
QUERIES: list[Any] = [
    {"cat": [{"var": "backlinks"}]},
    {"var": "links.0"},
    {"var": "links"},
    {"var": "backlinks"},
    {"var": "unresolvedLinks"},
    {"in": [f"Secret/{NAME}.md", {"var": "backlinks"}]},
    {"in": [f".secret/{NAME}.md", {"var": "links"}]},
    {"missing": ["backlinks.0"]},
    {"map": [{"var": "links"}, {"cat": ["<", {"var": ""}, ">"]}]},
    {"some": [{"var": "links"}, {"in": ["🙈", {"var": ""}]}]},
    {"var": ["", "content"]},
    # fails on the hidden note only: the failure would name it
    {"if": [{"in": ["zebrasecret", {"var": "content"}]}, {"no such operation": [1]}, False]},
]


def comparable(result: CallToolResult) -> Any:
    """An answer with what differs between two vault copies anyway (file times) left out."""
    text = body(result)
    try:
        value = json.loads(text)
    except ValueError:
        return (result.is_error, text)
    return (result.is_error, _without_times(value))


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k not in ("stat", "ctime")}
    if isinstance(value, list):
        return [_without_times(item) for item in value]
    return value


async def answers(world: World, calls: list[tuple[str, Mapping[str, Any]]]) -> list[Any]:
    return [
        (tool, dict(arguments), comparable(await world.client.call_tool(tool, dict(arguments))))
        for tool, arguments in calls
    ]


def link_calls(backend: str) -> list[tuple[str, Mapping[str, Any]]]:
    calls: list[tuple[str, Mapping[str, Any]]] = [
        ("find_broken_links", {"limit": 500}),
        ("find_orphans", {"limit": 1000}),
        ("get_backlinks", {"filename": OTHER}),
        ("get_backlinks", {"filename": ONLY_FROM_HIDDEN}),
        ("get_vault_file", {"filename": LINKER, "format": "json", "maxLength": 100_000}),
        ("get_vault_file", {"filename": OTHER, "format": "json", "maxLength": 100_000}),
    ]
    return calls + [("search_vault", {"query": query, "limit": 200}) for query in QUERIES]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_note_out_of_reach_answers_every_derived_question_as_if_it_did_not_exist(
    tmp_path: Path, backend: str, how: str
) -> None:
    calls = link_calls(backend)
    async with serve(build(tmp_path, how, with_hidden=True), backend, env(how)) as world:
        hidden = await answers(world, calls)
    async with serve(build(tmp_path, how, with_hidden=False), backend) as world:
        missing = await answers(world, calls)

    differ = [
        f"{tool} {arguments}:\n  hidden:  {got}\n  missing: {want}"
        for (tool, arguments, got), (_, _, want) in zip(hidden, missing, strict=True)
        if got != want
    ]
    assert differ == [], "\n".join(differ)
    assert "zebrasecret" not in repr([got for _, _, got in hidden])


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("backend", WITH_LINKS)
async def test_a_link_to_a_note_out_of_reach_is_a_broken_link(
    tmp_path: Path, backend: str, how: str
) -> None:
    async with serve(build(tmp_path, how, with_hidden=True), backend, env(how)) as world:
        result = await world.client.call_tool("find_broken_links", {})
        rows = await world.client.call_tool("search_vault", {"query": {"var": "links"}})

    assert not result.is_error, body(result)
    broken = {row["filename"]: row["broken"] for row in json.loads(body(result))["notes"]}
    stem = hidden_path(how).removesuffix(".md")
    if backend != "4.1.7":  # before 5.0 vaultgate reads the links from the text itself
        assert stem in broken[LINKER], broken
    assert "🙈" not in body(rows), body(rows)


async def test_dataview_link_fields_are_refused_while_a_note_is_hidden(tmp_path: Path) -> None:
    vault = build(tmp_path, "tag", with_hidden=True)
    async with serve(vault, "3.6.2") as world:
        inlinks = await world.client.call_tool(
            "search_vault", {"query": "TABLE file.inlinks, file.outlinks", "queryType": "dataview"}
        )
        status = await world.client.call_tool(
            "search_vault", {"query": 'TABLE status FROM "Public"', "queryType": "dataview"}
        )
        names = await world.client.call_tool(
            "search_vault",
            {
                "query": 'TABLE file.name, file.size FROM "Public" SORT file.name',
                "queryType": "dataview",
            },
        )

    for refused, field in ((inlinks, "file.inlinks"), (status, "status")):
        assert refused.is_error, body(refused)
        assert field in body(refused), body(refused)
        assert "jsonlogic" in body(refused), body(refused)
    assert not names.is_error, body(names)
    assert "🙈" not in body(names)
    assert "Public/links" in body(names)


async def test_dataview_link_fields_answer_when_no_note_is_out_of_reach(tmp_path: Path) -> None:
    vault = build(tmp_path, "tag", with_hidden=False)
    async with serve(vault, "3.6.2") as world:
        result = await world.client.call_tool(
            "search_vault", {"query": 'TABLE file.inlinks FROM "Public"', "queryType": "dataview"}
        )

    assert not result.is_error, body(result)
    rows = {row["filename"]: row["result"] for row in json.loads(body(result))["results"]}
    assert {"path": LINKER, "embed": False, "type": "file"} in rows[OTHER]["file.inlinks"]
