"""The httpx client's set-up: key header, timeout, and what its TLS trusts (never the process's)."""

from __future__ import annotations

import json
import logging
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import respx
from obsidian_fakes import API_KEY, PluginCert, PluginServer, make_plugin_cert, root_answer

from vaultgate.config import CERTIFICATE_PATH, ObsidianSettings, Secret
from vaultgate.errors import (
    APIKeyMissing,
    ConfigError,
    ObsidianTLSError,
    ObsidianUnreachable,
    WrongProtocol,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client, check_certificate, resolve_verify

pytestmark = pytest.mark.anyio

HTTPS_BASE = "https://127.0.0.1:27124"


def pinned_serials(context: ssl.SSLContext | bool) -> list[int]:
    """Serial numbers of the certificates a context trusts as anchors."""
    assert isinstance(context, ssl.SSLContext)
    return [int(str(cert["serialNumber"]), 16) for cert in context.get_ca_certs()]


def https_settings(**changes: Any) -> ObsidianSettings:
    values: dict[str, Any] = {"api_key": Secret(API_KEY), "timeout": 3.0}
    values.update(changes)
    return ObsidianSettings(**values)


def mock(router: respx.Router) -> httpx.MockTransport:
    return httpx.MockTransport(router.async_handler)


# --- the client -----------------------------------------------------------------------------


async def test_client_has_base_url_key_and_timeout() -> None:
    settings = https_settings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    route = router.get("/").respond(200, json={})

    async with await build_http_client(settings, transport=mock(router)) as http:
        assert str(http.base_url) == "http://127.0.0.1:27123"
        assert http.timeout == httpx.Timeout(3.0)
        await http.request("GET", "/")

    sent = route.calls.last.request
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    assert sent.headers["User-Agent"].startswith("vaultgate/")
    assert sent.extensions["timeout"] == httpx.Timeout(3.0).as_dict()


async def test_a_request_may_carry_its_own_timeout() -> None:
    settings = https_settings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    route = router.post("/search/").respond(200, json=[])

    async with await build_http_client(settings, transport=mock(router)) as http:
        await http.request("POST", "/search/", io_timeout=30.0)

    assert route.calls.last.request.extensions["timeout"] == httpx.Timeout(30.0).as_dict()


async def test_without_a_key_no_authorization_header_is_sent() -> None:
    settings = ObsidianSettings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    route = router.get("/").respond(200, json={})

    async with await build_http_client(settings, transport=mock(router)) as http:
        await http.request("GET", "/")

    assert "Authorization" not in route.calls.last.request.headers


async def test_a_closed_client_sends_nothing() -> None:
    settings = https_settings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    http = await build_http_client(settings, transport=mock(router))
    await http.aclose()

    assert http.is_closed
    with pytest.raises(RuntimeError, match="closed"):
        await http.request("GET", "/")
    assert router.calls.call_count == 0


async def test_transport_errors_carry_their_request() -> None:
    settings = https_settings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    router.get("/vault/a.md").mock(side_effect=httpx.ConnectError("refused"))

    async with await build_http_client(settings, transport=mock(router)) as http:
        with pytest.raises(httpx.ConnectError) as caught:
            await http.request("GET", "/vault/a.md")

    assert caught.value.request.url == "http://127.0.0.1:27123/vault/a.md"


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.mark.parametrize(
    ("host", "no_proxy", "proxy"),
    [
        pytest.param("127.0.0.1", "", None, id="loopback-ignores-proxy-variables"),
        pytest.param("obsidian.example.com", "", "http://proxy.example:3128", id="remote"),
        pytest.param("obsidian.example.com", "example.com", None, id="remote-in-no-proxy"),
    ],
)
async def test_environment_proxies_are_only_trusted_for_remote_hosts(
    host: str, no_proxy: str, proxy: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", no_proxy)
    settings = https_settings(protocol="http", host=host)

    async with await build_http_client(settings) as http:
        assert http.proxy == proxy


async def test_without_a_key_only_the_status_is_asked_and_nothing_else_is_sent() -> None:
    settings = ObsidianSettings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    status = router.get("/").respond(200, json=root_answer(authenticated=False))
    client = ObsidianClient(settings, await build_http_client(settings, transport=mock(router)))

    try:
        assert (await client.status()).authenticated is False
        with pytest.raises(APIKeyMissing) as caught:
            await client.read_note("a.md")
    finally:
        await client.aclose()

    assert router.calls.call_count == status.call_count == 1
    assert "OBSIDIAN_API_KEY is not set" in str(caught.value)
    assert "Obsidian → Settings → Local REST API" in str(caught.value)


# --- what TLS trusts ------------------------------------------------------------------------


async def test_http_needs_no_tls_and_fetches_nothing() -> None:
    router = respx.Router(base_url="http://127.0.0.1:27123")

    assert (
        await resolve_verify(https_settings(protocol="http", port=27123), transport=mock(router))
        is True
    )
    assert router.calls.call_count == 0


async def test_obsidian_cert_is_pinned_exactly(plugin_cert: PluginCert, tmp_path: Path) -> None:
    cert_file, _key = plugin_cert.write(tmp_path)
    router = respx.Router(base_url=HTTPS_BASE)

    context = await resolve_verify(https_settings(cert=cert_file), transport=mock(router))

    assert pinned_serials(context) == [plugin_cert.serial]
    assert isinstance(context, ssl.SSLContext)
    assert context.check_hostname is True
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.verify_flags & ssl.VERIFY_X509_PARTIAL_CHAIN
    assert not context.verify_flags & ssl.VERIFY_X509_STRICT
    assert router.calls.call_count == 0


async def test_obsidian_cert_wins_over_verify_false_with_a_warning(
    plugin_cert: PluginCert, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cert_file, _key = plugin_cert.write(tmp_path)

    context = await resolve_verify(https_settings(cert=cert_file, verify_ssl=False))

    assert pinned_serials(context) == [plugin_cert.serial]
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "OBSIDIAN_VERIFY_SSL=false is ignored" in caplog.text


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("not a certificate\n", id="text"),
        pytest.param("", id="empty"),
        pytest.param(
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", id="bad-pem"
        ),
    ],
)
async def test_obsidian_cert_that_is_not_a_pem_is_a_config_error(
    tmp_path: Path, content: str
) -> None:
    cert_file = tmp_path / "plugin.crt"
    cert_file.write_text(content, encoding="utf-8")

    with pytest.raises(ConfigError, match="is not a PEM certificate"):
        await resolve_verify(https_settings(cert=cert_file))


async def test_obsidian_cert_that_cannot_be_read_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be read"):
        await resolve_verify(https_settings(cert=tmp_path / "gone.crt"))


@pytest.mark.parametrize(
    "content",
    [pytest.param("not a certificate\n", id="not-a-pem"), pytest.param(None, id="unreadable")],
)
def test_an_obsidian_cert_error_names_the_configured_host_and_port(
    tmp_path: Path, content: str | None
) -> None:
    cert_file = tmp_path / "plugin.crt"
    if content is not None:
        cert_file.write_text(content, encoding="utf-8")
    settings = https_settings(host="192.168.1.20", port=27200, cert=cert_file)

    with pytest.raises(ConfigError) as caught:
        check_certificate(settings)

    assert f"https://192.168.1.20:27200{CERTIFICATE_PATH}" in str(caught.value)
    assert "27124" not in str(caught.value)


async def test_verify_false_turns_checks_off_for_this_client_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    router = respx.Router(base_url=HTTPS_BASE)

    verify = await resolve_verify(https_settings(verify_ssl=False), transport=mock(router))

    assert verify is False
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "only vaultgate's connection" in caplog.text
    assert API_KEY not in caplog.text
    assert router.calls.call_count == 0


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
async def test_loopback_fetches_the_plugin_cert_and_pins_it(
    plugin_cert: PluginCert, host: str
) -> None:
    settings = https_settings(host=host)
    router = respx.Router(base_url=settings.base_url)
    route = router.get(CERTIFICATE_PATH).respond(
        200,
        content=plugin_cert.cert_pem.encode("ascii"),
        headers={"Content-Type": "application/octet-stream"},
    )

    context = await resolve_verify(settings, transport=mock(router))

    assert pinned_serials(context) == [plugin_cert.serial]
    assert isinstance(context, ssl.SSLContext)
    assert context.check_hostname is True
    assert "Authorization" not in route.calls.last.request.headers  # the key is not sent


@pytest.mark.parametrize(
    "outcome",
    [
        pytest.param(
            httpx.Response(404, json={"message": "Not Found", "errorCode": 40400}), id="404"
        ),
        pytest.param(httpx.Response(200, text="<html>hello</html>"), id="not-pem"),
        pytest.param(
            httpx.Response(
                200, text="-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"
            ),
            id="broken-pem",
        ),
        pytest.param(httpx.ConnectError("refused"), id="refused"),
        pytest.param(httpx.ReadTimeout("slow"), id="timeout"),
    ],
)
async def test_a_failed_cert_fetch_falls_back_to_the_system_store(
    plugin_cert: PluginCert, outcome: httpx.Response | Exception
) -> None:
    router = respx.Router(base_url=HTTPS_BASE)
    route = router.get(CERTIFICATE_PATH).mock(side_effect=[outcome])

    context = await resolve_verify(https_settings(), transport=mock(router))

    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is True
    assert plugin_cert.serial not in pinned_serials(context)
    assert route.call_count == 1


@pytest.mark.parametrize("host", ["obsidian.example.com", "192.168.1.20", "10.0.0.5"])
async def test_a_remote_host_never_fetches_and_uses_the_system_store(host: str) -> None:
    router = respx.Router(base_url=f"https://{host}:27124", assert_all_mocked=False)

    context = await resolve_verify(https_settings(host=host), transport=mock(router))

    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is True
    assert router.calls.call_count == 0


# --- real TLS handshakes with a plugin-like server ------------------------------------------


async def status_over_tls(settings: ObsidianSettings) -> bool:
    client = ObsidianClient(settings, await build_http_client(settings))
    try:
        return (await client.status()).authenticated
    finally:
        await client.aclose()


async def test_the_fetched_cert_is_pinned_and_works(tls_server: PluginServer) -> None:
    assert await status_over_tls(tls_server.settings()) is True


async def test_obsidian_cert_works_over_tls(tls_server: PluginServer, tmp_path: Path) -> None:
    cert_file, _key = tls_server.cert.write(tmp_path)

    assert await status_over_tls(tls_server.settings(cert=cert_file)) is True


async def test_another_vaults_cert_is_a_tls_error(
    tls_server: PluginServer, other_cert: PluginCert, tmp_path: Path
) -> None:
    cert_file, _key = other_cert.write(tmp_path)

    with pytest.raises(ObsidianTLSError) as caught:
        await status_over_tls(tls_server.settings(cert=cert_file))
    assert caught.value.url == f"https://127.0.0.1:{tls_server.port}"
    assert caught.value.detail
    assert caught.value.trust == "file"
    assert "download it again" in str(caught.value)


async def test_without_the_cert_route_the_system_store_refuses_the_plugin(
    tls_server_without_cert_route: PluginServer,
) -> None:
    with pytest.raises(ObsidianTLSError, match="self-signed"):
        await status_over_tls(tls_server_without_cert_route.settings())


async def test_hostname_checks_stay_on_for_a_pinned_cert(tls_server: PluginServer) -> None:
    """The plugin's cert names IP:127.0.0.1 only, so 'localhost' does not match it."""
    with pytest.raises(ObsidianTLSError) as caught:
        await status_over_tls(tls_server.settings(host="localhost"))
    assert "localhost" in caught.value.detail
    # The certificate was fetched automatically: no advice to set OBSIDIAN_CERT.
    assert caught.value.trust == "fetched"
    assert "OBSIDIAN_CERT is not needed" in str(caught.value)
    assert "Point OBSIDIAN_CERT" not in str(caught.value)


async def test_verify_false_affects_only_this_client(tls_server: PluginServer) -> None:
    assert await status_over_tls(tls_server.settings(verify_ssl=False)) is True

    async with httpx.AsyncClient() as default_client:
        with pytest.raises(httpx.ConnectError):
            await default_client.get(f"https://127.0.0.1:{tls_server.port}/")


# --- http and https mixed up: named as doctor names them --------------------------------------


async def test_http_sent_to_the_https_port_names_the_mix_up(tls_server: PluginServer) -> None:
    with pytest.raises(WrongProtocol) as caught:
        await status_over_tls(tls_server.settings(protocol="http"))

    assert caught.value.spoken == "https"
    assert f"port {tls_server.port} speaks https, not plain http" in str(caught.value)
    assert "Set OBSIDIAN_PROTOCOL=https" in str(caught.value)
    assert "not reachable" not in str(caught.value)


async def test_https_sent_to_the_http_port_names_the_mix_up(plain_server: PluginServer) -> None:
    with pytest.raises(WrongProtocol) as caught:
        await status_over_tls(plain_server.settings())

    assert caught.value.spoken == "http"
    assert f"port {plain_server.port} speaks plain http, not https" in str(caught.value)
    assert "Set OBSIDIAN_PROTOCOL=http" in str(caught.value)


async def test_the_right_protocol_on_the_http_port_works(plain_server: PluginServer) -> None:
    assert await status_over_tls(plain_server.settings(protocol="http")) is True


async def test_a_port_nobody_listens_on_stays_unreachable() -> None:
    with pytest.raises(ObsidianUnreachable) as caught:
        await status_over_tls(loopback_settings(free_port(), protocol="http"))

    assert type(caught.value) is ObsidianUnreachable


# --- a certificate that follows the plugin ---------------------------------------------------


class RegeneratingPlugin:
    """A plugin-like https server whose certificate can be replaced, as its settings' "regenerate"
    button does; counts the requests for its certificate."""

    def __init__(self, cert: PluginCert, folder: Path) -> None:
        self.folder = folder
        self.certificate_requests = 0
        self.cert = cert
        self.context = self._context_for(cert)

    def regenerate(self) -> None:
        self.cert = make_plugin_cert()
        self.context = self._context_for(self.cert)

    def _context_for(self, cert: PluginCert) -> ssl.SSLContext:
        cert_file, key_file = cert.write(self.folder)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        return context


@contextmanager
def regenerating_plugin(plugin: RegeneratingPlugin, port: int = 0) -> Iterator[int]:
    """Serve ``plugin`` on 127.0.0.1:``port`` in a background thread; yields the port."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == CERTIFICATE_PATH:
                plugin.certificate_requests += 1
                self._answer("application/octet-stream", plugin.cert.cert_pem.encode("ascii"))
            else:
                self._answer("application/json", json.dumps(root_answer()).encode())

        def _answer(self, content_type: str, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

        def get_request(self) -> tuple[Any, Any]:
            sock, address = self.socket.accept()
            return plugin.context.wrap_socket(sock, server_side=True), address

    server = Server(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def loopback_settings(port: int, **changes: Any) -> ObsidianSettings:
    return https_settings(host="127.0.0.1", port=port, **changes)


async def test_building_the_client_sends_nothing_even_to_a_hung_obsidian() -> None:
    with socket.socket() as hung:  # accepts connections (the kernel does) and never answers
        hung.bind(("127.0.0.1", 0))
        hung.listen(4)
        settings = loopback_settings(hung.getsockname()[1], timeout=60.0)
        with anyio.fail_after(10):  # the old client waited the whole 60 s timeout here
            http = await build_http_client(settings)
        await http.aclose()


async def test_the_certificate_is_fetched_by_the_first_request_only(
    plugin_cert: PluginCert, tmp_path: Path
) -> None:
    plugin = RegeneratingPlugin(plugin_cert, tmp_path)
    with regenerating_plugin(plugin) as port:
        client = ObsidianClient(
            loopback_settings(port), await build_http_client(loopback_settings(port))
        )
        try:
            fetched_at_start = plugin.certificate_requests
            await client.status()
            await client.refresh_status()
        finally:
            await client.aclose()

    assert fetched_at_start == 0
    assert plugin.certificate_requests == 1


async def test_a_regenerated_certificate_is_fetched_again_and_the_request_retried(
    plugin_cert: PluginCert, tmp_path: Path
) -> None:
    plugin = RegeneratingPlugin(plugin_cert, tmp_path)
    with regenerating_plugin(plugin) as port:
        settings = loopback_settings(port)
        client = ObsidianClient(settings, await build_http_client(settings))
        try:
            await client.status()
            plugin.regenerate()
            status = await client.refresh_status()
        finally:
            await client.aclose()

    assert status.authenticated is True
    assert plugin.certificate_requests == 2


async def test_an_obsidian_started_later_is_found_by_the_next_request(
    plugin_cert: PluginCert, tmp_path: Path
) -> None:
    port = free_port()
    settings = loopback_settings(port)
    client = ObsidianClient(settings, await build_http_client(settings))
    try:
        with pytest.raises(ObsidianUnreachable):
            await client.status()
        plugin = RegeneratingPlugin(plugin_cert, tmp_path)
        with regenerating_plugin(plugin, port):
            status = await client.refresh_status()
    finally:
        await client.aclose()

    assert status.authenticated is True
    assert plugin.certificate_requests == 1
