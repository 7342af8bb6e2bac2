"""list_vault_files, get_vault_file and get_active_file against the emulator over HTTPS."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import (
    ClientFactory,
    EmulatorFactory,
    error_text,
    payload,
    size,
    texts,
    vault_files,
)

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

LONG_NOTE = "Resources/Long essay.md"
NOTICE_PREFIX = "Content truncated. Call with startIndex of "


def listed_paths(page: dict[str, Any]) -> list[str]:
    """A page's paths in either layout."""
    if "folders" in page:
        return tree_paths(page["folders"])
    return list(page["files"])


async def walk_listing(client: Client, **arguments: object) -> list[str]:
    files: list[str] = []
    offset = 0
    while True:
        page = payload(await client.call_tool("list_vault_files", {**arguments, "offset": offset}))
        files.extend(listed_paths(page))
        pagination = page["pagination"]
        assert pagination["offset"] == offset
        assert pagination["hasMore"] == ("nextOffset" in pagination)
        if not pagination["hasMore"]:
            assert offset + len(listed_paths(page)) == pagination["total"]
            return files
        offset = pagination["nextOffset"]


async def test_root_listing_is_one_level_sorted_with_folders_marked(
    client: Client, vault: Path
) -> None:
    page = payload(await client.call_tool("list_vault_files", {}))

    expected = sorted(
        entry.name + ("/" if entry.is_dir() else "")
        for entry in vault.iterdir()
        if not entry.name.startswith(".") and (entry.is_file() or any(entry.rglob("*.*")))
    )
    assert page == {
        "files": expected,
        "pagination": {"total": len(expected), "offset": 0, "limit": 100, "hasMore": False},
    }


async def test_folder_listing_gives_vault_relative_paths(client: Client) -> None:
    page = payload(await client.call_tool("list_vault_files", {"directory": "Daily"}))

    assert page["files"]
    assert all(path.startswith("Daily/") for path in page["files"])


async def test_walking_every_recursive_page_returns_every_file_once(
    client: Client, vault: Path
) -> None:
    files = await walk_listing(client, recursive=True, limit=7)

    assert files == vault_files(vault)


