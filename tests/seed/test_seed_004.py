"""Seed 004, "Response Size Optimization": every tool, parameter, default and metadata field,
the dispatchers, the default limits, the plan, the success metrics, and its two "Testing
Strategy" tests translated literally.

Single tools are called in the ``full`` profile; ``vault``, ``active_file`` and ``discover`` in
the default profile (VAULTGATE_TOOLS unset). Vault tests run on both backends: the folder
backend and the emulator over HTTPS (with the companion plugin, for search_vault_smart).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.seed.conftest import (
    CJK_NEAR,
    CJK_NOTE,
    CRLF_NOTE,
    EMOJI_NEAR,
    EMOJI_NOTE,
    HASH_NOTE,
    LARGE_NOTE,
    MANY_COUNT,
    MANY_FOLDER,
    PERCENT_NOTE,
    SEARCH_WORD,
    SPACES_NOTE,
    ClientOpener,
    call,
    data_of,
    memory_settings,
    texts,
    tools_of,
)
from tests.web.conftest import PageServer, page_app

from vaultgate.http_server import ServerThread, bind
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

LIST_KEYS = {"total", "offset", "limit", "hasMore"}
WINDOW_KEYS = {"truncated", "totalLength", "startIndex", "endIndex", "nextIndex", "hasMore"}
FIFTY_KB = 50 * 1024
MANY_GLOB = f"{MANY_FOLDER}/*.md"
JSONLOGIC_MANY = json.dumps({"glob": [MANY_GLOB, {"var": "path"}]})


def note_text(vault: Path, name: str) -> str:
    """The note exactly as stored (CRLF kept)."""
    return (vault / name).read_bytes().decode("utf-8")


def size(result: CallToolResult) -> int:
    return sum(len(t.encode("utf-8")) for t in texts(result))


def window_parts(result: CallToolResult) -> tuple[str, dict[str, Any] | None, list[str]]:
    """content[0] (the text), content[1] as JSON (or None), and any further blocks."""
    assert not result.is_error, texts(result)
    blocks = texts(result)
    meta = json.loads(blocks[1]) if len(blocks) > 1 else None
    return blocks[0], meta, blocks[2:]


def notice(next_index: int) -> str:
    return f"Content truncated. Call with startIndex of {next_index} to get more."


async def listed(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    return data_of(await call(client, tool, **arguments))


def check_pagination(data: dict[str, Any], *, total: int, offset: int, limit: int) -> None:
    """The seed's PaginationMetadata for a list: total, offset, limit, hasMore (a boolean)."""
    page = data["pagination"]
    assert set(page) >= LIST_KEYS
    assert page["total"] == total
    assert page["offset"] == offset
    assert page["limit"] == limit
    assert page["hasMore"] is (offset + limit < total)


async def smart_ready(client: Client) -> None:
    """Until the folder backend's index answers search_vault_smart (built in the background)."""
    with anyio.fail_after(60):
        while True:
            result = await call(client, "search_vault_smart", query=SEARCH_WORD)
            if not result.is_error or "being built" not in texts(result)[0]:
                return
            await anyio.sleep(0.05)


@pytest.fixture
async def active(open_client: ClientOpener) -> AsyncIterator[Client]:
    """The emulator with the 1 MB note open in Obsidian, every single tool."""
    async with open_client("emulator", "full", active_file=LARGE_NOTE) as client:
        yield client


@pytest.fixture
async def active_default(open_client: ClientOpener) -> AsyncIterator[Client]:
    """The emulator with a small note open, the default profile (its active_file dispatcher)."""
    async with open_client("emulator", None, active_file=SPACES_NOTE) as client:
        yield client


@pytest.fixture
def page_server() -> Iterator[PageServer]:
    record: list[Any] = []
    with ServerThread(page_app(record), bind("127.0.0.1", 0)) as running:
        yield PageServer(url=running.url, requests=record)


