"""What real hosts send answers exactly as the plain call (tools/arguments.py, issue 35 items
1-3): every other property null (mcp-use), every unused text property "" (OpenAI's strict
mode), Gemini CLI's wait_for_previous; and a former name answers exactly as its canonical one
(issue 34 item 1). A few operations of each dispatcher, in both profiles, reads and writes."""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import Tool
from tests.tools.conftest import FIXTURE_VAULT, EmulatorFactory, settings_for, texts

from vaultgate.emulator.runner import start_emulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

# (profile, tool, arguments): answers that do not depend on what an earlier call did, so the
# plain call and each host's form of it can be made one after the other on one server.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("compact", "vault", {"operation": "list", "directory": "Projects"}),
    ("compact", "vault", {"operation": "read", "filename": "Welcome.md", "maxLength": 80}),
    ("compact", "vault", {"operation": "search", "query": "meeting", "limit": 2}),
    ("compact", "vault", {"operation": "append", "filename": "Welcome.md", "content": "- x\n"}),
    ("compact", "vault", {"operation": "bulk_delete", "pattern": "Daily/*.md"}),
    ("compact", "active_file", {"operation": "read", "maxLength": 50}),
    ("compact", "active_file", {"operation": "append", "content": "- y\n"}),
    ("compact", "memory", {"operation": "search", "query": "cache"}),
    ("compact", "memory", {"operation": "stats"}),
    ("compact", "memory", {"operation": "compact", "older_than_days": 30}),
    ("split", "vault", {"operation": "list", "recursive": True, "limit": 5}),
    ("split", "vault", {"operation": "read", "filename": "Welcome.md", "section": "Welcome"}),
    ("split", "vault", {"operation": "active", "maxLength": 50}),
    ("split", "vault_edit", {"operation": "append", "filename": "Welcome.md", "content": "z"}),
    ("split", "vault_edit", {"operation": "bulk_delete", "pattern": "Inbox/**"}),
    ("split", "memory", {"operation": "get", "id": 1}),
    ("split", "memory", {"operation": "context"}),
    ("split", "memory_edit", {"operation": "compact", "older_than_days": 30}),
    ("full", "list_vault_files", {"directory": "Projects", "limit": 3}),
    ("full", "get_vault_file", {"filename": "Welcome.md", "maxLength": 80}),
    ("full", "mem_search", {"query": "cache"}),
]
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?")