async def test_recursive_pages_come_from_the_cached_walk(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    first = payload(await client.call_tool("list_vault_files", {"recursive": True, "limit": 5}))
    (vault / "Inbox" / "added later.md").write_text("new\n", encoding="utf-8")
    emulator.state.refresh()
    fresh = payload(await client.call_tool("list_vault_files", {"directory": "Inbox"}))
    assert "Inbox/added later.md" in fresh["files"]

    second = payload(
        await client.call_tool("list_vault_files", {"recursive": True, "limit": 5, "offset": 5})
    )

    # the cached walk: the later page comes from the walk the first one was cut from
    assert second["pagination"]["total"] == first["pagination"]["total"]


async def test_pattern_filters_by_glob_on_vault_paths(client: Client, vault: Path) -> None:
    page = payload(
        await client.call_tool(
            "list_vault_files", {"recursive": True, "pattern": "Daily/*.md", "limit": 1000}
        )
    )

    expected = [p for p in vault_files(vault) if p.startswith("Daily/") and p.endswith(".md")]
    assert listed_paths(page) == expected
    assert expected


async def test_brace_and_globstar_patterns_work(client: Client, vault: Path) -> None:
    page = payload(
        await client.call_tool(
            "list_vault_files", {"recursive": True, "pattern": "**/*.{png,canvas}", "limit": 1000}
        )
    )

    assert listed_paths(page) == [p for p in vault_files(vault) if p.endswith((".png", ".canvas"))]


def tree_paths(folders: dict[str, list[str]]) -> list[str]:
    return [folder + name for folder, names in folders.items() for name in names]


async def walk_both_layouts(
    client: Client, **arguments: object
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every page of a listing in both layouts, side by side; each page's size is checked."""
    pages = []
    offset = 0
    while True:
        call = {**arguments, "offset": offset}
        flat = await client.call_tool("list_vault_files", {**call, "layout": "flat"})
        tree = await client.call_tool("list_vault_files", {**call, "layout": "tree"})
        assert size(flat) <= 12_000
        assert size(tree) <= 12_000
        pages.append((payload(flat), payload(tree)))
        if not pages[-1][0]["pagination"]["hasMore"]:
            return pages
        offset = pages[-1][0]["pagination"]["nextOffset"]


async def test_tree_pages_hold_the_same_files_as_flat_pages(client: Client, vault: Path) -> None:
    pages = await walk_both_layouts(client, recursive=True, limit=7)

    for flat, tree in pages:
        assert set(tree) == {"folders", "pagination"}
        assert tree["pagination"] == flat["pagination"]
        assert sorted(tree_paths(tree["folders"])) == flat["files"]
        assert all(folder == "" or folder.endswith("/") for folder in tree["folders"])
        assert all("/" not in name for names in tree["folders"].values() for name in names)
    assert [path for flat, _ in pages for path in flat["files"]] == vault_files(vault)


async def test_a_tree_of_one_level_keeps_folders_as_entries_of_their_parent(
    client: Client,
) -> None:
    root = payload(await client.call_tool("list_vault_files", {"layout": "tree"}))
    flat_root = payload(await client.call_tool("list_vault_files", {}))
    projects = payload(
        await client.call_tool("list_vault_files", {"directory": "Projects", "layout": "tree"})
    )

    assert root["folders"] == {"": flat_root["files"]}  # the vault root is the folder ""
    assert "Daily/" in root["folders"][""]
    assert list(projects["folders"]) == ["Projects/"]
    assert any(name.endswith("/") for name in projects["folders"]["Projects/"])


async def test_each_layout_budgets_its_own_pages_and_loses_no_file(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    # Long paths: 15 folders of 1 file (where the tree costs 5 characters more), then 15 of 3
    # (where it is smaller), each folder four levels deep: about 1,000 characters a path and
    # 60,000 in all, over a default page's 50 KB, so the budget (not the 100 files) cuts pages.
    deep = vault / "Deep"
    for n in range(30):
        level = f"{'long folder name 漢字 ' * 8}"
        folder = deep / f"{n:02d} {level}" / level / level / level
        folder.mkdir(parents=True)
        for m in range(1 if n < 15 else 3):
            (folder / f"{m} {'a long note name 😀 ' * 10}.md").write_text("x", encoding="utf-8")
    emulator.state.refresh()

    flat = await walk_listing(client, directory="Deep", recursive=True, layout="flat")
    tree = await walk_listing(client, directory="Deep", recursive=True, layout="tree")

    assert sorted(tree) == flat == sorted(p for p in vault_files(vault) if p.startswith("Deep/"))
    assert len(flat) == 60
    first = payload(
        await client.call_tool("list_vault_files", {"directory": "Deep", "recursive": True})
    )
    assert first["pagination"]["hasMore"]  # cut by the 50 KB cap, with nextOffset
    assert len(first["files"]) < 60


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"directory": "No such folder"}, "not found", id="missing-folder"),
        pytest.param({"directory": "../outside"}, "Invalid vault path", id="traversal"),
        pytest.param({"offset": 10_000}, "past the end", id="offset-past-end"),
        pytest.param({"pattern": "{1..1000000}"}, "not a valid glob", id="bad-glob"),
        pytest.param({"pattern": "/Daily/*.md"}, "Try 'Daily/*.md'", id="absolute-glob"),
        pytest.param({"limit": 0}, "limit", id="limit-zero"),
        pytest.param({"limit": 1001}, "limit", id="limit-too-big"),
        pytest.param({"layout": "nested"}, "layout", id="unknown-layout"),
    ],
)
async def test_bad_listing_arguments_get_a_clear_error(
    client: Client, arguments: dict[str, object], expected: str
) -> None:
    assert expected in error_text(await client.call_tool("list_vault_files", arguments))


async def test_reading_every_window_returns_the_note_exactly(client: Client, vault: Path) -> None:
    original = (vault / LONG_NOTE).read_text(encoding="utf-8")
    pieces: list[str] = []
    start = 0
    while True:
        result = await client.call_tool(
            "get_vault_file", {"filename": LONG_NOTE, "maxLength": 7000, "startIndex": start}
        )
        body, meta_text = texts(result)
        meta = json.loads(meta_text)
        window = original[meta["startIndex"] : meta["endIndex"]]
        pieces.append(window)
        if not meta["hasMore"]:
            assert body == window
            assert meta["nextIndex"] is None
            break
        assert body.startswith(window)
        assert (
            body.rstrip("\n").splitlines()[-1] == f"{NOTICE_PREFIX}{meta['nextIndex']} to get more."
        )
        assert meta["endIndex"] - meta["startIndex"] == 7000
        start = meta["nextIndex"]

    assert "".join(pieces) == original
    assert len(original) > 50_000


async def test_a_short_note_is_its_text_alone(client: Client, vault: Path) -> None:
    result = await client.call_tool("get_vault_file", {"filename": "Daily/2026-11-21.md"})

    assert not result.is_error
    assert texts(result) == [(vault / "Daily/2026-11-21.md").read_text(encoding="utf-8")]


