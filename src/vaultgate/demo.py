"""`vaultgate demo`: the whole system on a fresh machine, no Obsidian needed.

Copies the bundled sample vault to a temporary folder, serves it with the emulator over HTTPS
on free loopback ports, starts `vaultgate serve` as a subprocess over stdio, connects with the
SDK's Client, and takes a short tour, showing how large each response is.

`vaultgate demo --vault PATH` serves a copy of PATH from its folder instead
(``VAULTGATE_VAULT``, backend ``auto``) with no Obsidian running: list, read, search, patch
and move work, and asking for the note open in Obsidian says that Obsidian is needed. The
copy keeps the folder itself untouched.
"""

from __future__ import annotations

import json
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from vaultgate.emulator.runner import RunningEmulator, start_emulator

LONG_NOTE = "Resources/Long essay.md"
ACTIVE_NOTE = "Daily/2026-11-21.md"


def say(text: str) -> None:
    """The demo is a command of its own (never the server), so stdout is its output."""
    sys.stdout.write(text + "\n")


def fixture_vault() -> Path:
    """The sample vault: in the source tree, or bundled into the installed package."""
    in_tree = Path(__file__).resolve().parents[2] / "fixtures" / "vault"
    if in_tree.is_dir():
        return in_tree
    return Path(str(resources.files("vaultgate") / "_fixtures" / "vault"))


@contextmanager
def demo_emulator() -> Iterator[RunningEmulator]:
    with tempfile.TemporaryDirectory(prefix="vaultgate-demo-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(fixture_vault(), vault)
        with start_emulator(vault, active_file=ACTIVE_NOTE) as emulator:
            yield emulator


def server_parameters(emulator: RunningEmulator) -> StdioServerParameters:
    """`vaultgate serve` in a subprocess, pointed at the emulator over verified HTTPS."""
    assert emulator.https_url is not None
    port = emulator.https_url.rsplit(":", 1)[1]
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultgate", "serve"],
        env={
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_HOST": "127.0.0.1",
            "OBSIDIAN_PORT": port,
            "OBSIDIAN_PROTOCOL": "https",
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            # The demo must not touch the user's own memory database.
            "VAULTGATE_MEMORY_DB": ":memory:",
        },
    )