def is_text(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", [schema])
    return any(option.get("type") == "string" for option in options)


def nulls(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every other property null, as mcp-use sends an optional field left out."""
    others = tool.input_schema["properties"].keys() - arguments.keys()
    return {**dict.fromkeys(others), **arguments}


def strict(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every property present, as OpenAI's strict mode sends them: unused text "", the rest
    null."""
    properties = tool.input_schema["properties"]
    filled = {
        name: ("" if is_text(schema) else None)
        for name, schema in properties.items()
        if name not in arguments
    }
    return {**filled, **arguments}


def gemini(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Gemini CLI's own key added to every call."""
    return {**arguments, "wait_for_previous": True}


HOSTS: dict[str, Callable[[Tool, dict[str, Any]], dict[str, Any]]] = {
    "null": nulls,
    "strict": strict,
    "wait_for_previous": gemini,
}


@asynccontextmanager
async def server(emulator_factory: EmulatorFactory, profile: str) -> AsyncIterator[Client]:
    settings = settings_for(
        emulator_factory(), VAULTGATE_TOOLS=profile, VAULTGATE_MEMORY_DB=":memory:"
    )
    async with Client(build_server(settings)) as client:
        save = ("mem_save", {}) if profile == "full" else ("memory", {"operation": "save"})
        for title in ("Cache policy", "Cache bug"):
            saved = await client.call_tool(save[0], {**save[1], "title": title, "content": "c"})
            assert not saved.is_error, texts(saved)
        yield client


def answer(result: Any) -> tuple[bool, list[str]]:
    return bool(result.is_error), [TIME.sub("<time>", text) for text in texts(result)]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(
    ("profile", "tool", "arguments"),
    [
        pytest.param(*call, id=f"{call[0]}-{call[1]}.{call[2].get('operation', '')}")
        for call in CALLS
    ],
)
async def test_what_a_host_adds_answers_exactly_as_the_plain_call(
    emulator_factory: EmulatorFactory,
    profile: str,
    tool: str,
    arguments: dict[str, Any],
    host: str,
) -> None:
    async with server(emulator_factory, profile) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        plain = answer(await client.call_tool(tool, arguments))
        sent = HOSTS[host](listed[tool], arguments)
        hosted = answer(await client.call_tool(tool, sent))

    assert sent != arguments
    assert not plain[0], plain
    assert hosted == plain


# (profile, tool, the call with its canonical names, the former name → the canonical one)
FORMER: list[tuple[str, str, dict[str, Any], str, str]] = [
    ("compact", "vault", {"operation": "list", "directory": "Projects"}, "folder", "directory"),
    ("split", "vault", {"operation": "list", "directory": "Daily"}, "folders", "directory"),
    ("full", "list_vault_files", {"directory": "Projects"}, "folder", "directory"),
    (
        "compact",
        "vault",
        {"operation": "search", "query": "meeting", "directory": "Meetings"},
        "folder",
        "directory",
    ),
    (
        "split",
        "vault_edit",
        {"operation": "bulk_delete", "pattern": "*.md", "directory": "Daily"},
        "folder",
        "directory",
    ),
    (
        "compact",
        "vault",
        {"operation": "replace", "find": "launch", "replacement": "x", "dryRun": True},
        "content",
        "replacement",
    ),
    (
        "full",
        "set_note_property",
        {"filename": "Welcome.md", "key": "status", "value": "done"},
        "target",
        "key",
    ),
    (
        "split",
        "vault_edit",
        {"operation": "delete_property", "filename": "Projects/Overview.md", "key": "status"},
        "target",
        "key",
    ),
    (
        "full",
        "patch_vault_file",
        {
            "filename": "Projects/Overview.md",
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Risks",
            "content": "- r\n",
        },
        "operation",
        "patchOperation",
    ),
    (
        "full",
        "patch_active_file",
        {"patchOperation": "append", "targetType": "heading", "target": "Tasks", "content": "t"},
        "operation",
        "patchOperation",
    ),
]


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "former", "canonical"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}-{case[3]}") for case in FORMER],
)
async def test_a_former_name_answers_exactly_as_the_canonical_one(
    tmp_path: Path,
    profile: str,
    tool: str,
    arguments: dict[str, Any],
    former: str,
    canonical: str,
) -> None:
    renamed = {(former if name == canonical else name): value for name, value in arguments.items()}
    answers = []
    trees = []
    for side, call in (("canonical", arguments), ("former", renamed)):
        vault = tmp_path / side  # each on a vault of its own: some of them write
        shutil.copytree(FIXTURE_VAULT, vault)
        with start_emulator(vault, active_file="Daily/2026-11-21.md") as emulator:
            settings = settings_for(
                emulator, VAULTGATE_TOOLS=profile, VAULTGATE_MEMORY_DB=":memory:"
            )
            async with Client(build_server(settings)) as client:
                schema = next(t for t in (await client.list_tools()).tools if t.name == tool)
                answers.append(answer(await client.call_tool(tool, call)))
        trees.append({p.relative_to(vault): p.read_bytes() for p in vault.rglob("*.md")})

    assert former in renamed
    if "operation" not in arguments:  # a single tool: the former name has no schema entry
        assert former not in schema.input_schema["properties"]
    assert not answers[0][0], answers[0]
    assert answers[1] == answers[0]
    assert trees[1] == trees[0]


@pytest.mark.parametrize("profile", ["compact", "full"])
async def test_a_strict_hosts_update_of_a_title_keeps_the_memorys_text(
    emulator_factory: EmulatorFactory, profile: str
) -> None:
    async with server(emulator_factory, profile) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        if profile == "full":
            tool, base, read = "mem_update", {}, ("mem_get_observation", {"id": 1})
        else:
            tool, base = "memory", {"operation": "update"}
            read = ("memory", {"operation": "get", "id": 1})
        sent = strict(listed[tool], {**base, "id": 1, "title": "Cache policy 🗄 v2"})
        updated = await client.call_tool(tool, sent)
        shown = "\n".join(texts(await client.call_tool(*read)))

    assert sent["content"] == ""  # what strict mode fills an unused text with
    assert not updated.is_error, texts(updated)
    assert "Cache policy 🗄 v2" in shown
    assert "\nc\n" in f"\n{shown}\n" or shown.rstrip().endswith("c")  # the text is kept