@pytest.fixture(params=["full", None], ids=["full", "default"])
async def fetcher(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    """fetch in the full profile and in the default one (fetch is in both)."""
    settings = memory_settings(profile=request.param, VAULTGATE_FETCH_ALLOW_PRIVATE="true")
    async with Client(build_server(settings)) as client:
        yield client


# --- Problem: the six tools of the "Current State" table, and Success Metrics ----------------

DEFAULT_CALLS: dict[str, dict[str, Any]] = {
    "list_vault_files": {"recursive": True},
    "get_vault_file": {"filename": LARGE_NOTE},
    "search_vault_simple": {"query": "the"},
    "search_vault": {"query": json.dumps({"glob": ["**/*.md", {"var": "path"}]})},
    "search_vault_smart": {"query": "the quick brown fox"},
    "bulk_delete_files": {"pattern": "**/*.md"},
}


@pytest.mark.parametrize("tool", list(DEFAULT_CALLS))
async def test_004_success_no_call_over_50kb_without_pagination(full: Client, tool: str) -> None:
    """Each tool of the "Current State" table, called with only what it needs, on a vault
    with 175 files and a 1 MB note."""
    if tool == "search_vault_smart":
        await smart_ready(full)
    result = await call(full, tool, **DEFAULT_CALLS[tool])

    assert not result.is_error, texts(result)
    assert size(result) <= FIFTY_KB


async def test_004_success_average_response_under_10kb(full: Client) -> None:
    await smart_ready(full)
    sizes = [size(await call(full, tool, **args)) for tool, args in DEFAULT_CALLS.items()]

    assert sum(sizes) / len(sizes) < 10 * 1024, sizes


async def test_004_success_navigate_a_large_vault(full: Client, vault: Path) -> None:
    """Walk the whole vault, page after page, with the answers' own metadata."""
    seen: list[str] = []
    offset = 0
    while True:
        data = await listed(full, "list_vault_files", recursive=True, offset=offset)
        seen.extend(data["files"])
        if not data["pagination"]["hasMore"]:
            break
        offset = data["pagination"]["offset"] + len(data["files"])

    expected = sorted(
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(vault).parts)
    )
    assert sorted(seen) == expected
    assert len(seen) == len(set(seen))


async def test_004_success_zero_truncation_data_loss(full: Client, vault: Path) -> None:
    """Joining content[0] of every window gives the note, byte for byte."""
    whole = note_text(vault, LARGE_NOTE)
    pieces: list[str] = []
    start = 0
    while True:
        body, meta, _ = window_parts(
            await call(
                full, "get_vault_file", filename=LARGE_NOTE, startIndex=start, maxLength=100_000
            )
        )
        pieces.append(body)
        assert meta is not None
        if not meta["hasMore"]:
            break
        start = meta["nextIndex"]

    assert "".join(pieces) == whole


# --- Desired State ---------------------------------------------------------------------------


async def test_004_desired_default_response_limit_configurable(full: Client, vault: Path) -> None:
    """A default limit on every content answer, which the caller can change."""
    default, _, _ = window_parts(await call(full, "get_vault_file", filename=LARGE_NOTE))
    smaller, _, _ = window_parts(
        await call(full, "get_vault_file", filename=LARGE_NOTE, maxLength=4_000)
    )

    assert len(default) == 10_000
    assert len(smaller) == 4_000
    assert default.startswith(smaller)


async def test_004_desired_pagination_for_large_datasets(full: Client) -> None:
    seen: list[str] = []
    for offset in range(0, MANY_COUNT, 40):
        seen += (
            await listed(full, "list_vault_files", directory=MANY_FOLDER, limit=40, offset=offset)
        )["files"]

    assert len(seen) == MANY_COUNT
    assert len(set(seen)) == MANY_COUNT


async def test_004_desired_truncation_with_get_more_guidance(full: Client) -> None:
    body, meta, rest = window_parts(await call(full, "get_vault_file", filename=LARGE_NOTE))

    assert meta is not None
    assert rest == [notice(10_000)]  # the guidance, after the metadata
    assert "Content truncated" not in body


async def test_004_desired_response_metadata(full: Client) -> None:
    data = await listed(full, "list_vault_files", directory=MANY_FOLDER, limit=30)

    assert data["pagination"]["total"] == MANY_COUNT  # total size
    assert data["pagination"]["hasMore"] is True  # has more
    assert data["pagination"]["nextOffset"] == 30  # next offset


# --- Proposed Solution: "Adopt fetch tool approach" -----------------------------------------


async def test_004_fetch_max_length_default_5000(fetcher: Client, page_server: PageServer) -> None:
    schema = (await tools_of(fetcher))["fetch"].input_schema["properties"]
    result = await call(fetcher, "fetch", url=f"{page_server.url}/page.html")

    assert schema["maxLength"]["default"] == 5_000
    page = json.loads(texts(result)[1].removeprefix("Pagination: "))
    assert page["endIndex"] - page["startIndex"] == 5_000