class Tour:
    """Calls tools, prints a one-line summary and the size of each response, counts failures."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.failures = 0

    async def call(self, title: str, tool: str, arguments: dict[str, Any]) -> list[str]:
        result: CallToolResult = await self.client.call_tool(tool, arguments)
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        size = sum(len(t) for t in texts)
        status = "ERROR" if result.is_error else "ok"
        if result.is_error:
            self.failures += 1
        args = json.dumps(arguments, ensure_ascii=False)
        say(f"\n▶ {title}\n  {tool}({args}) → {status}, {size:,} characters")
        for line in _preview(texts):
            say(f"  │ {line}")
        return texts


def _preview(texts: list[str], width: int = 110, lines: int = 4) -> list[str]:
    shown: list[str] = []
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                shown.append(line if len(line) <= width else line[: width - 1] + "…")
            if len(shown) >= lines:
                return shown
    return shown


async def tour(emulator: RunningEmulator) -> int:
    async with Client(server_parameters(emulator)) as client:
        tools = await client.list_tools()
        listed = json.dumps(
            [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools.tools],
            separators=(",", ":"),
            ensure_ascii=False,
        )
        say(
            f"Connected to vaultgate over stdio: {len(tools.tools)} tools, tools/list is "
            f"{len(listed):,} characters."
        )
        run = Tour(client)
        await run.call("Start from the catalogue", "discover", {"category": "read", "limit": 5})
        first = await run.call(
            "List every file, five at a time (page 1)",
            "vault",
            {"operation": "list", "recursive": True, "limit": 5},
        )
        next_offset = json.loads(first[0])["pagination"].get("nextOffset", 0)
        await run.call(
            "… and page 2, from pagination.nextOffset (served from the cached walk)",
            "vault",
            {"operation": "list", "recursive": True, "limit": 5, "offset": next_offset},
        )
        await run.call(
            "The outline of a long note",
            "vault",
            {"operation": "read", "format": "map", "filename": LONG_NOTE, "maxLength": 600},
        )
        window = await run.call(
            "Read the long note: first window of 2,000 characters",
            "vault",
            {"operation": "read", "filename": LONG_NOTE, "maxLength": 2000},
        )
        next_index = json.loads(window[1])["nextIndex"]
        await run.call(
            "… and the second window, from nextIndex",
            "vault",
            {
                "operation": "read",
                "filename": LONG_NOTE,
                "maxLength": 2000,
                "startIndex": next_index,
            },
        )
        page = await run.call(
            "Search for 'meeting', three notes per page",
            "vault",
            {"operation": "search", "query": "meeting", "limit": 3, "contextLength": 40},
        )
        await run.call(
            "… page 2 (from the cached result)",
            "vault",
            {
                "operation": "search",
                "query": "meeting",
                "limit": 3,
                "contextLength": 40,
                "offset": json.loads(page[0])["pagination"].get("nextOffset", 0),
            },
        )
        await run.call(
            "Just one section of a note",
            "vault",
            {"operation": "read", "filename": "Projects/Overview.md", "section": "Risks"},
        )
        await run.call(
            "The note open in Obsidian", "active_file", {"operation": "read", "maxLength": 300}
        )
        await run.call(
            "A mistake gets a clear error that says what to do",
            "vault",
            {"operation": "read", "filename": "Projects/missing.md"},
        )
        # The last call is meant to fail; everything else must have worked.
        expected_failures = 1
        ok = run.failures == expected_failures
        say("\nDemo complete." if ok else f"\n{run.failures - expected_failures} call(s) failed.")
        return 0 if ok else 1


def run_demo(vault: Path | None = None) -> int:
    if vault is not None:
        return _folder_demo(vault)
    with demo_emulator() as emulator:
        say(f"Emulated Local REST API {emulator.https_url} serving a copy of the sample vault.")
        return anyio.run(tour, emulator)


# --- the vault folder, Obsidian closed ------------------------------------------------------


def _folder_demo(vault: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="vaultgate-demo-") as tmp:
        copy = Path(tmp) / "vault"
        shutil.copytree(vault, copy, symlinks=True)
        say(f"Serving a copy of {vault} from its folder; Obsidian is not running.")
        return anyio.run(folder_tour, _folder_server(copy, Path(tmp) / "cache"))


def _closed_port() -> int:
    """A loopback port nothing listens on: where 'Obsidian' is asked, and does not answer."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _folder_server(vault: Path, cache: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultgate", "serve", "--vault", str(vault)],
        env={
            "VAULTGATE_BACKEND": "auto",
            "OBSIDIAN_API_KEY": "demo-key-for-an-obsidian-that-is-not-running",
            "OBSIDIAN_PORT": str(_closed_port()),
            "VAULTGATE_MEMORY_DB": ":memory:",
            "XDG_CACHE_HOME": str(cache),  # the vault index of a temporary copy stays in it
        },
    )


async def folder_tour(parameters: StdioServerParameters) -> int:
    async with Client(parameters) as client:
        run = Tour(client)
        listed = await run.call(
            "List every file, five at a time (straight from the folder, no walk)",
            "vault",
            {"operation": "list", "recursive": True, "limit": 5},
        )
        first: list[str] = json.loads(listed[0])["files"]
        note = next((path for path in first if path.endswith(".md")), LONG_NOTE)
        await run.call(
            "Read a note", "vault", {"operation": "read", "filename": note, "maxLength": 400}
        )
        await run.call(
            "Search for 'meeting'",
            "vault",
            {"operation": "search", "query": "meeting", "limit": 3, "contextLength": 40},
        )
        await run.call(
            "Create a note",
            "vault",
            {
                "operation": "create",
                "filename": "Inbox/Demo note.md",
                "content": "# Demo\n\n## Log\n- created\n",
            },
        )
        await run.call(
            "Patch it: append under its heading 'Log'",
            "vault",
            {
                "operation": "patch",
                "filename": "Inbox/Demo note.md",
                "patchOperation": "append",
                "targetType": "heading",
                "target": "Log",
                "content": "- written with Obsidian closed\n",
            },
        )
        await run.call(
            "Move it (links to it are rewritten, as Obsidian would)",
            "vault",
            {"operation": "move", "source": "Inbox/Demo note.md", "destination": "Archive/"},
        )
        needs = await run.call(
            "The note open in Obsidian: only Obsidian knows it",
            "active_file",
            {"operation": "read", "maxLength": 300},
        )
        # Reading the open note is meant to fail, with the clear error; all else must work.
        clear = bool(needs) and "needs Obsidian running" in needs[0]
        ok = run.failures == 1 and clear
        say("\nDemo complete." if ok else "\nSomething failed (see above).")
        return 0 if ok else 1
