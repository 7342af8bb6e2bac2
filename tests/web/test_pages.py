"""PageFetcher: markdown unless raw, and a brief cache so later windows cost no download."""

from __future__ import annotations

import httpx
import pytest
import respx
from tests.web.conftest import PUBLIC_IP, FetcherFactory

from vaultgate.errors import PageUnavailable

pytestmark = pytest.mark.anyio

PAGE = '<h1>Title</h1><p>See <a href="/next">next</a>.</p>'


@respx.mock
async def test_html_becomes_markdown_with_links_resolved_against_the_final_url(
    make_fetcher: FetcherFactory,
) -> None:
    respx.get(f"https://{PUBLIC_IP}/a").respond(301, headers={"Location": "/b/page"})
    respx.get(f"https://{PUBLIC_IP}/b/page").respond(200, html=PAGE)

    text = await make_fetcher().text("https://public.example/a")

    assert text == "# Title\n\nSee [next](https://public.example/next).\n"


@respx.mock
async def test_raw_returns_the_html_as_served(make_fetcher: FetcherFactory) -> None:
    respx.get(f"https://{PUBLIC_IP}/a").respond(200, html=PAGE)

    assert await make_fetcher().text("https://public.example/a", raw=True) == PAGE


@respx.mock
async def test_plain_text_is_never_converted(make_fetcher: FetcherFactory) -> None:
    respx.get(f"https://{PUBLIC_IP}/notes.txt").respond(200, text="<b>literal</b> *text*")

    assert await make_fetcher().text("https://public.example/notes.txt") == "<b>literal</b> *text*"


@respx.mock
async def test_a_page_is_downloaded_once_for_repeated_reads(make_fetcher: FetcherFactory) -> None:
    route = respx.get(f"https://{PUBLIC_IP}/a").respond(200, html=PAGE)
    fetcher = make_fetcher()

    first = await fetcher.text("https://public.example/a")
    second = await fetcher.text("https://public.example/a")

    assert first == second
    assert route.call_count == 1


@respx.mock
async def test_raw_and_converted_are_cached_apart(make_fetcher: FetcherFactory) -> None:
    route = respx.get(f"https://{PUBLIC_IP}/a").respond(200, html=PAGE)
    fetcher = make_fetcher()

    converted = await fetcher.text("https://public.example/a")
    raw = await fetcher.text("https://public.example/a", raw=True)
    await fetcher.text("https://public.example/a", raw=True)

    assert (converted, raw) == ("# Title\n\nSee [next](https://public.example/next).\n", PAGE)
    assert route.call_count == 2


@respx.mock
async def test_a_failed_download_is_not_cached(make_fetcher: FetcherFactory) -> None:
    route = respx.get(f"https://{PUBLIC_IP}/flaky")
    route.side_effect = [httpx.Response(503), httpx.Response(200, text="back")]
    fetcher = make_fetcher()

    with pytest.raises(PageUnavailable, match="503"):
        await fetcher.text("https://public.example/flaky")
    assert await fetcher.text("https://public.example/flaky") == "back"