async def test_004_fetch_start_index_default_0(fetcher: Client, page_server: PageServer) -> None:
    schema = (await tools_of(fetcher))["fetch"].input_schema["properties"]
    result = await call(fetcher, "fetch", url=f"{page_server.url}/page.html", maxLength=300)

    assert schema["startIndex"]["default"] == 0
    assert json.loads(texts(result)[1].removeprefix("Pagination: "))["startIndex"] == 0


async def test_004_fetch_truncation_notice_in_content(
    fetcher: Client, page_server: PageServer
) -> None:
    result = await call(fetcher, "fetch", url=f"{page_server.url}/page.html", maxLength=300)

    first = texts(result)[0]
    tail = f"\n\n<error>{notice(300)}</error>"
    assert first.endswith(tail)
    assert len(first) - len(tail) == 300


async def test_004_fetch_pagination_metadata(fetcher: Client, page_server: PageServer) -> None:
    result = await call(
        fetcher, "fetch", url=f"{page_server.url}/page.html", maxLength=300, startIndex=100
    )

    second = texts(result)[1]
    assert second.startswith("Pagination: ")
    page = json.loads(second.removeprefix("Pagination: "))
    assert set(page) >= {"totalLength", "startIndex", "endIndex", "hasMore"}
    assert page["startIndex"] == 100
    assert page["endIndex"] == 400  # startIndex + the page's characters, the notice not counted
    assert page["hasMore"] is True
    assert page["totalLength"] > 400


# --- 1. list_vault_files --------------------------------------------------------------------


async def test_004_list_vault_files_directory_parameter(full: Client) -> None:
    data = await listed(full, "list_vault_files", directory=MANY_FOLDER)

    assert data["files"]
    assert all(name.startswith(f"{MANY_FOLDER}/") for name in data["files"])
    assert data["pagination"]["total"] == MANY_COUNT


async def test_004_list_vault_files_limit_parameter_default_100(full: Client) -> None:
    schema = (await tools_of(full))["list_vault_files"].input_schema["properties"]["limit"]
    default = await listed(full, "list_vault_files", directory=MANY_FOLDER)
    seven = await listed(full, "list_vault_files", directory=MANY_FOLDER, limit=7)

    assert "100" in json.dumps(schema)  # "Max files to return (default: 100)"
    assert len(default["files"]) == 100
    check_pagination(default, total=MANY_COUNT, offset=0, limit=100)
    assert len(seven["files"]) == 7


async def test_004_list_vault_files_offset_parameter(full: Client) -> None:
    first = await listed(full, "list_vault_files", directory=MANY_FOLDER, limit=MANY_COUNT)
    tail = await listed(full, "list_vault_files", directory=MANY_FOLDER, offset=125)

    assert tail["files"] == first["files"][125:]  # skip first N files
    check_pagination(tail, total=MANY_COUNT, offset=125, limit=100)


async def test_004_list_vault_files_pattern_parameter(full: Client) -> None:
    pattern = f"{MANY_FOLDER}/*#12*"  # a glob over vault paths

    data = await listed(full, "list_vault_files", directory=MANY_FOLDER, pattern=pattern)

    names = data["files"]
    assert names
    assert all(fnmatch.fnmatchcase(name, pattern) for name in names)
    assert len(names) == 11  # #12 and #120 to #129
    assert data["pagination"]["total"] == 11


async def test_004_list_vault_files_response_shape(full: Client) -> None:
    data = await listed(full, "list_vault_files", directory=MANY_FOLDER, limit=50, offset=50)

    assert set(data) >= {"files", "pagination"}
    assert isinstance(data["files"], list)
    check_pagination(data, total=MANY_COUNT, offset=50, limit=50)


async def test_004_list_vault_files_recursive_answers_files(full: Client) -> None:
    data = await listed(full, "list_vault_files", recursive=True, limit=10)

    assert "files" in data
    assert len(data["files"]) == 10
    assert data["pagination"]["hasMore"] is True


