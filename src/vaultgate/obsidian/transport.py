"""The HTTP connection to the Local REST API, and what its TLS trusts.

Requests go straight to an httpx transport (PluginHTTP), not through httpx.AsyncClient: the
plugin needs no cookies, redirects, auth flows or URL merging, and on a note read those cost
about as much of vaultgate's CPU as the request itself (docs/design.md, "The call path").

TLS is decided for this one client's SSLContext and never weakened for the process:

- ``OBSIDIAN_PROTOCOL=http``: no TLS.
- ``OBSIDIAN_CERT``: trust exactly that PEM (the plugin's certificate, pinned). It wins over
  ``OBSIDIAN_VERIFY_SSL=false``, which is then ignored with a warning.
- ``OBSIDIAN_VERIFY_SSL=false``: no certificate checks for this client only; one warning line.
- loopback host, no cert: the plugin's PEM from ``/obsidian-local-rest-api.crt``, pinned as if
  ``OBSIDIAN_CERT`` pointed at it. It is fetched on the first request, not at start (Obsidian
  may start after the MCP client), and fetched once more when a handshake fails (the plugin
  may have made a new certificate): see PluginCertificateTransport. A fetch that gets no PEM
  leaves the system trust store, so the real failure surfaces as an ObsidianTLSError.
- any other host: the system trust store (plus certifi's bundle, which httpx would use).

Hostname checking always stays on. The plugin's certificate names ``IP:127.0.0.1`` (plus any
names set in its "subject alt names" setting), so keep ``OBSIDIAN_HOST=127.0.0.1``: with
``localhost`` the check fails unless the certificate lists ``DNS:localhost``.
"""

from __future__ import annotations

import logging
import ssl
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import certifi
import httpx

from vaultgate import __version__
from vaultgate.config import CERTIFICATE_PATH, ObsidianSettings
from vaultgate.errors import ConfigError, TLSTrust, WrongProtocol
from vaultgate.obsidian.probes import wrong_protocol

log = logging.getLogger("vaultgate.obsidian")

_PEM_MARKER = "-----BEGIN CERTIFICATE-----"


class PluginHTTP:
    """Requests to one Local REST API, each handed straight to the transport.

    What httpx.AsyncClient would add per request and the plugin never needs (a cookie jar,
    redirect and auth flows, merging URLs, per-request logging) is left out; what is kept is a
    base URL, default headers (the key), a timeout, and the transport's pool of kept-alive
    connections. Requests and responses are httpx's own types, so any httpx transport serves:
    httpcore's pool, PluginCertificateTransport, and in tests httpx.MockTransport (respx) or
    httpx.ASGITransport. Transport errors are httpx's, each carrying its request. Observers
    (tests, benchmarks) hook in as with httpx: ``event_hooks["request"]`` and ``["response"]``.
    ``probe`` asks the real port which protocol it speaks (``probes.wrong_protocol``); it is
    None with an injected transport, where there is no port to ask.
    """

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str],
        timeout: float,
        transport: httpx.AsyncBaseTransport,
        proxy: str | None = None,
        probe: Callable[[], Awaitable[WrongProtocol | None]] | None = None,
    ) -> None:
        self.base_url = httpx.URL(base_url)
        self.timeout = httpx.Timeout(timeout)
        self.proxy = proxy  # what build_http_client found in the environment, for a remote host
        self._prefix = base_url.rstrip("/")
        self._headers = {"Accept": "*/*", "User-Agent": f"vaultgate/{__version__}", **headers}
        self._transport = transport
        self._probe = probe
        self._timeouts: dict[float, dict[str, float | None]] = {}
        self._closed = False
        self.event_hooks: dict[str, list[Callable[[Any], Awaitable[None]]]] = {
            "request": [],
            "response": [],
        }

    @property
    def is_closed(self) -> bool:
        return self._closed

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str | int] | None = None,
        content: bytes | None = None,
        io_timeout: float | None = None,
    ) -> httpx.Response:
        """Send ``method`` to ``url`` (a path with its segments already encoded) and read the
        whole answer; ``io_timeout`` bounds each step (connect, write, read, a pooled
        connection), as httpx's timeout does. Raises httpx.InvalidURL before sending, other
        httpx errors after."""
        if self._closed:
            raise RuntimeError("The connection to the Local REST API has been closed.")
        request = httpx.Request(
            method,
            self._prefix + url,
            params=params,
            headers={**self._headers, **headers} if headers else self._headers,
            content=content,
            extensions={"timeout": self._timeout(io_timeout)},
        )
        for hook in self.event_hooks["request"]:
            await hook(request)
        try:
            response = await self._transport.handle_async_request(request)
        except httpx.RequestError as exc:
            exc.request = request
            raise
        response.request = request
        try:
            for hook in self.event_hooks["response"]:
                await hook(response)
            await response.aread()  # reading to the end hands the connection back to the pool
        except BaseException as exc:
            await response.aclose()
            if isinstance(exc, httpx.RequestError):
                exc.request = request
            raise
        return response

    async def wrong_protocol(self) -> WrongProtocol | None:
        """After a connection broke: the http/https mix-up, when the port speaks the other."""
        return None if self._probe is None else await self._probe()

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._transport.aclose()

    async def __aenter__(self) -> PluginHTTP:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _timeout(self, seconds: float | None) -> dict[str, float | None]:
        if seconds is None:
            return self.timeout.as_dict()
        if seconds not in self._timeouts:
            self._timeouts[seconds] = httpx.Timeout(seconds).as_dict()
        return self._timeouts[seconds]


