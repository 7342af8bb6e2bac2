"""One GET of a web page as text: redirects followed by hand and each hop re-checked, the body
streamed up to a cap, the whole download under one deadline.

Each hop connects to the address that was checked (the URL's host replaced by that address, the
Host header and the TLS server name kept), so a DNS answer that changes between the check and the
connection is never used. httpx's exceptions are translated here, once.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

import anyio
import httpx

from vaultgate.errors import (
    FetchTimeout,
    PageTooLarge,
    PageUnavailable,
    UnsupportedContent,
    URLRefused,
)
from vaultgate.web.addresses import Resolver, checked_address
from vaultgate.web.urls import parse_fetch_url

MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
FETCH_TIMEOUT = 30.0

# Media types read as text besides text/*, *+json and *+xml.
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_SNIFF_BYTES = 4096


@dataclass(frozen=True, slots=True)
class FetchLimits:
    max_bytes: int = MAX_DOWNLOAD_BYTES  # of the decoded body, so a compressed bomb stops too
    max_redirects: int = MAX_REDIRECTS
    timeout: float = FETCH_TIMEOUT  # seconds for the whole download, every hop included


@dataclass(frozen=True, slots=True)
class Download:
    url: str  # the last hop's URL, after redirects
    media_type: str  # e.g. "text/html"; "" when the server named none
    text: str


def is_text(media_type: str) -> bool:
    return (
        media_type.startswith("text/")
        or media_type.endswith(("+json", "+xml"))
        or media_type in _TEXT_TYPES
    )


async def download(
    client: httpx.AsyncClient,
    url: str,
    *,
    resolver: Resolver,
    allow_private: bool,
    limits: FetchLimits,
) -> Download:
    """GET ``url`` as text, or raise the FetchError that says why not."""
    try:
        with anyio.fail_after(limits.timeout):
            return await _follow(client, url, resolver, allow_private, limits)
    except TimeoutError as exc:
        raise FetchTimeout(url, limits.timeout) from exc


async def _follow(
    client: httpx.AsyncClient,
    url: str,
    resolver: Resolver,
    allow_private: bool,
    limits: FetchLimits,
) -> Download:
    target = parse_fetch_url(url)
    previous: str | None = None
    for _hop in range(limits.max_redirects + 1):
        address = await checked_address(
            target, resolver=resolver, allow_private=allow_private, redirected_from=previous
        )
        try:
            response = await client.send(_pinned_request(client, target, address), stream=True)
            try:
                if response.is_redirect:
                    previous = str(target)
                    target = _redirect_target(target, response.headers["location"])
                    continue
                return await _read(response, target, limits)
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            raise FetchTimeout(str(target), limits.timeout) from exc
        except httpx.HTTPError as exc:
            raise PageUnavailable(
                str(target),
                f"Could not get {target} ({type(exc).__name__}: {exc}). Check the URL, or try "
                "again later.",
            ) from exc
    raise PageUnavailable(
        url,
        f"{url} redirected more than {limits.max_redirects} times (last to {target}). Fetch the "
        "final URL directly, if you know it.",
    )


def _redirect_target(current: httpx.URL, location: str) -> httpx.URL:
    """Where a redirect leads, checked like the URL the model gave."""
    try:
        joined = str(current.join(location))
    except httpx.InvalidURL as exc:
        raise URLRefused(
            str(current), f"{current} redirected to an invalid URL {location!r} ({exc})."
        ) from exc
    return parse_fetch_url(joined, redirected_from=str(current))


def _pinned_request(client: httpx.AsyncClient, target: httpx.URL, address: str) -> httpx.Request:
    """A GET of ``target`` sent to ``address``, with the Host header and TLS name of the URL."""
    host = target.raw_host.decode("ascii")
    extensions: dict[str, str] = {}
    if target.scheme == "https" and host != address:
        extensions["sni_hostname"] = host  # the certificate is checked against the real name
    return client.build_request(
        "GET",
        target.copy_with(host=address.split("%", 1)[0]),
        headers={"Host": target.netloc.decode("ascii")},
        extensions=extensions,
    )


async def _read(response: httpx.Response, target: httpx.URL, limits: FetchLimits) -> Download:
    url = str(target)
    status = response.status_code
    if status >= 300:
        raise PageUnavailable(
            url,
            f"{url} answered {status} {response.reason_phrase}. Check the URL, or look for the "
            "page elsewhere.",
            status,
        )
    content_type = response.headers.get("content-type", "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type and not is_text(media_type):
        raise UnsupportedContent(url, media_type)
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_bytes:
        raise PageTooLarge(url, limits.max_bytes)
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limits.max_bytes:
            raise PageTooLarge(url, limits.max_bytes)
    if not media_type and b"\x00" in body[:_SNIFF_BYTES]:
        raise UnsupportedContent(url, "binary data with no Content-Type")
    text = _decode(bytes(body), response.charset_encoding, media_type)
    return Download(url=url, media_type=media_type, text=text)


def _decode(body: bytes, charset: str | None, media_type: str) -> str:
    """The declared charset, else a BOM, else an HTML <meta charset>, else UTF-8."""
    encoding = charset
    if encoding is None and body.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif encoding is None and body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    elif encoding is None and "html" in media_type:
        found = _META_CHARSET.search(body[:_SNIFF_BYTES])
        encoding = found.group(1).decode("ascii") if found else None
    try:
        codecs.lookup(encoding or "utf-8")
    except LookupError:
        encoding = None
    return body.decode(encoding or "utf-8", errors="replace")
