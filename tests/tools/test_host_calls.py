"""Every call a real host makes answers exactly as the plain call (issue 35, "Done when"): for
every operation of every dispatcher in the compact and split profiles, and every single tool of
the full profile, the plain call is made once and then the way three hosts send it:

- ``null``: every other property ``null`` (mcp-use, and models that send optional fields so);
- ``strict``: every property present, as OpenAI's strict mode forces them: the schema's
  default where it has one, else the empty value of its type (``""``, ``[]``, ``{}``) or
  ``null``;
- ``wait_for_previous``: Gemini CLI's own key added to the call.

Each host's call must give the same ``is_error`` and the same text as the plain one (times
masked). A call that changes the vault or the memory store is made on a vault and a server of
its own, and the vault's notes afterwards must be the same too. Runs on the folder backend,
memory in RAM; tests/compat/ drives the same calls through the real client frameworks.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, Tool
from tests.tools.conftest import FIXTURE_VAULT, folder_settings, texts

from vaultgate.server import build_server
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.registry import single_tools

pytestmark = pytest.mark.anyio

# The plain call of each single tool (a dispatcher operation takes the same arguments), on
# the fixture vault and a memory store prepared by ``prepared``.
PLAIN: dict[str, dict[str, Any]] = {
    "list_vault_files": {"directory": "Projects", "limit": 5},
    "get_vault_file": {"filename": "Welcome.md", "maxLength": 200},
    "get_vault_files": {"filenames": ["Welcome.md", "Projects/Overview.md"], "maxLength": 200},
    "search_vault_simple": {"query": "meeting", "limit": 2},
    "search_vault": {"query": {"glob": ["Projects/**", {"var": "path"}]}, "limit": 3},
    "search_vault_smart": {"query": "launch plan", "limit": 2},
    "list_tags": {"limit": 5},
    "get_recent_changes": {"limit": 3},
    "get_backlinks": {"filename": "People/Dana Whitfield.md"},
    "find_broken_links": {"limit": 3},
    "find_orphans": {"limit": 3},
    "get_periodic_note": {"period": "daily", "date": "2026-11-21"},
    "get_server_info": {},
    "list_commands": {"limit": 3},
    "get_active_file": {"maxLength": 50},
    "update_active_file": {"content": "# New\n"},
    "append_to_active_file": {"content": "- y\n"},
    "patch_active_file": {
        "patchOperation": "append",
        "targetType": "heading",
        "target": "Tasks",
        "content": "- t\n",
    },
    "delete_active_file": {},
    "mem_search": {"query": "cache"},
    "mem_timeline": {"observation_id": 1},
    "mem_get": {"id": 1},
    "mem_get_observation": {"id": 1},
    "mem_get_observations": {"ids": [1, 2]},
    "mem_context": {"project": "vaultgate"},
    "mem_stats": {},
    "timeline": {"before": 2, "after": 2},
    "sdd_get_context": {"change": "add-dispatchers"},
    "sdd_context_check": {"change_description": "page the search results"},
    "mem_save": {"title": "Chose FTS5", "content": "Local, no server.", "project": "vaultgate"},
    "mem_save_prompt": {"content": "Make search faster"},
    "mem_session_start": {"project": "vaultgate", "session_id": "s-2"},
    "mem_session_end": {"session_id": "s-1", "summary": "Paging done."},
    "mem_update": {"id": 1, "title": "Cache policy (LRU)"},
    "mem_delete": {"id": 2},
    "mem_compact": {"older_than_days": 30},
    "create_vault_file": {"filename": "Inbox/idea.md", "content": "# Idea\n"},
    "append_to_vault_file": {"filename": "Welcome.md", "content": "- x\n"},
    "patch_vault_file": {
        "filename": "Projects/Overview.md",
        "patchOperation": "append",
        "targetType": "heading",
        "target": "Project Alpha::Notes",
        "content": "- r\n",
    },
    "delete_vault_file": {"filename": "Inbox/Quick capture.md"},
    "move_vault_file": {"source": "Inbox/Quick capture.md", "destination": "Archive/"},
    "bulk_delete_files": {"pattern": "Daily/*.md"},
    "append_to_periodic_note": {"period": "daily", "date": "2026-11-21", "content": "- 10:00\n"},
    "execute_template": {
        "name": "Templates/Meeting template.md",
        "arguments": {"topic": "Pricing"},
    },
    "replace_in_notes": {"find": "Acme", "replacement": "Acme Inc.", "directory": "Projects"},
    "set_note_property": {"filename": "Welcome.md", "key": "status", "value": "done"},
    "delete_note_property": {"filename": "Projects/Overview.md", "key": "status"},
    "add_note_tag": {"filename": "Welcome.md", "tag": "project/active"},
    "remove_note_tag": {"filename": "Projects/Overview.md", "tag": "overview"},
    "show_file_in_obsidian": {"filename": "Welcome.md"},
    "execute_command": {"commandId": "editor:toggle-bold"},
    "fetch": {"url": "http://127.0.0.1:9/"},
}
# Calls that change the memory store (the vault's writers are known by their routes).
MEMORY_WRITES = {
    "mem_save",
    "mem_save_prompt",
    "mem_session_start",
    "mem_session_end",
    "mem_update",
    "mem_delete",
    "mem_compact",
}
# Plain calls that fail on the folder backend whatever a host adds: there is no Obsidian to
# hold an open note, run a command, find a periodic note or run Templater, and fetch refuses
# loopback addresses. Their host forms
# must fail with the same words.
FAILING = {
    "get_active_file",
    "update_active_file",
    "append_to_active_file",
    "patch_active_file",
    "delete_active_file",
    "list_commands",
    "execute_command",
    "show_file_in_obsidian",
    "get_periodic_note",
    "append_to_periodic_note",
    "execute_template",
    "fetch",
}
# Calls whose answer waits for the folder backend's index, built in the background.
INDEXED = {"search_vault_smart"}
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ][\d:.]+(Z|[+-]\d\d:?\d\d)?")
PROFILES = {"compact": UNIFIED, "split": SPLIT}


def case_id(profile: str, tool: str, operation: str | None) -> str:
    return f"{profile}-{tool}" + (f".{operation}" if operation else "")


def cases() -> list[Any]:
    """(profile, tool, arguments, single tool, writes) for every operation and single tool."""
    found = []
    for profile, dispatchers in PROFILES.items():
        for dispatcher in dispatchers.values():
            found.extend(dispatcher_cases(profile, dispatcher))
    for profile in (*PROFILES, "full"):
        for arguments in ({"category": "memory"}, {"operation": "vault.read"}):
            found.append(
                pytest.param(
                    profile,
                    "discover",
                    arguments,
                    "discover",
                    False,
                    id=f"{profile}-discover-{next(iter(arguments))}",
                )
            )
    for _, specs in single_tools():
        for function, hints in specs:
            name = function.__name__
            writes = not hints.read_only_hint or name in MEMORY_WRITES
            found.append(
                pytest.param(
                    "full", name, PLAIN[name], name, writes, id=case_id("full", name, None)
                )
            )
    return found


# Calls known to answer otherwise under a host's fills (none: strict mode's topic_key="" on an
# update, which once removed the memory's topic key, now means absent).
KNOWN: dict[str, str] = {}


def dispatcher_cases(profile: str, dispatcher: Dispatcher) -> list[Any]:
    found = []
    for operation, route in dispatcher.routes.items():
        name = case_id(profile, dispatcher.name, operation)
        marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
        found.append(
            pytest.param(
                profile,
                dispatcher.name,
                {"operation": operation, **PLAIN[route.tool_name]},
                route.tool_name,
                route.writes or route.tool_name in MEMORY_WRITES,
                id=name,
                marks=marks,
            )
        )
    return found


def empty_of(schema: dict[str, Any]) -> Any:
    """What strict mode puts in a property the call does not use: the default, else the empty
    value of its type (a text option makes it ``""``), else ``null``."""
    if "default" in schema:
        return schema["default"]
    types = [option.get("type") for option in schema.get("anyOf", [schema])]
    for kind, empty in (("string", ""), ("array", []), ("object", {})):
        if kind in types:
            return empty
    return None


def nulls(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    others = tool.input_schema["properties"].keys() - arguments.keys()
    return {**dict.fromkeys(sorted(others)), **arguments}


def strict(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    properties = tool.input_schema["properties"]
    filled = {
        name: empty_of(schema) for name, schema in properties.items() if name not in arguments
    }
    return {**filled, **arguments}


def gemini(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    return {**arguments, "wait_for_previous": True}


HOSTS: dict[str, Callable[[Tool, dict[str, Any]], dict[str, Any]]] = {
    "null": nulls,
    "strict": strict,
    "wait_for_previous": gemini,
}
Answer = tuple[bool, list[str]]


def answer(result: CallToolResult) -> Answer:
    return bool(result.is_error), [TIME.sub("<time>", text) for text in texts(result)]


def notes(vault: Path) -> dict[str, bytes]:
    return {
        path.relative_to(vault).as_posix(): path.read_bytes()
        for path in sorted(vault.rglob("*"))
        if path.is_file() and ".obsidian" not in path.parts
    }


@asynccontextmanager
async def prepared(folder: Path, profile: str) -> AsyncIterator[tuple[Client, dict[str, Tool]]]:
    """A server on a fresh copy of the fixture vault whose memory holds two memories (#1 with a
    topic_key, #2) and an open session s-1, its index built."""
    vault = folder / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    async with Client(build_server(folder_settings(vault, VAULTGATE_TOOLS=profile))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        saved = [
            {"title": "Cache policy", "content": "LRU cache", "topic_key": "arch/cache"},
            {"title": "Cache bug", "content": "stale cache"},
        ]
        setup = [("session_start", {"session_id": "s-1"})] + [("save", memory) for memory in saved]
        for operation, arguments in setup:
            done = await memory_call(client, profile, operation, project="vaultgate", **arguments)
            assert not done.is_error, texts(done)
        await index_built(client, profile)
        yield client, tools


async def memory_call(client: Client, profile: str, operation: str, **arguments: Any) -> Any:
    if profile == "full":
        return await client.call_tool(f"mem_{operation}", arguments)
    return await client.call_tool("memory", {"operation": operation, **arguments})


async def index_built(client: Client, profile: str) -> None:
    """Until the folder backend's index answers a smart search (built in the background)."""
    tool, operation = (
        ("search_vault_smart", {})
        if profile == "full"
        else ("vault", {"operation": "search_smart"})
    )
    with anyio.fail_after(60):
        while True:
            result = await client.call_tool(tool, {**operation, "query": "launch"})
            if not result.is_error or "being built" not in texts(result)[0]:
                return
            await anyio.sleep(0.05)


async def memories(client: Client, profile: str) -> list[Answer]:
    """What the memory store holds after a call: each memory there may be, and the stats."""
    held = [answer(await memory_call(client, profile, "get", id=id)) for id in (1, 2, 3)]
    return [*held, answer(await memory_call(client, profile, "stats"))]


async def call_on_own_vault(
    folder: Path, profile: str, tool: str, arguments: Callable[[Tool], dict[str, Any]]
) -> tuple[Answer, Any, dict[str, Any]]:
    folder.mkdir()
    async with prepared(folder, profile) as (client, tools):
        sent = arguments(tools[tool])
        result = answer(await client.call_tool(tool, sent))
        held = await memories(client, profile)
    return result, (notes(folder / "vault"), held), sent


@pytest.mark.parametrize(("profile", "tool", "arguments", "single", "writes"), cases())
async def test_every_host_form_of_a_call_answers_exactly_as_the_plain_call(
    tmp_path: Path,
    profile: str,
    tool: str,
    arguments: dict[str, Any],
    single: str,
    writes: bool,
) -> None:
    hosted: dict[str, tuple[Answer, dict[str, Any]]] = {}
    if writes:  # each on a vault and a memory store of its own
        plain, before, _ = await call_on_own_vault(
            tmp_path / "plain", profile, tool, lambda _: arguments
        )
        for host, form in HOSTS.items():
            got, after, sent = await call_on_own_vault(
                tmp_path / host, profile, tool, lambda listed, form=form: form(listed, arguments)
            )
            hosted[host] = got, sent
            assert after == before, f"{host} left the vault or the memory otherwise: {sent}"
    else:
        async with prepared(tmp_path, profile) as (client, tools):
            plain = answer(await client.call_tool(tool, arguments))
            for host, form in HOSTS.items():
                sent = form(tools[tool], arguments)
                hosted[host] = answer(await client.call_tool(tool, sent)), sent

    assert plain[0] == (single in FAILING), plain
    for host, (got, sent) in hosted.items():
        assert got == plain, f"{host} sent {sent}"