async def build_http_client(
    settings: ObsidianSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> PluginHTTP:
    """The connection to ``settings.base_url``: bearer key, timeout and TLS trust set up.

    Nothing is sent here: on loopback https the plugin's certificate is fetched by the first
    request (PluginCertificateTransport). ``transport`` lets tests route requests (respx, an
    ASGI app) without a network; with one, the certificate is fetched through it at once.
    """
    headers: dict[str, str] = {}
    probe = None if transport is not None else partial(wrong_protocol, settings)
    if settings.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.api_key.reveal()}"
    proxy = None
    if transport is None and tls_trust(settings) == "fetched":
        transport = PluginCertificateTransport(settings)
    elif transport is None:
        proxy = environment_proxy(settings)
        verify = await resolve_verify(settings)
        transport = httpx.AsyncHTTPTransport(
            verify=_unused_tls_context() if verify is True else verify,
            proxy=proxy,
            trust_env=False,
        )
    else:
        await resolve_verify(settings, transport=transport)  # its warnings, its fetch
    return PluginHTTP(
        settings.base_url,
        headers=headers,
        timeout=settings.timeout,
        transport=transport,
        proxy=proxy,
        probe=probe,
    )


def environment_proxy(settings: ObsidianSettings) -> str | None:
    """The proxy that the environment (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``, ...) sets
    for ``settings``' host, as httpx would read it; never one on loopback, where proxy
    variables must not see (or reroute) the key. A remote host may sit behind a proxy."""
    if settings.is_loopback:
        return None
    proxies = urllib.request.getproxies()
    proxy = proxies.get(settings.protocol) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(settings.host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _unused_tls_context() -> ssl.SSLContext:
    """For plain http, where httpx still wants a context: one that trusts nothing and so loads
    no trust store (httpx's default loads two, about 0.1 s at start)."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


async def resolve_verify(
    settings: ObsidianSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> ssl.SSLContext | bool:
    """What this client's TLS trusts: a context, or False when checks were switched off."""
    if settings.protocol == "http":
        return True  # no TLS at all; httpx never uses it
    if settings.cert is not None:
        if not settings.verify_ssl:
            log.warning(
                "OBSIDIAN_VERIFY_SSL=false is ignored: OBSIDIAN_CERT is set, so %s is checked "
                "against that certificate.",
                settings.base_url,
            )
        return certificate_context(settings)
    if not settings.verify_ssl:
        log.warning(
            "TLS certificate checks are off for %s (OBSIDIAN_VERIFY_SSL=false); only "
            "vaultgate's connection to Obsidian is affected.",
            settings.base_url,
        )
        return False
    if settings.is_loopback:
        return plugin_context(await fetch_plugin_certificate(settings, transport=transport))
    return system_context()


def plugin_context(pem: str | None) -> ssl.SSLContext:
    """Pinned to the PEM the plugin served; the system store when it served none usable, so
    the real failure surfaces on first use as an ObsidianTLSError."""
    if pem is not None:
        try:
            return pinned_context(pem, source=CERTIFICATE_PATH, download=CERTIFICATE_PATH)
        except ConfigError:
            log.debug("%s did not serve a usable certificate", CERTIFICATE_PATH)
    return system_context()


def tls_trust(settings: ObsidianSettings) -> TLSTrust:
    """Where the certificate checked for ``settings`` comes from (for error messages)."""
    if settings.protocol == "https" and settings.cert is not None:
        return "file"
    if settings.protocol == "https" and settings.verify_ssl and settings.is_loopback:
        return "fetched"
    return "system"


def tls_failure(exc: BaseException) -> str | None:
    """A short reason if ``exc`` was caused by a certificate or handshake failure."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLCertVerificationError):
            return current.verify_message or "certificate verify failed"
        if isinstance(current, ssl.SSLError):
            return current.reason or "TLS handshake failed"
        current = current.__cause__ or current.__context__
    return None


class PluginCertificateTransport(httpx.AsyncBaseTransport):
    """HTTPS to the plugin on loopback, pinned to the certificate the plugin serves.

    The certificate is fetched by the first request, so start-up never waits on Obsidian and an
    Obsidian started later is found. A fetch that fails to connect or times out raises that
    httpx error (the client reports Obsidian unreachable) and leaves nothing behind: the next
    request fetches again. When a handshake fails, the certificate is fetched once more and, if
    it changed, the request is sent once more on a connection pinned to the new one; a failed
    handshake sent nothing, so this is safe for writes too. Hostname checks stay on throughout.
    """

    def __init__(self, settings: ObsidianSettings) -> None:
        self._settings = settings
        self._pinned: httpx.AsyncHTTPTransport | None = None
        self._pem: str | None = None  # what _pinned trusts; None: the system store
        self._retired: list[httpx.AsyncHTTPTransport] = []  # closed with this transport
        self._lock = anyio.Lock()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pinned = await self._current()
        try:
            return await pinned.handle_async_request(request)
        except httpx.ConnectError as exc:
            if tls_failure(exc) is None or not await self._renew(pinned):
                raise
        log.debug("retrying %s %s with the plugin's new certificate", request.method, request.url)
        return await (await self._current()).handle_async_request(request)

    async def aclose(self) -> None:
        for transport in (*self._retired, *([self._pinned] if self._pinned else [])):
            await transport.aclose()
        self._retired.clear()
        self._pinned = None

    async def _current(self) -> httpx.AsyncHTTPTransport:
        async with self._lock:
            if self._pinned is None:
                self._pem = await _fetch_certificate(self._settings)
                self._pinned = self._transport_for(self._pem)
            return self._pinned

    async def _renew(self, failed: httpx.AsyncHTTPTransport) -> bool:
        """Fetch the certificate again after ``failed`` could not shake hands; True when a
        transport pinned to another certificate is now current (worth one more try)."""
        async with self._lock:
            if self._pinned is not failed:
                return self._pinned is not None  # another request renewed it meanwhile
            try:
                pem = await _fetch_certificate(self._settings)
            except httpx.HTTPError as exc:
                log.debug("could not fetch %s again: %s", CERTIFICATE_PATH, type(exc).__name__)
                return False
            if pem is None or pem == self._pem:
                return False
            log.info("the plugin's certificate changed; pinning the new one")
            self._retired.append(failed)
            self._pem = pem
            self._pinned = self._transport_for(pem)
            return True

    @staticmethod
    def _transport_for(pem: str | None) -> httpx.AsyncHTTPTransport:
        return httpx.AsyncHTTPTransport(verify=plugin_context(pem), trust_env=False)


def check_certificate(settings: ObsidianSettings) -> None:
    """Read and load OBSIDIAN_CERT now, so a bad file stops the start with one ConfigError line
    instead of failing later inside the server (where it would become a traceback)."""
    if settings.protocol == "https" and settings.cert is not None:
        certificate_context(settings)


def certificate_context(settings: ObsidianSettings) -> ssl.SSLContext:
    """The pinned context for the PEM file OBSIDIAN_CERT names (``settings.cert``); an error
    says where this plugin (its host and port) serves the right one."""
    assert settings.cert is not None
    path, download = settings.cert, settings.certificate_url
    return pinned_context(
        _read_certificate_file(path, download),
        source=f"OBSIDIAN_CERT points at {str(path)!r}, which",
        download=download,
    )


def pinned_context(pem: str, *, source: str, download: str) -> ssl.SSLContext:
    """A context that trusts exactly the certificate(s) in ``pem``, hostname checks on; a
    ConfigError names ``source`` and where to ``download`` the plugin's certificate."""
    # Not ssl.create_default_context(cadata=...): given an empty string it would quietly load
    # the system store instead. PROTOCOL_TLS_CLIENT has the same secure defaults.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        if _PEM_MARKER not in pem:
            raise ValueError("no PEM certificate block")
        context.load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError) as exc:
        raise ConfigError(
            f"{source} is not a PEM certificate ({_reason(exc)}). Download the plugin's "
            f"certificate from {download}."
        ) from exc
    # The plugin's certificate is a self-signed, CA-flagged certificate served as the leaf (and
    # after upstream PR #342 the file may be a plain leaf). Pinning means trusting exactly this
    # one certificate, so: accept it as an anchor even if it is not a CA (PARTIAL_CHAIN), and
    # skip the RFC 5280 strict profile (Python 3.13's default), which rejects such certificates.
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    context.verify_flags &= ~ssl.VERIFY_X509_STRICT
    return context