# --- 2. get_vault_file / get_active_file ----------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [HASH_NOTE, PERCENT_NOTE, SPACES_NOTE, EMOJI_NOTE, EMOJI_NEAR, CJK_NOTE, CJK_NEAR, CRLF_NOTE],
    ids=["hash", "percent", "spaces", "emoji", "emoji-near", "cjk", "cjk-near", "crlf"],
)
async def test_004_get_vault_file_filename_parameter(full: Client, vault: Path, name: str) -> None:
    result = await call(full, "get_vault_file", filename=name)

    assert texts(result) == [note_text(vault, name)]  # whole text that fits: one block, alone


@pytest.mark.parametrize("fmt", ["markdown", "json"])
async def test_004_get_vault_file_format_parameter(full: Client, vault: Path, fmt: str) -> None:
    schema = (await tools_of(full))["get_vault_file"].input_schema["properties"]["format"]
    body, meta, _ = window_parts(await call(full, "get_vault_file", filename=CJK_NOTE, format=fmt))

    assert {"markdown", "json"} <= set(schema["enum"])
    assert schema["default"] == "markdown"
    assert meta is None
    if fmt == "markdown":
        assert body == note_text(vault, CJK_NOTE)
    else:
        assert json.loads(body)["content"] == note_text(vault, CJK_NOTE)
    large, large_meta, _ = window_parts(
        await call(full, "get_vault_file", filename=LARGE_NOTE, format=fmt, maxLength=1_000)
    )
    assert len(large) <= 1_000  # a window of either format's text
    assert large_meta is not None
    assert large_meta["truncated"] is True


async def test_004_get_vault_file_max_length_default_10000(full: Client, vault: Path) -> None:
    schema = (await tools_of(full))["get_vault_file"].input_schema["properties"]["maxLength"]
    body, meta, _ = window_parts(await call(full, "get_vault_file", filename=LARGE_NOTE))

    assert schema["default"] == 10_000
    assert body == note_text(vault, LARGE_NOTE)[:10_000]
    assert meta is not None
    assert meta["endIndex"] == 10_000


async def test_004_get_vault_file_start_index_parameter(full: Client, vault: Path) -> None:
    schema = (await tools_of(full))["get_vault_file"].input_schema["properties"]["startIndex"]
    body, meta, _ = window_parts(
        await call(full, "get_vault_file", filename=LARGE_NOTE, startIndex=10_000, maxLength=500)
    )

    assert schema["default"] == 0
    assert body == note_text(vault, LARGE_NOTE)[10_000:10_500]
    assert meta is not None
    assert meta["startIndex"] == 10_000


async def test_004_get_vault_file_window_metadata(full: Client, vault: Path) -> None:
    total = len(note_text(vault, LARGE_NOTE))
    body, meta, rest = window_parts(
        await call(full, "get_vault_file", filename=LARGE_NOTE, startIndex=2_000, maxLength=3_000)
    )

    assert len(body) == 3_000
    assert meta == {
        "truncated": True,
        "totalLength": total,
        "startIndex": 2_000,
        "endIndex": 5_000,
        "nextIndex": 5_000,
        "hasMore": True,
    }
    assert rest == [notice(5_000)]


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({}, id="defaults"),
        pytest.param({"format": "markdown", "maxLength": 1_000}, id="format-maxLength"),
        pytest.param({"maxLength": 1_000, "startIndex": 5_000}, id="startIndex"),
    ],
)
async def test_004_get_active_file_parameters(
    active: Client, vault: Path, arguments: dict[str, Any]
) -> None:
    whole = note_text(vault, LARGE_NOTE)
    start, length = arguments.get("startIndex", 0), arguments.get("maxLength", 10_000)

    body, meta, _ = window_parts(await call(active, "get_active_file", **arguments))

    assert body == whole[start : start + length]
    assert meta is not None
    assert meta["truncated"] is True
    assert meta["nextIndex"] == start + length


# --- 3. search_vault_simple -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "found", "not_found"),
    [
        pytest.param("🚀 launch", EMOJI_NOTE, EMOJI_NEAR, id="emoji"),
        pytest.param("メモ帳", CJK_NEAR, CJK_NOTE, id="cjk"),
        pytest.param("Issue #34", HASH_NOTE, PERCENT_NOTE, id="hash"),
    ],
)
async def test_004_search_vault_simple_query_parameter(
    full: Client, query: str, found: str, not_found: str
) -> None:
    data = await listed(full, "search_vault_simple", query=query)

    names = [row["filename"] for row in data["results"]]
    assert found in names
    assert not_found not in names