# Code points that are easy to miscount sit right at the window's edges: an emoji with a ZWJ,
# CJK, CRLF line ends, a flag made of two regional indicators.
AWKWARD = "# Fit 😀\r\n漢字 next to 👩\u200d💻 at the edge\r\n\r\n- 日本語 ✅\r\n🇫🇷"
OPEN_NOTE = "Daily/2026-11-21.md"  # the emulator's active file: both tools read it


def put_note(vault: Path, emulator: RunningEmulator, path: str, content: str) -> None:
    """Write the note byte for byte (CRLF kept) and let the emulator see it."""
    (vault / path).write_bytes(content.encode("utf-8"))
    emulator.state.refresh()


def read_arguments(tool: str, **arguments: object) -> dict[str, object]:
    return {"filename": OPEN_NOTE, **arguments} if tool == "get_vault_file" else arguments


READ_TOOLS = [
    pytest.param("get_vault_file", id="vault"),
    pytest.param("get_active_file", id="active"),
]


@pytest.mark.parametrize("tool", READ_TOOLS)
async def test_a_note_exactly_as_long_as_the_window_is_its_text_alone(
    client: Client, vault: Path, emulator: RunningEmulator, tool: str
) -> None:
    put_note(vault, emulator, OPEN_NOTE, AWKWARD)

    result = await client.call_tool(tool, read_arguments(tool, maxLength=len(AWKWARD)))

    assert texts(result) == [AWKWARD]


@pytest.mark.parametrize("tool", READ_TOOLS)
async def test_a_note_one_character_longer_than_the_window_carries_the_metadata(
    client: Client, vault: Path, emulator: RunningEmulator, tool: str
) -> None:
    put_note(vault, emulator, OPEN_NOTE, AWKWARD)
    cut = len(AWKWARD) - 1  # between the two regional indicators of the flag

    body, meta_text = texts(await client.call_tool(tool, read_arguments(tool, maxLength=cut)))

    assert json.loads(meta_text) == {
        "truncated": True,
        "totalLength": len(AWKWARD),
        "startIndex": 0,
        "endIndex": cut,
        "nextIndex": cut,
        "hasMore": True,
    }
    assert body == f"{AWKWARD[:cut]}\n\n{NOTICE_PREFIX}{cut} to get more."


@pytest.mark.parametrize("tool", READ_TOOLS)
async def test_a_window_starting_past_zero_carries_the_metadata_even_when_the_rest_fits(
    client: Client, vault: Path, emulator: RunningEmulator, tool: str
) -> None:
    put_note(vault, emulator, OPEN_NOTE, AWKWARD)
    start = AWKWARD.index("漢")

    body, meta_text = texts(await client.call_tool(tool, read_arguments(tool, startIndex=start)))

    assert body == AWKWARD[start:]
    assert json.loads(meta_text) == {
        "truncated": True,
        "totalLength": len(AWKWARD),
        "startIndex": start,
        "endIndex": len(AWKWARD),
        "nextIndex": None,
        "hasMore": False,
    }


@pytest.mark.parametrize("tool", READ_TOOLS)
async def test_an_empty_note_is_one_empty_block(
    client: Client, vault: Path, emulator: RunningEmulator, tool: str
) -> None:
    put_note(vault, emulator, OPEN_NOTE, "")

    result = await client.call_tool(tool, read_arguments(tool))

    assert not result.is_error
    assert texts(result) == [""]


@pytest.mark.parametrize(
    ("note_format", "whole", "from_one"),
    [
        pytest.param(
            "map",
            lambda body: json.loads(body)["headings"] == ["Fit 😀"],
            lambda later, body: later == body[1:],
            id="map",
        ),
        pytest.param(
            "json",
            lambda body: json.loads(body)["content"] == AWKWARD,
            lambda later, body: json.loads(later)["content"] == AWKWARD[1:],
            id="json",
        ),
    ],
)
async def test_the_map_and_json_formats_follow_the_same_rule(
    client: Client,
    vault: Path,
    emulator: RunningEmulator,
    note_format: str,
    whole: Callable[[str], bool],
    from_one: Callable[[str, str], bool],
) -> None:
    put_note(vault, emulator, OPEN_NOTE, AWKWARD)
    arguments = {"filename": OPEN_NOTE, "format": note_format}

    (body,) = texts(await client.call_tool("get_vault_file", arguments))
    later, meta_text = texts(
        await client.call_tool("get_vault_file", {**arguments, "startIndex": 1})
    )

    assert whole(body)
    assert from_one(later, body)
    assert json.loads(meta_text)["startIndex"] == 1
    assert json.loads(meta_text)["hasMore"] is False


