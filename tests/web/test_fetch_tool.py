"""The fetch tool through a real MCP client, against a real web server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent
from tests.web.conftest import PageServer, article_html

from vaultgate.config import Settings
from vaultgate.server import build_server
from vaultgate.web.convert import html_to_markdown

pytestmark = pytest.mark.anyio

OBSIDIAN_KEY = "obsidian-key-that-must-stay-home"


def settings(*, allow_private: bool = True) -> Settings:
    env = {"OBSIDIAN_API_KEY": OBSIDIAN_KEY, "OBSIDIAN_PROTOCOL": "http"}
    if allow_private:  # the page server is on 127.0.0.1
        env["VAULTGATE_FETCH_ALLOW_PRIVATE"] = "true"
    return Settings.from_env(env)


Connect = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def connect() -> Connect:
    @asynccontextmanager
    async def open_client(*, allow_private: bool = True) -> AsyncIterator[Client]:
        async with Client(build_server(settings(allow_private=allow_private))) as client:
            yield client

    return open_client


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


def window(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    """The window's text and its metadata, for a cut window or one past startIndex 0: seed
    004's fetch pattern, checked. The first block is the window, then (when more remains) a
    blank line and the notice in an <error> element; the second is "Pagination: " and the
    metadata, whose endIndex and nextIndex count page characters only."""
    assert not result.is_error, texts(result)
    body, pagination = texts(result)
    assert pagination.startswith("Pagination: {")
    metadata = json.loads(pagination.removeprefix("Pagination: "))
    assert set(metadata) == {
        "truncated",
        "totalLength",
        "startIndex",
        "endIndex",
        "nextIndex",
        "hasMore",
    }
    assert metadata["truncated"] is True
    length = metadata["endIndex"] - metadata["startIndex"]
    text, notice = body[:length], body[length:]
    if metadata["hasMore"]:
        assert notice == (
            "\n\n<error>Content truncated. Call with startIndex of "
            f"{metadata['nextIndex']} to get more.</error>"
        )
        assert metadata["nextIndex"] == metadata["endIndex"]
    else:
        assert notice == ""
        assert metadata["nextIndex"] is None
    return text, metadata


async def test_fetch_is_listed_as_read_only_and_open_world(connect: Connect) -> None:
    async with connect() as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    fetch = tools["fetch"]
    assert fetch.annotations is not None
    assert fetch.annotations.read_only_hint is True
    assert fetch.annotations.open_world_hint is True
    properties = fetch.input_schema["properties"]
    assert fetch.input_schema["required"] == ["url"]
    assert properties["maxLength"]["default"] == 5000
    assert properties["startIndex"]["default"] == 0
    assert properties["raw"]["default"] is False


async def test_walking_every_window_returns_the_whole_markdown_once_from_one_download(
    connect: Connect, page_server: PageServer
) -> None:
    url = f"{page_server.url}/page.html"
    expected = html_to_markdown(article_html(), url)
    assert len(expected) > 5000

    pieces: list[str] = []
    start = 0
    async with connect() as client:
        while True:
            result = await client.call_tool(
                "fetch", {"url": url, "maxLength": 700, "startIndex": start}
            )
            text, metadata = window(result)
            assert metadata["startIndex"] == start
            assert metadata["totalLength"] == len(expected)
            pieces.append(text)
            if not metadata["hasMore"]:
                assert metadata["nextIndex"] is None
                break
            start = metadata["nextIndex"]
        (whole,) = texts(await client.call_tool("fetch", {"url": url, "maxLength": 100_000}))

    assert "".join(pieces) == expected == whole
    assert len(pieces) == -(-len(expected) // 700)
    assert "🦊" in whole
    assert "größer" in whole
    assert "never shown" not in whole
    assert page_server.count("/page.html") == 1  # every later window came from the cache


async def test_a_page_that_fits_the_window_is_its_text_alone(
    connect: Connect, page_server: PageServer
) -> None:
    url = f"{page_server.url}/plain.txt"
    plain = "just text, <b>not</b> HTML\n"
    async with connect() as client:
        exact = texts(await client.call_tool("fetch", {"url": url, "maxLength": len(plain)}))
        one_short = await client.call_tool("fetch", {"url": url, "maxLength": len(plain) - 1})
        later = await client.call_tool("fetch", {"url": url, "startIndex": 5})

    assert exact == [plain]
    text, metadata = window(one_short)
    assert text == plain[:-1]
    assert (metadata["hasMore"], metadata["nextIndex"]) == (True, len(plain) - 1)
    text, metadata = window(later)
    assert text == plain[5:]
    assert (metadata["truncated"], metadata["hasMore"], metadata["startIndex"]) == (True, False, 5)


async def test_a_cut_page_answers_in_the_seeds_fetch_pattern(
    connect: Connect, page_server: PageServer
) -> None:
    url = f"{page_server.url}/plain.txt"  # "just text, <b>not</b> HTML\n", 27 characters
    async with connect() as client:
        first = texts(await client.call_tool("fetch", {"url": url, "maxLength": 10}))
        last = texts(await client.call_tool("fetch", {"url": url, "startIndex": 21}))

    assert first == [
        "just text,\n\n<error>Content truncated. Call with startIndex of 10 to get more.</error>",
        'Pagination: {"truncated":true,"totalLength":27,"startIndex":0,"endIndex":10,'
        '"nextIndex":10,"hasMore":true}',
    ]
    assert last == [
        " HTML\n",
        'Pagination: {"truncated":true,"totalLength":27,"startIndex":21,"endIndex":27,'
        '"nextIndex":null,"hasMore":false}',
    ]


async def test_the_default_window_is_5000_characters(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect() as client:
        _, metadata = window(
            await client.call_tool("fetch", {"url": f"{page_server.url}/page.html"})
        )

    assert (metadata["endIndex"], metadata["nextIndex"], metadata["hasMore"]) == (5000, 5000, True)


async def test_raw_returns_the_html_source(connect: Connect, page_server: PageServer) -> None:
    async with connect() as client:
        text, _ = window(
            await client.call_tool(
                "fetch", {"url": f"{page_server.url}/page.html", "raw": True, "maxLength": 100}
            )
        )

    assert text == article_html()[:100]


async def test_the_obsidian_key_and_no_other_credential_reaches_a_web_server(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect() as client:
        for path in ("/page.html", "/plain.txt", "/redirect"):
            result = await client.call_tool("fetch", {"url": f"{page_server.url}{path}"})
            assert not result.is_error, texts(result)

    assert len(page_server.requests) == 4  # the redirect took two requests
    for request in page_server.requests:
        assert "authorization" not in request.headers
        assert OBSIDIAN_KEY not in str(request.headers)


async def test_a_redirect_is_followed_on_real_sockets(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect() as client:
        text, _ = window(
            await client.call_tool("fetch", {"url": f"{page_server.url}/redirect", "raw": True})
        )

    assert text.startswith("<!doctype html>")
    assert page_server.count("/redirect") == page_server.count("/page.html") == 1


async def test_an_endless_body_is_cut_at_5_mb_with_a_clear_message(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect() as client:
        result = await client.call_tool("fetch", {"url": f"{page_server.url}/endless"})

    assert result.is_error
    assert "larger than 5 MB, the download cap" in texts(result)[0]


async def test_an_image_is_refused_as_not_text(connect: Connect, page_server: PageServer) -> None:
    async with connect() as client:
        result = await client.call_tool("fetch", {"url": f"{page_server.url}/image.png"})

    assert result.is_error
    assert "'image/png', not text" in texts(result)[0]


async def test_a_loopback_server_is_refused_by_default_and_never_contacted(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect(allow_private=False) as client:
        result = await client.call_tool("fetch", {"url": f"{page_server.url}/page.html"})

    assert result.is_error
    message = texts(result)[0]
    assert "127.0.0.1 is a loopback address" in message
    assert "VAULTGATE_FETCH_ALLOW_PRIVATE=true" in message
    assert page_server.requests == []


async def test_a_start_index_past_the_end_says_how_long_the_page_is(
    connect: Connect, page_server: PageServer
) -> None:
    async with connect() as client:
        result = await client.call_tool(
            "fetch", {"url": f"{page_server.url}/plain.txt", "startIndex": 1000}
        )

    assert result.is_error
    assert "totalLength 27" in texts(result)[0]


async def test_a_file_url_is_refused(connect: Connect) -> None:
    async with connect() as client:
        result = await client.call_tool("fetch", {"url": "file:///etc/passwd"})

    assert result.is_error
    assert "only http and https" in texts(result)[0]