async def test_004_search_vault_simple_context_length_parameter(full: Client) -> None:
    short = await listed(full, "search_vault_simple", query=SEARCH_WORD, contextLength=5, limit=1)
    long = await listed(full, "search_vault_simple", query=SEARCH_WORD, contextLength=40, limit=1)

    assert len(json.dumps(short["results"][0])) < len(json.dumps(long["results"][0]))


async def test_004_search_vault_simple_limit_default_20(full: Client) -> None:
    data = await listed(full, "search_vault_simple", query=SEARCH_WORD)

    assert len(data["results"]) == 20
    check_pagination(data, total=MANY_COUNT, offset=0, limit=20)


async def test_004_search_vault_simple_offset_parameter(full: Client) -> None:
    data = await listed(full, "search_vault_simple", query=SEARCH_WORD, offset=120)

    assert len(data["results"]) == 10
    check_pagination(data, total=MANY_COUNT, offset=120, limit=20)


# --- 4. search_vault ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query_type", "query"),
    [
        pytest.param("jsonlogic", JSONLOGIC_MANY, id="jsonlogic"),
        pytest.param("dataview", f'TABLE file.name FROM "{MANY_FOLDER}"', id="dataview"),
    ],
)
async def test_004_search_vault_query_type_parameter(
    open_client: ClientOpener, query_type: str, query: str
) -> None:
    # Dataview needs Obsidian, and a Local REST API before 4.0.0 (3.6.2 here, as the seed's
    # peers ran); the folder backend and newer plugins say so.
    async with open_client("emulator", "full", plugin_version="3.6.2") as client:
        schema = (await tools_of(client))["search_vault"].input_schema["properties"]
        data = await listed(client, "search_vault", queryType=query_type, query=query, limit=5)

    assert set(schema["queryType"]["enum"]) == {"dataview", "jsonlogic"}
    assert len(data["results"]) == 5
    assert data["pagination"]["total"] == MANY_COUNT


async def test_004_search_vault_query_parameter(full: Client) -> None:
    query = json.dumps({"glob": [f"{MANY_FOLDER}/*#12*", {"var": "path"}]})

    data = await listed(full, "search_vault", query=query)

    assert data["pagination"]["total"] == 11


async def test_004_search_vault_limit_default_50(full: Client) -> None:
    data = await listed(full, "search_vault", query=JSONLOGIC_MANY)

    assert len(data["results"]) == 50
    check_pagination(data, total=MANY_COUNT, offset=0, limit=50)


# --- 5. search_vault_smart ------------------------------------------------------------------


async def test_004_search_vault_smart_filter_limit_default_20(full: Client) -> None:
    await smart_ready(full)

    data = await listed(
        full, "search_vault_smart", query=SEARCH_WORD, filter={"folders": [MANY_FOLDER]}
    )

    assert len(data["results"]) == 20
    assert data["pagination"]["limit"] == 20
    assert data["pagination"]["hasMore"] is True


@pytest.mark.parametrize("key", ["folders", "excludeFolders", "limit"])
async def test_004_search_vault_smart_filter_parameter(full: Client, key: str) -> None:
    await smart_ready(full)
    chosen = {
        "folders": {"folders": [MANY_FOLDER]},
        "excludeFolders": {"excludeFolders": [MANY_FOLDER]},
        "limit": {"limit": 5},
    }[key]

    # Words inside the folder (zephyrine) and outside it (launch: the rocket notes).
    data = await listed(full, "search_vault_smart", query=f"{SEARCH_WORD} launch", filter=chosen)

    paths = [row["path"] for row in data["results"]]
    assert paths
    inside = [p.startswith(f"{MANY_FOLDER}/") for p in paths]
    match key:
        case "folders":
            assert all(inside)
        case "excludeFolders":
            assert not any(inside)
        case "limit":
            assert len(paths) == 5


# --- 6. bulk_delete_files -------------------------------------------------------------------


async def test_004_bulk_delete_files_limit_default_50(full: Client, vault: Path) -> None:
    schema = (await tools_of(full))["bulk_delete_files"].input_schema["properties"]["limit"]
    data = await listed(full, "bulk_delete_files", pattern=MANY_GLOB)

    assert schema["default"] == 50
    assert len(data["files"]) == 50
    check_pagination(data, total=MANY_COUNT, offset=0, limit=50)
    assert len(list((vault / MANY_FOLDER).iterdir())) == MANY_COUNT  # a dry run


