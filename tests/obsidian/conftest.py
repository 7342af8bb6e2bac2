"""Fixtures for the Local REST API client: respx routes, plugin-like certificates, a TLS server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import respx
from obsidian_fakes import (
    API_KEY,
    HTTP_BASE,
    PluginCert,
    PluginServer,
    make_plugin_cert,
    plugin_server,
)

from vaultgate.config import ObsidianSettings, Secret
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client


@pytest.fixture
def settings() -> ObsidianSettings:
    """The plugin's plain-http port, so no certificate fetch gets in the way of request tests."""
    return ObsidianSettings(
        api_key=Secret(API_KEY), protocol="http", port=27123, timeout=2.0, search_timeout=30.0
    )


@pytest.fixture
def router() -> respx.Router:
    """Routes behind the client's injected transport; an unrouted request fails the test."""
    return respx.Router(base_url=HTTP_BASE, assert_all_called=False)


@pytest.fixture
async def client(settings: ObsidianSettings, router: respx.Router) -> AsyncIterator[ObsidianClient]:
    http = await build_http_client(settings, transport=httpx.MockTransport(router.async_handler))
    obsidian = ObsidianClient(settings, http)
    yield obsidian
    await obsidian.aclose()


@pytest.fixture(scope="session")
def plugin_cert() -> PluginCert:
    return make_plugin_cert()


@pytest.fixture(scope="session")
def other_cert() -> PluginCert:
    """Another vault's certificate: the same shape, another key."""
    return make_plugin_cert()


@pytest.fixture
def tls_server(plugin_cert: PluginCert, tmp_path: Path) -> Iterator[PluginServer]:
    """The plugin's https port, serving its certificate at /obsidian-local-rest-api.crt."""
    with plugin_server(plugin_cert, tmp_path, serve_certificate=True) as server:
        yield server


@pytest.fixture
def plain_server(plugin_cert: PluginCert, tmp_path: Path) -> Iterator[PluginServer]:
    """The plugin's plain http port (its non-encrypted server, once enabled)."""
    with plugin_server(plugin_cert, tmp_path, serve_certificate=True, tls=False) as server:
        yield server


@pytest.fixture
def tls_server_without_cert_route(
    plugin_cert: PluginCert, tmp_path: Path
) -> Iterator[PluginServer]:
    with plugin_server(plugin_cert, tmp_path, serve_certificate=False) as server:
        yield server