async def test_a_1_mb_note_walks_to_the_end_with_every_character_once(
    client: Client, vault: Path, emulator: RunningEmulator
) -> None:
    paragraph = "Line with 漢字, 😀 and 👩\u200d💻 in it.\r\n" * 7 + "\r\n"
    big = (paragraph * (1_000_000 // len(paragraph) + 1))[:1_000_003]
    put_note(vault, emulator, "Resources/Big.md", big)

    pieces: list[str] = []
    start = 0
    while True:
        result = await client.call_tool(
            "get_vault_file",
            {"filename": "Resources/Big.md", "maxLength": 100_000, "startIndex": start},
        )
        body, meta_text = texts(result)  # cut, or read from past 0: always two blocks
        meta = json.loads(meta_text)
        assert meta["startIndex"] == start
        pieces.append(body[: meta["endIndex"] - start])
        if not meta["hasMore"]:
            assert body == big[start:]
            break
        start = meta["nextIndex"]
        assert len(pieces) <= 11, "window paging stalled"

    assert "".join(pieces) == big
    assert len(pieces) == 11


async def test_start_index_past_the_end_states_the_total_length(
    client: Client, vault: Path
) -> None:
    total = len((vault / "Daily/2026-11-21.md").read_text(encoding="utf-8"))

    message = error_text(
        await client.call_tool(
            "get_vault_file", {"filename": "Daily/2026-11-21.md", "startIndex": total + 5}
        )
    )

    assert f"totalLength {total}" in message


@pytest.mark.parametrize(
    "filename",
    [
        pytest.param("Résumé notes.md", id="accents"),
        pytest.param("日本語メモ.md", id="cjk"),
        pytest.param("🚀 Launch plan.md", id="emoji"),
        pytest.param("C# & .NET tips.md", id="hash-ampersand"),
        pytest.param("100% done.md", id="percent"),
    ],
)
async def test_awkward_names_read_back_exactly(client: Client, vault: Path, filename: str) -> None:
    path = next(p for p in vault_files(vault) if p.endswith(filename))

    body = texts(await client.call_tool("get_vault_file", {"filename": path}))[0]

    assert body == (vault / path).read_text(encoding="utf-8")


async def test_section_by_unique_leaf_returns_just_that_section(
    client: Client, vault: Path
) -> None:
    text = (vault / "Projects/Overview.md").read_text(encoding="utf-8")

    body = texts(
        await client.call_tool(
            "get_vault_file", {"filename": "Projects/Overview.md", "section": "Risks"}
        )
    )[0]

    assert body.startswith("### Risks")
    assert body in text
    assert len(body) < len(text)


async def test_an_ambiguous_section_lists_the_full_paths(client: Client) -> None:
    message = error_text(
        await client.call_tool(
            "get_vault_file", {"filename": "Projects/Overview.md", "section": "Notes"}
        )
    )

    assert "Project Alpha::Notes" in message
    assert "Project Beta::Notes" in message


async def test_a_full_path_section_resolves_a_duplicate_name(client: Client) -> None:
    result = await client.call_tool(
        "get_vault_file", {"filename": "Projects/Overview.md", "section": "Project Beta::Notes"}
    )

    assert texts(result)[0].startswith("## Notes")
    assert not result.is_error


async def test_map_lists_heading_paths_blocks_and_frontmatter_keys(client: Client) -> None:
    body = texts(
        await client.call_tool(
            "get_vault_file", {"filename": "Projects/Overview.md", "format": "map"}
        )
    )[0]

    doc_map = json.loads(body)
    assert "Project Alpha::Notes" in doc_map["headings"]
    assert "Project Beta::Notes" in doc_map["headings"]
    assert set(doc_map) == {"headings", "blocks", "frontmatterFields"}


async def test_json_format_has_metadata_and_a_bounded_content_window(
    client: Client, vault: Path
) -> None:
    result = await client.call_tool(
        "get_vault_file", {"filename": LONG_NOTE, "format": "json", "maxLength": 3000}
    )

    body, meta_text = texts(result)
    first_line = body.split("\n", 1)[0]
    note = json.loads(first_line)
    meta = json.loads(meta_text)
    assert note["path"] == LONG_NOTE
    assert {"frontmatter", "tags", "stat", "content"} <= set(note)
    assert len(first_line) <= 3000
    original = (vault / LONG_NOTE).read_text(encoding="utf-8")
    assert note["content"] == original[: meta["endIndex"]]
    assert body.endswith(f"{NOTICE_PREFIX}{meta['nextIndex']} to get more.")


async def test_missing_note_says_what_to_do(client: Client) -> None:
    message = error_text(await client.call_tool("get_vault_file", {"filename": "Projects/nope.md"}))

    assert "not found" in message
    assert "list_vault_files" in message


async def test_backslash_path_is_refused_before_any_request(client: Client) -> None:
    message = error_text(await client.call_tool("get_vault_file", {"filename": "a\\b.md"}))

    assert "backslash" in message


async def test_active_file_is_the_open_note(client: Client, vault: Path) -> None:
    result = await client.call_tool("get_active_file", {"maxLength": 50})

    body, meta_text = texts(result)
    original = (vault / "Daily/2026-11-21.md").read_text(encoding="utf-8")
    assert body.startswith(original[:50])
    assert json.loads(meta_text)["totalLength"] == len(original)


async def test_no_active_file_is_a_clear_error(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    async with connect(emulator_factory(active_file=None)) as client:
        message = error_text(await client.call_tool("get_active_file", {}))

    assert "open" in message.lower()


@pytest.mark.parametrize("plugin_version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_map_works_on_every_plugin_version(
    emulator_factory: EmulatorFactory, connect: ClientFactory, plugin_version: str
) -> None:
    async with connect(emulator_factory(plugin_version=plugin_version)) as client:
        body = texts(
            await client.call_tool(
                "get_vault_file", {"filename": "Projects/Overview.md", "format": "map"}
            )
        )[0]

    assert "Project Alpha::Notes" in json.loads(body)["headings"]


async def test_default_read_responses_stay_under_12000_characters(
    client: Client, vault: Path
) -> None:
    calls = [
        ("list_vault_files", {"recursive": True}),
        ("get_vault_file", {"filename": LONG_NOTE}),
        ("get_vault_file", {"filename": LONG_NOTE, "format": "json"}),
        ("get_vault_file", {"filename": LONG_NOTE, "format": "map"}),
        ("get_active_file", {}),
    ]
    for tool, arguments in calls:
        assert size(await client.call_tool(tool, arguments)) <= 12_000, (tool, arguments)


async def test_largest_windows_stay_under_110000_characters(client: Client) -> None:
    calls = [
        ("list_vault_files", {"recursive": True, "limit": 1000}),
        ("get_vault_file", {"filename": LONG_NOTE, "maxLength": 100_000}),
        ("get_vault_file", {"filename": LONG_NOTE, "format": "json", "maxLength": 100_000}),
    ]
    for tool, arguments in calls:
        assert size(await client.call_tool(tool, arguments)) <= 110_000, (tool, arguments)


async def test_a_recursive_walk_reports_a_few_rising_steps_and_the_last_one(
    emulator_factory: EmulatorFactory, connect: ClientFactory, vault: Path
) -> None:
    for number in range(60):  # a walk of far more folders than notifications a call may send
        folder = vault / "Many" / f"folder {number:02}"
        folder.mkdir(parents=True)
        (folder / "note.md").write_text("a note\n", encoding="utf-8")
    updates: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, message))

    async with connect(emulator_factory()) as client:
        result = await client.call_tool(
            "list_vault_files", {"recursive": True}, progress_callback=on_progress
        )

    assert not result.is_error
    walked_folders = {"", *(str(Path(p).parent) + "/" for p in vault_files(vault))}
    walked_folders |= {
        "/".join(p.split("/")[:depth]) + "/"
        for p in vault_files(vault)
        for depth in range(1, p.count("/"))
    }
    walked = len(walked_folders - {"./"})
    assert walked > 60
    assert 1 <= len(updates) <= 20
    steps = [step for step, _ in updates]
    assert steps == sorted(set(steps))  # rising, as MCP requires
    assert updates[-1][0] == walked  # the last step is always sent
    assert all(message and "folders" in message for _, message in updates)


async def test_a_recursive_listing_of_a_missing_folder_says_so(client: Client) -> None:
    message = error_text(
        await client.call_tool("list_vault_files", {"folder": "Nowhere", "recursive": True})
    )

    assert "'Nowhere/' was not found" in message


async def test_a_recursive_listing_with_obsidian_down_says_what_to_check() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": str(port), "VAULTGATE_TOOLS": "full"}
    )
    async with Client(build_server(settings)) as client:
        message = error_text(await client.call_tool("list_vault_files", {"recursive": True}))

    assert "not reachable" in message
