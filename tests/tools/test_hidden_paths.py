"""No tool reaches a hidden path: every tool and every operation, with `.obsidian/…` arguments.

The real plugin serves and writes hidden files by disk (``.obsidian/plugins/…/data.json`` holds
its API key and its certificate's private key), and so does the emulator: the first test proves
that, so the rest show that vaultgate's own refusal is what protects them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, error_text, payload, settings_for

from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

KEY_FILE = ".obsidian/plugins/obsidian-local-rest-api/data.json"
HIDDEN_FILES = {
    KEY_FILE: '{"apiKey": "do-not-leak", "crypto": {"privateKey": "-----BEGIN PRIVATE KEY-----"}}',
    ".obsidian/plugins/dataview/main.js": "module.exports = {};\n",
    ".trash/Private/old.md": "# Old\n\nA trashed note about zebras.\n",
    ".hidden/x.md": "# Hidden\n\nzebras in a hidden folder\n",
    "Projects/.secret.md": "# Secret\n\nzebras next to a note\n",
    ".git/config": "[core]\n",
    ".DS_Store": "\x00\x01",
}


@pytest.fixture
def hidden_vault(vault: Path) -> Path:
    for path, text in HIDDEN_FILES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return vault


def hidden_tree(vault: Path) -> dict[str, str]:
    """Every file below a hidden part of the vault, with a digest of its bytes."""
    return {
        path.relative_to(vault).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in vault.rglob("*")
        if path.is_file() and any(part.startswith(".") for part in path.relative_to(vault).parts)
    }


async def test_the_emulator_itself_serves_hidden_files_as_the_plugin_does(
    hidden_vault: Path, emulator_factory: EmulatorFactory
) -> None:
    emulator = emulator_factory()
    async with emulator.client() as http:
        answer = await http.get("/vault/.obsidian/plugins/obsidian-local-rest-api/data.json")

    assert answer.status_code == 200
    assert "do-not-leak" in answer.text


# One call per tool and operation that takes a path, each aimed at a hidden one.
FULL_PROFILE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_vault_file", {"filename": KEY_FILE}),
    ("get_vault_file", {"filename": KEY_FILE, "format": "json"}),
    ("get_vault_file", {"filename": ".hidden/x.md", "format": "map"}),
    ("get_vault_file", {"filename": ".trash/Private/old.md", "section": "Old"}),
    ("get_vault_file", {"filename": ".obsidian"}),
    ("get_vault_file", {"filename": "Projects/.secret.md"}),
    ("list_vault_files", {"directory": ".obsidian"}),
    ("list_vault_files", {"directory": ".trash/", "recursive": True}),
    ("list_vault_files", {"directory": "", "recursive": True, "pattern": ".obsidian/**"}),
    ("list_vault_files", {"pattern": "**/.*"}),
    ("search_vault_simple", {"query": "zebras", "directory": ".trash"}),
    ("create_vault_file", {"filename": ".obsidian/plugins/evil/main.js", "content": "pwn()"}),
    ("create_vault_file", {"filename": KEY_FILE, "content": "{}", "overwrite": True}),
    ("append_to_vault_file", {"filename": ".obsidian/plugins/dataview/main.js", "content": "x"}),
    (
        "patch_vault_file",
        {
            "filename": ".hidden/x.md",
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Hidden",
            "content": "x",
        },
    ),
    ("delete_vault_file", {"filename": ".trash/Private/old.md"}),
    ("delete_vault_file", {"filename": ".obsidian", "permanent": True}),
    ("delete_vault_file", {"filename": ".git/"}),
    ("move_vault_file", {"source": ".trash/Private/old.md", "destination": "Restored.md"}),
    ("move_vault_file", {"source": "Welcome.md", "destination": ".obsidian/plugins/x/main.js"}),
    ("move_vault_file", {"source": "Welcome.md", "destination": ".trash/"}),
    ("bulk_delete_files", {"pattern": ".obsidian/**", "dryRun": True}),
    ("bulk_delete_files", {"pattern": "**/.*", "dryRun": False, "confirmAll": True}),
    ("bulk_delete_files", {"pattern": "**", "directory": ".trash", "dryRun": True}),
    ("show_file_in_obsidian", {"filename": ".obsidian/app.json"}),
    ("execute_template", {"name": ".obsidian/templates/t.md"}),
    (
        "execute_template",
        {"name": "Templates/Meeting template.md", "createFile": True, "targetPath": ".hidden/n.md"},
    ),
    # issue 13, reading (get_vault_files answers per note: see below)
    ("get_backlinks", {"filename": KEY_FILE}),
    ("get_backlinks", {"filename": "Projects/.secret.md"}),
    ("find_broken_links", {"directory": ".hidden"}),
    ("find_orphans", {"directory": ".trash/Private"}),
    ("get_recent_changes", {"directory": ".obsidian"}),
    ("replace_in_notes", {"find": "zebras", "replacement": "x", "filename": ".hidden/x.md"}),
    ("replace_in_notes", {"find": "zebras", "replacement": "x", "directory": ".trash"}),
    ("replace_in_notes", {"find": "zebras", "replacement": "x", "pattern": "**/.*"}),
    ("set_note_property", {"filename": ".hidden/x.md", "key": "k", "value": 1}),
    ("delete_note_property", {"filename": "Projects/.secret.md", "key": "k"}),
    ("add_note_tag", {"filename": ".trash/Private/old.md", "tag": "t"}),
    ("remove_note_tag", {"filename": ".hidden/x.md", "tag": "t", "inline": True}),
]

DISPATCHER_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("vault", {"operation": "read", "filename": KEY_FILE}),
    ("vault", {"operation": "read", "format": "map", "filename": ".hidden/x.md"}),
    ("vault", {"operation": "list", "directory": ".obsidian/plugins"}),
    ("vault", {"operation": "list", "pattern": ".trash/**", "recursive": True}),
    ("vault", {"operation": "search", "query": "zebras", "directory": ".hidden"}),
    ("vault", {"operation": "create", "filename": ".obsidian/snippets/x.css", "content": "x"}),
    ("vault", {"operation": "append", "filename": KEY_FILE, "content": "x"}),
    (
        "vault",
        {
            "operation": "patch",
            "filename": ".hidden/x.md",
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Hidden",
            "content": "x",
        },
    ),
    ("vault", {"operation": "delete", "filename": ".trash/Private/old.md"}),
    ("vault", {"operation": "move", "source": ".hidden/x.md", "destination": "x.md"}),
    ("vault", {"operation": "bulk_delete", "pattern": ".hidden/*.md", "dryRun": True}),
    (
        "vault",
        {"operation": "replace", "find": "zebras", "replacement": "x", "directory": ".hidden"},
    ),
    ("vault", {"operation": "set_property", "filename": KEY_FILE, "key": "k", "value": 1}),
    ("vault", {"operation": "add_tag", "filename": ".hidden/x.md", "tag": "t"}),
    ("vault", {"operation": "open", "filename": ".obsidian/app.json"}),
    ("vault", {"operation": "backlinks", "filename": ".hidden/x.md"}),
    ("vault", {"operation": "recent", "directory": ".trash"}),
]


# The same operations as the split profile offers them (vault reads, vault_edit changes).
SPLIT_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("vault", {"operation": "read", "filename": KEY_FILE}),
    ("vault", {"operation": "read", "format": "map", "filename": ".hidden/x.md"}),
    ("vault", {"operation": "list", "directory": ".obsidian/plugins"}),
    ("vault", {"operation": "list", "pattern": ".trash/**", "recursive": True}),
    ("vault", {"operation": "search", "query": "zebras", "directory": ".hidden"}),
    ("vault_edit", {"operation": "create", "filename": ".obsidian/snippets/x.css", "content": "x"}),
    ("vault_edit", {"operation": "append", "filename": KEY_FILE, "content": "x"}),
    (
        "vault_edit",
        {
            "operation": "patch",
            "filename": ".hidden/x.md",
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Hidden",
            "content": "x",
        },
    ),
    ("vault_edit", {"operation": "delete", "filename": ".trash/Private/old.md"}),
    ("vault_edit", {"operation": "move", "source": ".hidden/x.md", "destination": "x.md"}),
    ("vault_edit", {"operation": "bulk_delete", "pattern": ".hidden/*.md", "dryRun": True}),
    (
        "vault_edit",
        {"operation": "replace", "find": "zebras", "replacement": "x", "directory": ".hidden"},
    ),
    ("vault_edit", {"operation": "set_property", "filename": KEY_FILE, "key": "k", "value": 1}),
    ("vault_edit", {"operation": "add_tag", "filename": ".hidden/x.md", "tag": "t"}),
    ("vault_edit", {"operation": "open", "filename": ".obsidian/app.json"}),
    ("vault", {"operation": "backlinks", "filename": ".hidden/x.md"}),
    ("vault", {"operation": "recent", "directory": ".trash"}),
]


# The folder parameter's former names (issue 34) are taken as directory: refused alike.
FORMER_NAME_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_vault_files", {"folder": ".obsidian"}),
    ("search_vault_simple", {"query": "zebras", "folders": ".trash"}),
    ("vault", {"operation": "list", "folder": ".obsidian/plugins"}),
    ("vault", {"operation": "bulk_delete", "pattern": "**", "folder": ".trash", "dryRun": True}),
    ("vault", {"operation": "search_smart", "query": "zebras", "folder": ".hidden"}),
]


def call_id(call: tuple[str, dict[str, Any]]) -> str:
    name, arguments = call
    shown = ",".join(f"{key}={value}" for key, value in arguments.items())
    return f"{name}({shown})"


@pytest.mark.parametrize(
    ("profile", "call"),
    [
        *(
            pytest.param("full", call, id=call_id(call))
            for call in FULL_PROFILE_CALLS + DISPATCHER_CALLS + FORMER_NAME_CALLS
        ),
        *(pytest.param("split", call, id=f"split-{call_id(call)}") for call in SPLIT_CALLS),
    ],
)
async def test_every_tool_refuses_a_hidden_path_and_leaves_it_untouched(
    hidden_vault: Path, emulator: RunningEmulator, profile: str, call: tuple[str, dict[str, Any]]
) -> None:
    before = hidden_tree(hidden_vault)
    name, arguments = call

    async with Client(build_server(settings_for(emulator, VAULTGATE_TOOLS=profile))) as client:
        result = await client.call_tool(name, arguments)

    message = error_text(result)
    assert "Hidden and configuration files are not part of the vault" in message
    assert "do-not-leak" not in message
    assert hidden_tree(hidden_vault) == before


async def test_listings_and_searches_never_show_hidden_paths(
    hidden_vault: Path, emulator: RunningEmulator
) -> None:
    async with Client(build_server(settings_for(emulator))) as client:
        listed = payload(
            await client.call_tool(
                "list_vault_files",
                {"recursive": True, "limit": 1000, "pattern": "**", "layout": "flat"},
            )
        )
        found = payload(await client.call_tool("search_vault_simple", {"query": "zebras"}))
        structured = payload(
            await client.call_tool(
                "search_vault", {"query": {"glob": ["**", {"var": "path"}]}, "limit": 100}
            )
        )

    shown = (
        listed["files"]
        + [hit["filename"] for hit in found["results"]]
        + [row["filename"] for row in structured["results"]]
    )
    assert shown
    assert not [path for path in shown if any(p.startswith(".") for p in path.split("/"))]


async def test_a_batch_read_refuses_each_hidden_path_and_reads_the_others(
    hidden_vault: Path, emulator: RunningEmulator
) -> None:
    before = hidden_tree(hidden_vault)
    async with Client(build_server(settings_for(emulator))) as client:
        result = payload(
            await client.call_tool(
                "get_vault_files",
                {"filenames": [KEY_FILE, "Welcome.md", ".hidden/x.md", "Projects/.secret.md"]},
            )
        )

    by_name = {entry["filename"]: entry for entry in result["notes"]}
    assert "# Welcome" in by_name["Welcome.md"]["content"]
    for hidden in (KEY_FILE, ".hidden/x.md", "Projects/.secret.md"):
        assert "content" not in by_name[hidden]
        assert (
            "Hidden and configuration files are not part of the vault" in by_name[hidden]["error"]
        )
    assert "do-not-leak" not in str(result)
    assert "zebras" not in str(result)
    assert hidden_tree(hidden_vault) == before


async def test_link_health_and_recent_changes_never_show_hidden_paths(
    hidden_vault: Path, emulator: RunningEmulator
) -> None:
    async with Client(build_server(settings_for(emulator))) as client:
        orphans = payload(await client.call_tool("find_orphans", {"limit": 1000}))
        recent = payload(
            await client.call_tool("get_recent_changes", {"days": 3650, "limit": 1000})
        )
        broken = payload(await client.call_tool("find_broken_links", {}))
        linking = payload(await client.call_tool("get_backlinks", {"filename": "Welcome.md"}))

    shown = (
        [item["path"] for item in orphans["orphans"]]
        + [note["filename"] for note in recent["notes"]]
        + [note["filename"] for note in broken["notes"]]
        + [note["filename"] for note in linking["backlinks"]]
    )
    assert orphans["orphans"]
    assert recent["notes"]
    assert not [path for path in shown if any(p.startswith(".") for p in path.split("/"))]