# --- Unified Dispatcher Updates -------------------------------------------------------------


async def test_004_vault_dispatcher_list_defaults(default: Client) -> None:
    data = await listed(default, "vault", operation="list", directory=MANY_FOLDER)

    assert len(data["files"]) == 100
    check_pagination(data, total=MANY_COUNT, offset=0, limit=100)


async def test_004_vault_dispatcher_read_defaults(default: Client, vault: Path) -> None:
    body, meta, _ = window_parts(
        await call(default, "vault", operation="read", filename=LARGE_NOTE)
    )

    assert body == note_text(vault, LARGE_NOTE)[:10_000]
    assert meta is not None
    assert meta["startIndex"] == 0
    assert meta["endIndex"] == 10_000


async def test_004_vault_dispatcher_search_defaults(default: Client) -> None:
    data = await listed(default, "vault", operation="search", query=SEARCH_WORD)

    assert len(data["results"]) == 20
    check_pagination(data, total=MANY_COUNT, offset=0, limit=20)


async def test_004_vault_dispatcher_reads_and_changes(default: Client, vault: Path) -> None:
    """The unified dispatcher: every vault operation, reads and changes alike."""
    name = "Seed/New 🚀 #1 100%.md"
    created = await call(default, "vault", operation="create", filename=name, content="# New\n")
    appended = await call(default, "vault", operation="append", filename=name, content="more\n")
    read = await call(default, "vault", operation="read", filename=name)
    deleted = await call(default, "vault", operation="delete", filename=name)

    for result in (created, appended, read, deleted):
        assert not result.is_error, texts(result)
    assert texts(read) == ["# New\nmore\n"]
    assert not (vault / name).exists()


@pytest.mark.parametrize("operation", ["read", "update", "append", "patch", "delete"])
async def test_004_active_file_dispatcher_operations(
    active_default: Client, vault: Path, operation: str
) -> None:
    before = note_text(vault, SPACES_NOTE)
    arguments: dict[str, Any] = {
        "read": {"maxLength": 10},
        "update": {"content": "# Replaced\n"},
        "append": {"content": "Appended 🚀\n"},
        "patch": {
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Two spaces",
            "content": "Patched 東京\n",
        },
        "delete": {},
    }[operation]

    result = await call(active_default, "active_file", operation=operation, **arguments)

    assert not result.is_error, texts(result)
    path = vault / SPACES_NOTE
    match operation:
        case "read":
            body, meta, _ = window_parts(result)
            assert body == before[:10]
            assert meta is not None
            assert meta["hasMore"] is True
        case "update":
            assert note_text(vault, SPACES_NOTE) == "# Replaced\n"
        case "append":
            assert note_text(vault, SPACES_NOTE).endswith("Appended 🚀\n")
        case "patch":
            assert "Patched 東京" in note_text(vault, SPACES_NOTE)
        case "delete":
            assert not path.exists()


async def test_004_discover_pagination(default: Client) -> None:
    first = await listed(default, "discover", limit=5)
    total = first["pagination"]["total"]
    seen = list(first["operations"])
    offset = 5
    while offset < total:
        page = await listed(default, "discover", limit=5, offset=offset)
        check_pagination(page, total=total, offset=offset, limit=5)
        seen += page["operations"]
        offset += 5

    check_pagination(first, total=total, offset=0, limit=5)
    assert len(seen) == total


# --- Response Metadata Standard -------------------------------------------------------------

PAGED_CALLS: dict[str, dict[str, Any]] = {
    "list_vault_files": {"directory": MANY_FOLDER, "limit": 3},
    "search_vault_simple": {"query": SEARCH_WORD, "limit": 3},
    "search_vault": {"query": JSONLOGIC_MANY, "limit": 3},
    "bulk_delete_files": {"pattern": MANY_GLOB, "limit": 3},
    "list_tags": {"limit": 3},
    "discover": {"limit": 3},
}


@pytest.mark.parametrize("field", sorted(LIST_KEYS))
@pytest.mark.parametrize("tool", list(PAGED_CALLS))
async def test_004_metadata_list_field(full: Client, tool: str, field: str) -> None:
    data = await listed(full, tool, **PAGED_CALLS[tool])

    page = data["pagination"]
    assert field in page
    assert isinstance(page["hasMore"], bool)
    assert page["hasMore"] is True
    assert page["limit"] == 3
    assert page["offset"] == 0