def system_context() -> ssl.SSLContext:
    """The operating system's trust store, plus certifi's bundle (what httpx trusts by default)."""
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=certifi.where())
    return context


async def fetch_plugin_certificate(
    settings: ObsidianSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> str | None:
    """The PEM the plugin serves, fetched without verification; None if it cannot be had."""
    try:
        return await _fetch_certificate(settings, transport=transport)
    except httpx.HTTPError as exc:
        log.debug("could not fetch %s: %s", CERTIFICATE_PATH, type(exc).__name__)
        return None


async def _fetch_certificate(
    settings: ObsidianSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> str | None:
    """The PEM the plugin serves, or None when it answered without one; httpx errors pass.

    Only ever called for a loopback host. The plugin makes its own self-signed certificate per
    vault, so no authority can vouch for it; whoever could answer on this machine's loopback
    address in its place already runs code here and could read the key from Obsidian's
    settings anyway. The key is not sent on this connection.
    """
    async with httpx.AsyncClient(
        base_url=settings.base_url,
        verify=False,
        timeout=settings.timeout,
        transport=transport,
        trust_env=False,
    ) as client:
        response = await client.get(CERTIFICATE_PATH)
    pem = response.content.decode("ascii", errors="replace")
    if response.status_code != 200 or _PEM_MARKER not in pem:
        log.debug("%s answered %d without a PEM", CERTIFICATE_PATH, response.status_code)
        return None
    return pem


def _reason(exc: Exception) -> str:
    """One line about a certificate that would not load (ssl's messages can span lines)."""
    if isinstance(exc, ssl.SSLError) and exc.reason:
        return str(exc.reason)
    return " ".join(str(exc).split())[:120] or type(exc).__name__


def _read_certificate_file(path: Path, download: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"OBSIDIAN_CERT points at {str(path)!r}, which cannot be read as a PEM file "
            f"({type(exc).__name__}). Download the plugin's certificate from {download}."
        ) from exc
