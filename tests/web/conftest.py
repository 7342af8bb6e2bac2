"""fetch's fixtures: fake DNS, a PageFetcher factory, and a page server on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from vaultgate.config import FetchSettings
from vaultgate.http_server import ServerThread, bind
from vaultgate.web.addresses import Resolver
from vaultgate.web.download import FetchLimits
from vaultgate.web.pages import PageFetcher

PUBLIC_IP = "93.184.216.34"  # answers for public.example in the fake DNS
OTHER_PUBLIC_IP = "93.184.216.35"


def fake_dns(table: dict[str, list[str]]) -> Resolver:
    """A resolver answering from ``table``; any other name does not exist."""

    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


async def no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"an IP literal must not be resolved, but {host!r} was")


FetcherFactory = Callable[..., PageFetcher]


@pytest.fixture
async def make_fetcher() -> AsyncIterator[FetcherFactory]:
    made: list[PageFetcher] = []

    def make(
        dns: dict[str, list[str]] | None = None,
        *,
        allow_private: bool = False,
        limits: FetchLimits | None = None,
    ) -> PageFetcher:
        fetcher = PageFetcher(
            FetchSettings(allow_private=allow_private),
            limits=limits,
            resolver=fake_dns(dns if dns is not None else {"public.example": [PUBLIC_IP]}),
        )
        made.append(fetcher)
        return fetcher

    yield make
    for fetcher in made:
        await fetcher.aclose()


# --- a real web server on 127.0.0.1 -----------------------------------------------------------


def article_html(paragraphs: int = 60) -> str:
    """A long page with headings, links, a list, a table, code, and non-ASCII text."""
    parts = ["<!doctype html><html><head><title>Notes</title><style>p{}</style></head><body>"]
    parts.append('<nav><a href="/">Home</a> | <a href="about.html">About</a></nav>')
    for n in range(paragraphs):
        if n % 10 == 0:
            parts.append(f"<h2>Part {n // 10} — größer</h2>")
        parts.append(
            f"<p>Paragraph {n}: the <b>quick</b> brown fox 🦊 jumps over <a href='/p/{n}'>the "
            f"lazy dog</a> in snake_case_{n}.</p>"
        )
    parts.append("<ul><li>alpha</li><li>beta</li></ul><pre><code>x = 1\ny = 2</code></pre>")
    parts.append("<script>document.write('never shown')</script></body></html>")
    return "".join(parts)


ENDLESS_CHUNK = b"x" * 65_536
ENDLESS_LIMIT = 10 * 1024 * 1024  # the stream stops by itself, past any cap under test


@dataclass
class PageServer:
    url: str
    requests: list[Request] = field(default_factory=list)

    def count(self, path: str) -> int:
        return sum(1 for request in self.requests if request.url.path == path)


def page_app(record: list[Request]) -> Starlette:
    async def page(request: Request) -> Response:
        record.append(request)
        return HTMLResponse(article_html())

    async def plain(request: Request) -> Response:
        record.append(request)
        return PlainTextResponse("just text, <b>not</b> HTML\n")

    async def redirect(request: Request) -> Response:
        record.append(request)
        return RedirectResponse("/page.html", status_code=302)

    async def image(request: Request) -> Response:
        record.append(request)
        return Response(b"\x89PNG\r\n\x1a\n" + bytes(64), media_type="image/png")

    async def endless(request: Request) -> Response:
        record.append(request)

        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(ENDLESS_LIMIT // len(ENDLESS_CHUNK)):
                yield ENDLESS_CHUNK

        return StreamingResponse(chunks(), media_type="text/plain")

    return Starlette(
        routes=[
            Route("/page.html", page),
            Route("/plain.txt", plain),
            Route("/redirect", redirect),
            Route("/image.png", image),
            Route("/endless", endless),
        ]
    )


@pytest.fixture
def page_server() -> Iterator[PageServer]:
    record: list[Request] = []
    with ServerThread(page_app(record), bind("127.0.0.1", 0)) as running:
        yield PageServer(url=running.url, requests=record)
