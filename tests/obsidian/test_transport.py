"""The httpx client's set-up: key header, timeout, and what its TLS trusts (never the process's)."""

from __future__ import annotations

import logging
import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from obsidian_fakes import API_KEY, PluginCert, PluginServer

from vaultgate.config import ObsidianSettings, Secret
from vaultgate.errors import ConfigError, ObsidianTLSError
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import (
    CERTIFICATE_PATH,
    build_http_client,
    resolve_verify,
)

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
        await http.get("/")

    assert route.calls.last.request.headers["Authorization"] == f"Bearer {API_KEY}"


async def test_without_a_key_no_authorization_header_is_sent() -> None:
    settings = ObsidianSettings(protocol="http", port=27123)
    router = respx.Router(base_url="http://127.0.0.1:27123")
    route = router.get("/").respond(200, json={})

    async with await build_http_client(settings, transport=mock(router)) as http:
        await http.get("/")

    assert "Authorization" not in route.calls.last.request.headers


@pytest.mark.parametrize(
    ("host", "trust_env"),
    [
        pytest.param("127.0.0.1", False, id="loopback-ignores-proxy-variables"),
        pytest.param("obsidian.example.com", True, id="remote-may-use-a-proxy"),
    ],
)
async def test_environment_proxies_are_only_trusted_for_remote_hosts(
    host: str, trust_env: bool
) -> None:
    settings = https_settings(protocol="http", host=host)

    async with await build_http_client(settings) as http:
        assert http.trust_env is trust_env


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


async def test_verify_false_affects_only_this_client(tls_server: PluginServer) -> None:
    assert await status_over_tls(tls_server.settings(verify_ssl=False)) is True

    async with httpx.AsyncClient() as default_client:
        with pytest.raises(httpx.ConnectError):
            await default_client.get(f"https://127.0.0.1:{tls_server.port}/")
