"""A parameter a call does not take is refused, naming what it takes: never silently dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from tests.tools.conftest import error_text

from vaultgate.config import Settings
from vaultgate.server import build_server
from vaultgate.tools.operations import SPLIT, UNIFIED
from vaultgate.tools.parameters import likely_parameter
from vaultgate.tools.registry import single_tools

pytestmark = pytest.mark.anyio

# Obsidian is never reached: a refused call does nothing, so no emulator is needed (port 9 is
# the discard port, nothing answers there).
OFFLINE = {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": "9", "OBSIDIAN_PROTOCOL": "http"}


def server_settings(tmp_path: Path, profile: str) -> Settings:
    memory = str(tmp_path / "memory.db")
    return Settings.from_env({**OFFLINE, "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": memory})


OPERATIONS = [
    pytest.param(profile, dispatcher, operation, id=f"{profile}-{dispatcher}.{operation}")
    for profile, table in (("compact", UNIFIED), ("split", SPLIT))
    for dispatcher, entry in table.items()
    for operation in entry.operations
]
SINGLE_TOOLS = [tool.__name__ for _, specs in single_tools() for tool, _ in specs]


@pytest.mark.parametrize(("profile", "dispatcher", "operation"), OPERATIONS)
async def test_every_dispatcher_operation_refuses_a_parameter_it_does_not_take(
    tmp_path: Path, profile: str, dispatcher: str, operation: str
) -> None:
    table = UNIFIED if profile == "compact" else SPLIT
    takes = [p.name for p in table[dispatcher].routes[operation].parameters]
    async with Client(build_server(server_settings(tmp_path, profile))) as client:
        error = error_text(await client.call_tool(dispatcher, {"operation": operation, "bogus": 1}))

    assert error.startswith(f"{dispatcher}(operation=\"{operation}\") does not take 'bogus'")
    assert "nothing was done" in error
    assert error.endswith(f"It takes: {', '.join(['operation', *takes])}.")
    assert not (tmp_path / "memory.db").exists()  # not even the memory store was opened


@pytest.mark.parametrize("tool", SINGLE_TOOLS)
async def test_every_single_tool_refuses_a_parameter_it_does_not_take(
    tmp_path: Path, tool: str
) -> None:
    async with Client(build_server(server_settings(tmp_path, "full"))) as client:
        schema = next(t for t in (await client.list_tools()).tools if t.name == tool).input_schema
        error = error_text(await client.call_tool(tool, {"bogus": 1}))

    takes = ", ".join(schema.get("properties", {})) or "no parameters"
    assert error == f"{tool} does not take 'bogus'; nothing was done. It takes: {takes}."


@pytest.mark.parametrize(
    ("tool", "arguments", "meant"),
    [
        pytest.param("vault", {"operation": "read", "path": "Welcome.md"}, "filename", id="read"),
        pytest.param(
            "vault",
            {"operation": "list", "path": "Projects"},
            "directory",
            id="list",
        ),
        pytest.param(
            "vault",
            {"operation": "list", "dir": "Projects"},
            "directory",
            id="dir",
        ),
        pytest.param("vault", {"operation": "move", "path": "a.md"}, "source", id="move"),
        pytest.param("vault", {"operation": "read", "max_length": 5}, "maxLength", id="snake-case"),
        pytest.param("vault", {"operation": "read", "maxlength": 5}, "maxLength", id="lower"),
        pytest.param("vault", {"operation": "search", "q": "x"}, "query", id="q"),
        pytest.param("vault", {"operation": "list", "limt": 5}, "limit", id="typo"),
        pytest.param(
            "memory", {"operation": "timeline", "id": 3}, "observation_id", id="timeline-id"
        ),
        pytest.param(
            "memory", {"operation": "get", "observation_id": 3}, "id", id="get-observation-id"
        ),
        pytest.param("get_vault_file", {"path": "Welcome.md"}, "filename", id="single"),
        pytest.param("mem_search", {"text": "x"}, "query", id="single-memory"),
        pytest.param("vault", {"operation": "set_property", "name": "k"}, "key", id="key"),
        pytest.param(
            "vault", {"operation": "replace", "replaceWith": "r"}, "replacement", id="with"
        ),
        pytest.param("set_note_property", {"property": "k"}, "key", id="single-key"),
        pytest.param("add_note_tag", {"tags": ["a"]}, "tag", id="tags"),
    ],
)
async def test_the_refusal_names_the_parameter_meant(
    tmp_path: Path, tool: str, arguments: dict[str, object], meant: str
) -> None:
    async with Client(build_server(server_settings(tmp_path, "full"))) as client:
        error = error_text(await client.call_tool(tool, arguments))

    wrong = next(name for name in arguments if name != "operation")
    assert f"does not take {wrong!r} (did you mean {meant!r}?)" in error


async def test_a_parameter_of_another_operation_is_refused_by_this_one(tmp_path: Path) -> None:
    async with Client(build_server(server_settings(tmp_path, "compact"))) as client:
        error = error_text(
            await client.call_tool("vault", {"operation": "list", "filename": "Welcome.md"})
        )

    assert error.startswith("vault(operation=\"list\") does not take 'filename'")


@pytest.mark.parametrize("profile", ["compact", "split"])
@pytest.mark.parametrize("empty", [None, "", [], {}])
async def test_an_empty_parameter_the_operation_does_not_take_is_ignored(
    tmp_path: Path, profile: str, empty: object
) -> None:
    # strict mode fills every property; null means absent: neither is a model's mistake
    async with Client(build_server(server_settings(tmp_path, profile))) as client:
        error = error_text(
            await client.call_tool(
                "vault", {"operation": "info", "filename": empty, "bogus": empty, "x": 1}
            )
        )

    assert error.startswith("vault(operation=\"info\") does not take 'x'; nothing was done.")


def test_no_guess_when_nothing_is_close() -> None:
    assert likely_parameter("zzz", ["filename", "directory"]) is None
    assert likely_parameter("path", ["query"]) is None
