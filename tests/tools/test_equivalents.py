"""A call of a tool or operation this profile lacks is answered with the exact equivalent call
in the profile in use, and nothing is done (tools/equivalents.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import error_text, folder_settings, texts

from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

NOTE = {"filename": "Inbox/new.md", "content": "# New\n"}

# (profile, tool, arguments as called, the call this profile answers with)
CASES: list[tuple[str, str, dict[str, Any], str]] = [
    # the split profile's habits, asked of the default profile
    (
        "compact",
        "vault_edit",
        {"operation": "create", **NOTE},
        'vault(operation="create", filename="Inbox/new.md", content="# New\\n")',
    ),
    (
        "compact",
        "vault_edit",
        {"operation": "delete", "filename": "Welcome.md"},
        'vault(operation="delete", filename="Welcome.md")',
    ),
    (
        "compact",
        "vault",
        {"operation": "active", "maxLength": 50},
        'active_file(operation="read", maxLength=50)',
    ),
    (
        "compact",
        "vault_edit",
        {"operation": "active_append", "content": "- x\n"},
        'active_file(operation="append", content="- x\\n")',
    ),
    (
        "compact",
        "memory_edit",
        {"operation": "delete", "id": 1},
        'memory(operation="delete", id=1)',
    ),
    # the default profile's habits, asked of the split one
    (
        "split",
        "vault",
        {"operation": "create", **NOTE},
        'vault_edit(operation="create", filename="Inbox/new.md", content="# New\\n")',
    ),
    (
        "split",
        "vault",
        {"operation": "set_property", "filename": "Welcome.md", "key": "k", "value": 1},
        'vault_edit(operation="set_property", filename="Welcome.md", key="k", value=1)',
    ),
    (
        "split",
        "active_file",
        {"operation": "read", "maxLength": 50},
        'vault(operation="active", maxLength=50)',
    ),
    (
        "split",
        "active_file",
        {"operation": "delete"},
        'vault_edit(operation="active_delete")',
    ),
    (
        "split",
        "memory",
        {"operation": "delete", "id": 1},
        'memory_edit(operation="delete", id=1)',
    ),
    # earlier releases' operations, in both
    (
        "compact",
        "vault",
        {"operation": "map", "filename": "Welcome.md"},
        'vault(operation="read", filename="Welcome.md", format="map")',
    ),
    (
        "split",
        "vault",
        {"operation": "map", "filename": "Welcome.md"},
        'vault(operation="read", filename="Welcome.md", format="map")',
    ),
    ("compact", "active_file", {"operation": "commands"}, 'vault(operation="commands")'),
    ("split", "active_file", {"operation": "commands"}, 'vault(operation="commands")'),
    (
        "compact",
        "active_file",
        {"operation": "run_command", "commandId": "editor:toggle-bold"},
        'vault(operation="run_command", commandId="editor:toggle-bold")',
    ),
    # a single tool, in the profiles that reach it through a dispatcher
    (
        "compact",
        "get_vault_file",
        {"filename": "Welcome.md", "section": "", "maxLength": None},
        'vault(operation="read", filename="Welcome.md")',
    ),
    (
        "split",
        "patch_vault_file",
        {
            "filename": "Welcome.md",
            "operation": "append",  # its former name for patchOperation
            "targetType": "heading",
            "target": "Welcome",
            "content": "x",
        },
        'vault_edit(operation="patch", filename="Welcome.md", targetType="heading", '
        'target="Welcome", content="x", patchOperation="append")',
    ),
    (
        "compact",
        "mem_delete",
        {"id": 1},
        'memory(operation="delete", id=1)',
    ),
    (
        "split",
        "timeline",
        {"anchor": "2026-11-21T10:00:00Z", "before": 2},
        'memory(operation="timeline", anchor="2026-11-21T10:00:00Z", before=2)',
    ),
    # the full profile names the single tool
    (
        "full",
        "vault_edit",
        {"operation": "create", **NOTE},
        'create_vault_file(filename="Inbox/new.md", content="# New\\n")',
    ),
    ("full", "vault", {"operation": "active"}, "get_active_file()"),
]


DISPATCHERS = {"vault", "vault_edit", "active_file", "memory", "memory_edit"}


def case_id(profile: str, tool: str, arguments: dict[str, Any], equivalent: str) -> str:
    if tool in DISPATCHERS:
        return f"{profile}-{tool}.{arguments['operation']}"
    return f"{profile}-{tool}"


def save_call(profile: str) -> tuple[str, dict[str, Any]]:
    if profile == "full":
        return "mem_save", {"title": "t", "content": "c"}
    return "memory", {"operation": "save", "title": "t", "content": "c"}


def tree(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()
    }


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "equivalent"),
    [pytest.param(*case, id=case_id(*case)) for case in CASES],
)
async def test_a_call_of_another_profile_names_the_equivalent_call_and_does_nothing(
    vault: Path, profile: str, tool: str, arguments: dict[str, Any], equivalent: str
) -> None:
    before = tree(vault)
    asked = f'{tool}(operation="{arguments["operation"]}")' if tool in DISPATCHERS else tool
    settings = folder_settings(vault, VAULTGATE_TOOLS=profile)
    async with Client(build_server(settings)) as client:
        saved = await client.call_tool(*save_call(profile))
        error = error_text(await client.call_tool(tool, arguments))
        remembered = await client.call_tool("memory", {"operation": "get", "id": 1})

    assert error == (
        f"{asked} is not offered by this server's tools; {equivalent} does the same. "
        "Nothing was done."
    )
    assert tree(vault) == before
    assert not saved.is_error, texts(saved)
    assert not remembered.is_error, texts(remembered)  # memory_edit.delete did not run


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "equivalent"),
    [pytest.param(*case, id=case_id(*case)) for case in CASES if case[0] != "full"],
)
async def test_the_equivalent_call_does_what_was_asked(
    vault: Path, profile: str, tool: str, arguments: dict[str, Any], equivalent: str
) -> None:
    # The call the refusal names, made on the same server, is taken: never a refusal again.
    name, _, rest = equivalent.partition("(")
    called = eval(f"dict({rest[:-1]})")  # the rendered call's key=JSON pairs, as Python
    async with Client(build_server(folder_settings(vault, VAULTGATE_TOOLS=profile))) as client:
        assert not (await client.call_tool(*save_call(profile))).is_error
        result = await client.call_tool(name, called)

    assert "is not offered" not in " ".join(texts(result))
    assert "does not take" not in " ".join(texts(result))


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "equivalent"),
    [
        pytest.param(
            "compact",
            "vault_edit",
            {"operation": "create", **NOTE},
            'vault(operation="create", filename="Inbox/new.md", content="# New\\n")',
            id="compact",
        ),
        pytest.param(
            "split",
            "active_file",
            {"operation": "read", "maxLength": 50},
            'vault(operation="active", maxLength=50)',
            id="split",
        ),
    ],
)
async def test_the_equivalent_call_leaves_out_what_the_host_added(
    vault: Path, profile: str, tool: str, arguments: dict[str, Any], equivalent: str
) -> None:
    # null, strict mode's empty fills and a host's own keys are no arguments: the call named
    # is the one the model meant.
    padded = {**arguments, "overwrite": None, "section": "", "wait_for_previous": True}
    async with Client(build_server(folder_settings(vault, VAULTGATE_TOOLS=profile))) as client:
        error = error_text(await client.call_tool(tool, padded))

    assert f"; {equivalent} does the same." in error
