"""PageFetcher: what the fetch tool calls. Owns the web client, the address policy and the cache.

The client is its own ``httpx.AsyncClient``, never the Obsidian one: no Authorization header, no
base URL, and ``trust_env=False`` so neither proxy variables nor ``~/.netrc`` credentials apply.
It is made on first use (a server that never fetches opens nothing) and closed by the lifespan.
The HTML converter (BeautifulSoup and markdownify, about 50 ms to import) is imported by the
first page that needs converting, so no server start waits for it.
"""

from __future__ import annotations

import anyio.to_thread
import httpx

from vaultgate import __version__
from vaultgate.cache import TTLCache
from vaultgate.config import FetchSettings
from vaultgate.web.addresses import Resolver, system_resolver
from vaultgate.web.download import FetchLimits, download

# Long enough to page through a page a few windows at a time, short enough to stay fresh.
PAGE_CACHE_TTL = 300.0
PAGE_CACHE_ENTRIES = 8  # up to 8 pages of at most 5 MB each
USER_AGENT = f"vaultgate/{__version__} (MCP fetch tool)"
ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,*/*;q=0.5"


class PageFetcher:
    """Pages as text (HTML converted to markdown unless ``raw``), cached by URL and ``raw``."""

    def __init__(
        self,
        settings: FetchSettings,
        *,
        limits: FetchLimits | None = None,
        resolver: Resolver = system_resolver,
        transport: httpx.AsyncBaseTransport | None = None,
        cache_ttl: float = PAGE_CACHE_TTL,
    ) -> None:
        """``resolver`` and ``transport`` let tests answer DNS and HTTP without a network."""
        self._allow_private = settings.allow_private
        self._limits = limits or FetchLimits()
        self._resolver = resolver
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._cache: TTLCache[tuple[str, bool], str] = TTLCache(
            cache_ttl, max_entries=PAGE_CACHE_ENTRIES
        )

    async def text(self, url: str, *, raw: bool = False) -> str:
        """The page at ``url`` as text: from the cache, or downloaded (and converted) now."""
        key = (url, raw)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        page = await download(
            self._http(),
            url,
            resolver=self._resolver,
            allow_private=self._allow_private,
            limits=self._limits,
        )
        text = page.text
        if not raw:
            from vaultgate.web import convert  # on first use: see the module docstring

            if page.media_type in convert.HTML_TYPES:
                text = await anyio.to_thread.run_sync(convert.html_to_markdown, text, page.url)
        self._cache.put(key, text)
        return text

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
                timeout=self._limits.timeout,
                follow_redirects=False,  # download() follows them, re-checking every hop
                trust_env=False,
                # Each connection is pinned to one checked address; never reuse it for another name.
                limits=httpx.Limits(max_keepalive_connections=0),
                transport=self._transport,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        self._cache.clear()
