"""broken_links, orphans and backlinks end to end: the server in-process, the emulator of each
plugin version over HTTPS, the awkward fixture vault. Every version answers alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import ClientFactory, EmulatorFactory, error_text, payload, vault_files

pytestmark = pytest.mark.anyio

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
BROKEN_NOTE = "Inbox/Broken #1 100% 🚀.md"
# The same on every version: from the plugin's link lists (4.0+) or read from the text (3.x).
ORPHANS = [
    "Archive/2025 retrospective.md",
    "Areas/Career/Résumé notes.md",
    "Areas/Home/Renovation ideas.md",
    "Daily/2026-11-17.md",
    "Daily/2026-11-18.md",
    "Daily/2026-11-19.md",
    "Daily/2026-11-20.md",
    BROKEN_NOTE,
    "Templates/Daily note template.md",
    "sdd/vaultgate/changes/add-dispatchers/proposal.md",
    "sdd/vaultgate/changes/add-dispatchers/spec.md",
    "Attachments/unused 100%.png",
    "Projects/Work/Clients/Acme/Acme board.canvas",
]


@pytest.fixture
def broken_vault(vault: Path) -> Path:
    (vault / BROKEN_NOTE).write_text(
        "# Broken\n\n[[Nowhere 日本]] and ![[gone 🚀.png]]\n"
        "[a link](Missing%20folder/x.md) and [[Welcome]] and [[Resources/Long essay#Part]]\n",
        encoding="utf-8",
    )
    (vault / "Attachments" / "unused 100%.png").write_bytes(b"\x89PNG")
    return vault


async def walk(client: Client, arguments: dict[str, Any], key: str) -> list[Any]:
    """Every item of every page, following nextOffset; the first page's total must hold."""
    items: list[Any] = []
    totals: set[int] = set()
    offset: int | None = 0
    while offset is not None:
        page = payload(await client.call_tool("vault", {**arguments, "offset": offset}))
        items += page[key]
        totals.add(page["pagination"]["total"])
        offset = page["pagination"].get("nextOffset")
    assert totals == {len(items)}
    return items


@pytest.mark.parametrize("version", VERSIONS)
async def test_link_health_answers_alike_on_every_version(
    emulator_factory: EmulatorFactory, connect: ClientFactory, broken_vault: Path, version: str
) -> None:
    async with connect(emulator_factory(plugin_version=version)) as client:
        broken = await walk(client, {"operation": "broken_links", "limit": 1}, "notes")
        orphans = await walk(client, {"operation": "orphans", "limit": 3}, "orphans")
        everything = payload(await client.call_tool("find_orphans", {"limit": 1000}))
        launch = await walk(
            client,
            {
                "operation": "backlinks",
                "filename": "Projects/Personal/🚀 Launch plan.md",
                "limit": 1,
            },
            "backlinks",
        )
        tips = payload(
            await client.call_tool(
                "get_backlinks", {"filename": "Resources/Programming/C# & .NET tips.md"}
            )
        )

    assert broken == [
        {
            "filename": BROKEN_NOTE,
            # links, then embeds: Obsidian's order on every version (issue 36)
            "broken": ["Nowhere 日本", "Missing folder/x.md", "gone 🚀.png"],
        }
    ]
    assert orphans == everything["orphans"]
    paths = [item["path"] for item in orphans]
    assert len(paths) == len(set(paths))
    assert {"path": BROKEN_NOTE, "kind": "note"} in orphans
    assert {"path": "Attachments/unused 100%.png", "kind": "attachment"} in orphans
    assert {"path": "Attachments/diagram.png", "kind": "attachment"} not in orphans
    assert "Welcome.md" not in paths  # the broken note links to it
    assert paths == ORPHANS
    kinds = [item["kind"] for item in orphans]
    assert kinds == sorted(kinds, key=lambda kind: kind != "note")  # notes first
    assert set(paths) <= set(vault_files(broken_vault))
    assert [item["filename"] for item in launch] == [
        "Archive/2025 retrospective.md",
        "Daily/2026-11-20.md",
        "Projects/Personal/100% done.md",
    ]
    assert launch[0]["lines"] == [
        "- Ship the [[🚀 Launch plan|launch]] before the end of the year."
    ]
    assert [item["filename"] for item in tips["backlinks"]] == [
        "Areas/Career/Résumé notes.md",
        "Welcome.md",
    ]


async def test_link_operations_report_progress_when_asked(client: Client) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    await client.call_tool("find_orphans", {}, progress_callback=on_progress)
    orphans = list(updates)
    updates.clear()
    await client.call_tool("find_broken_links", {}, progress_callback=on_progress)

    for reported in (orphans, updates):
        assert reported[0] == (0, None, "reading every note's links")
        steps = [progress for progress, _, _ in reported]
        assert steps == sorted(set(steps))  # rising, as MCP requires
    assert any("listed" in (message or "") for _, _, message in orphans)


async def test_backlinks_of_a_missing_note_say_how_to_find_it(client: Client) -> None:
    message = error_text(
        await client.call_tool("vault", {"operation": "backlinks", "filename": "People/Nobody.md"})
    )

    assert "'People/Nobody.md' was not found" in message
    assert 'list_vault_files(directory="People")' in message


async def test_a_folder_that_holds_nothing_broken_is_an_empty_page(client: Client) -> None:
    page = payload(await client.call_tool("find_broken_links", {"directory": "Daily"}))

    assert page == {
        "notes": [],
        "pagination": {"total": 0, "offset": 0, "limit": 50, "hasMore": False},
    }