@pytest.mark.parametrize("field", sorted(WINDOW_KEYS - {"hasMore"}))
async def test_004_metadata_content_field(full: Client, field: str) -> None:
    _, meta, _ = window_parts(
        await call(full, "get_vault_file", filename=LARGE_NOTE, maxLength=1_000)
    )

    assert meta is not None
    assert field in meta


# --- Default Limits -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "tool", "arguments", "key", "expected"),
    [
        pytest.param(
            "file-content",
            "get_vault_file",
            {"filename": LARGE_NOTE},
            None,
            10_000,
            id="file-content-10000",
        ),
        pytest.param(
            "file-lists",
            "list_vault_files",
            {"directory": MANY_FOLDER},
            "files",
            100,
            id="file-lists-100",
        ),
        pytest.param(
            "search-results",
            "search_vault_simple",
            {"query": SEARCH_WORD},
            "results",
            20,
            id="search-results-20",
        ),
        pytest.param(
            "bulk-operations",
            "bulk_delete_files",
            {"pattern": MANY_GLOB},
            "files",
            50,
            id="bulk-operations-50",
        ),
    ],
)
async def test_004_default_limit(
    full: Client, row: str, tool: str, arguments: dict[str, Any], key: str | None, expected: int
) -> None:
    result = await call(full, tool, **arguments)

    if key is None:
        assert len(window_parts(result)[0]) == expected
    else:
        assert len(data_of(result)[key]) == expected


# --- Implementation Plan: phase 4 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "words"),
    [
        ("list_vault_files", "offset"),
        ("get_vault_file", "startIndex"),
        ("get_active_file", "startIndex"),
        ("search_vault_simple", "offset"),
        ("search_vault", "offset"),
        ("search_vault_smart", "offset"),
        ("bulk_delete_files", "offset"),
    ],
)
async def test_004_plan_tool_descriptions_pagination_guidance(
    full: Client, tool: str, words: str
) -> None:
    tool_info = (await tools_of(full))[tool]
    described = (tool_info.description or "") + json.dumps(tool_info.input_schema)

    assert words in described
    assert (
        "hasMore" in (tool_info.description or "")
        or "nextOffset" in (tool_info.description or "")
        or "nextIndex" in (tool_info.description or "")
    )


async def test_004_plan_examples_in_prompts(full: Client) -> None:
    """The instructions show the model how to page (the seed's "examples to prompts")."""
    given = full.instructions or ""

    assert "hasMore" in given
    assert "startIndex" in given
    assert "offset" in given


# --- Testing Strategy, literally ------------------------------------------------------------


async def test_004_testing_list_vault_files_respects_limit(full: Client) -> None:
    result = await full.call_tool("list_vault_files", {"limit": 10})
    data = json.loads(texts(result)[0])

    assert len(data["files"]) <= 10
    assert data["pagination"]["hasMore"] is not None


async def test_004_testing_get_vault_file_truncates_large_files(full: Client) -> None:
    result = await full.call_tool("get_vault_file", {"filename": LARGE_NOTE, "maxLength": 1000})

    assert len(texts(result)[0]) <= 1000
    assert "truncated" in texts(result)[1]


# --- Migration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "required"),
    [
        ("list_vault_files", set()),
        ("get_vault_file", {"filename"}),
        ("get_active_file", set()),
        ("search_vault_simple", {"query"}),
        ("search_vault", {"query"}),
        ("search_vault_smart", {"query"}),
        ("bulk_delete_files", {"pattern"}),
    ],
)
async def test_004_migration_new_parameters_are_optional(
    full: Client, tool: str, required: set[str]
) -> None:
    schema = (await tools_of(full))[tool].input_schema

    assert set(schema.get("required", [])) == required


async def test_004_migration_existing_calls_work(full: Client) -> None:
    """A call from before: no arguments, or the old folder name, answers with the defaults."""
    bare = await listed(full, "list_vault_files")
    old = await listed(full, "list_vault_files", folder=MANY_FOLDER)
    new = await listed(full, "list_vault_files", directory=MANY_FOLDER)

    assert bare["files"]
    assert old == new
