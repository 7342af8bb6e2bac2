"""read_many and recent end to end: the server in-process, the emulator of each plugin version
over HTTPS, the awkward fixture vault."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import ClientFactory, EmulatorFactory, error_text, payload, texts

pytestmark = pytest.mark.anyio

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
AWKWARD = [
    "Projects/Personal/🚀 Launch plan.md",
    "Projects/Personal/100% done.md",
    "Resources/Programming/C# & .NET tips.md",
    "Resources/Languages/日本語メモ.md",
    "Resources/Long essay.md",
]


async def whole(client: Client, filename: str) -> str:
    result = await client.call_tool(
        "vault", {"operation": "read", "filename": filename, "maxLength": 100_000}
    )
    return texts(result)[0]


@pytest.mark.parametrize("version", VERSIONS)
async def test_read_many_shares_the_budget_and_every_cut_note_continues_losslessly(
    emulator_factory: EmulatorFactory, connect: ClientFactory, version: str
) -> None:
    async with connect(emulator_factory(plugin_version=version)) as client:
        result = payload(
            await client.call_tool(
                "vault", {"operation": "read_many", "filenames": AWKWARD, "maxLength": 4_000}
            )
        )
        entries = result["notes"]
        full = {name: await whole(client, name) for name in AWKWARD}
        continued: dict[str, str] = {}
        for entry in entries:
            text = entry["content"]
            next_index = entry.get("nextIndex")
            while next_index is not None:
                window = await client.call_tool(
                    "vault",
                    {"operation": "read", "filename": entry["filename"], "startIndex": next_index},
                )
                body, meta = texts(window)
                shown = json.loads(meta)
                text += body[: shown["endIndex"] - shown["startIndex"]]  # the notice left out
                next_index = shown["nextIndex"]
            continued[entry["filename"]] = text

    assert [entry["filename"] for entry in entries] == AWKWARD
    assert sum(len(entry["content"]) for entry in entries) <= 4_000
    assert continued == full
    cut = [entry for entry in entries if entry.get("hasMore")]
    assert cut  # the long essay at least
    assert "startIndex=<nextIndex>" in result["notice"]
    assert all(entry["truncated"] and entry["startIndex"] == 0 for entry in cut)
    # the notes that fit are whole and carry nothing else
    assert all(set(entry) == {"filename", "content"} for entry in entries if entry not in cut)


async def test_read_many_answers_per_note_for_a_missing_note(client: Client) -> None:
    result = payload(
        await client.call_tool(
            "get_vault_files", {"filenames": ["Welcome.md", "Projects/Nope 🚀.md"]}
        )
    )

    welcome, missing = result["notes"]
    assert welcome["content"].startswith("---\naliases")
    assert missing["filename"] == "Projects/Nope 🚀.md"
    assert "was not found" in missing["error"]
    assert "notice" not in result


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"filenames": []}, "filenames", id="none"),
        pytest.param({"filenames": [f"{n}.md" for n in range(21)]}, "20", id="too-many"),
        pytest.param({"filenames": ["Welcome.md"], "maxLength": 10}, "maxLength", id="budget"),
        pytest.param({"paths": ["Welcome.md"]}, "did you mean 'filenames'?", id="alias"),
    ],
)
async def test_read_many_refuses_what_cannot_work_and_says_what_it_takes(
    client: Client, arguments: dict[str, Any], expected: str
) -> None:
    message = error_text(await client.call_tool("vault", {"operation": "read_many", **arguments}))

    assert expected in message


def age(vault: Path, ages: dict[str, float]) -> datetime.datetime:
    """Every note 30 days old, except ``ages`` (days); returns the moment they are aged from."""
    now = datetime.datetime.now(datetime.UTC)
    for path in vault.rglob("*.md"):
        relative = path.relative_to(vault).as_posix()
        moment = now.timestamp() - ages.get(relative, 30.0) * 86_400
        os.utime(path, (moment, moment))
    return now


RECENT = {
    "Resources/Languages/日本語メモ.md": 0.5,
    "Projects/Personal/🚀 Launch plan.md": 1.5,
    "Resources/Programming/C# & .NET tips.md": 2.5,
    "Projects/Personal/100% done.md": 3.5,
    "Welcome.md": 6.5,
}


@pytest.mark.parametrize("version", VERSIONS)
async def test_recent_walks_the_week_newest_first_on_every_version(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path, version: str
) -> None:
    now = age(vault, RECENT)
    async with connect(emulator_factory(plugin_version=version)) as client:
        pages = []
        offset: int | None = 0
        while offset is not None:
            page = payload(
                await client.call_tool(
                    "vault", {"operation": "recent", "limit": 2, "offset": offset}
                )
            )
            pages.append(page)
            offset = page["pagination"].get("nextOffset")
        projects = payload(
            await client.call_tool("get_recent_changes", {"days": 2, "directory": "Projects"})
        )

    shown = [note for page in pages for note in page["notes"]]
    assert [note["filename"] for note in shown] == list(RECENT)
    assert [page["pagination"]["total"] for page in pages] == [5] * len(pages)
    mtime = datetime.datetime.strptime(shown[0]["mtime"], "%Y-%m-%dT%H:%M:%S%z")
    assert abs((now - mtime).total_seconds() - 0.5 * 86_400) < 2
    assert [note["filename"] for note in projects["notes"]] == [
        "Projects/Personal/🚀 Launch plan.md"
    ]


async def test_recent_refuses_a_day_count_out_of_range(client: Client) -> None:
    message = error_text(await client.call_tool("vault", {"operation": "recent", "days": 0}))

    assert "days" in message
