"""Failures half-way: a dropped connection during bulk delete, a failing step of a move.

The server talks plain HTTP to the emulator through a transport that drops the connection on
chosen requests, as a crashed or closed Obsidian would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, error_text, payload

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

Rule = Callable[[httpx.Request], bool]  # drop the connection for this request?


def nth(method: str, n: int, path_part: str = "") -> Rule:
    """Drop the n-th and later requests with this method (and path fragment)."""
    seen = 0

    def rule(request: httpx.Request) -> bool:
        nonlocal seen
        if request.method != method or path_part not in request.url.path:
            return False
        seen += 1
        return seen >= n

    return rule


class DroppingTransport(httpx.AsyncBaseTransport):
    """Passes requests to the emulator, but drops the connection where ``rule`` says so."""

    def __init__(self, rule: Rule) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._rule = rule

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._rule(request):
            raise httpx.ConnectError("connection refused", request=request)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def dropping_client(emulator: RunningEmulator, rule: Rule) -> AsyncIterator[Client]:
    assert emulator.http_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PROTOCOL": "http",
            "OBSIDIAN_PORT": emulator.http_url.rsplit(":", 1)[1],
            "VAULTGATE_TOOLS": "full",
        }
    )
    async with Client(build_server(settings, transport=DroppingTransport(rule))) as client:
        yield client


async def test_bulk_delete_stops_at_a_dropped_connection_and_says_what_happened(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    emulator = emulator_factory(http_port=0)
    arguments = {"pattern": "Daily/*.md", "limit": 5}

    async with dropping_client(emulator, nth("DELETE", 3)) as client:
        listed = payload(await client.call_tool("bulk_delete_files", arguments))["files"]
        report = payload(
            await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False})
        )

    assert report["deleted"] == listed[:2]
    assert report["notAttempted"] == listed[2:]
    assert "Stopped at" in report["stopped"]
    assert "not reachable" in report["stopped"]
    for path in report["deleted"]:
        assert not (vault / path).exists()
    for path in report["notAttempted"]:
        assert (vault / path).exists()


@pytest.mark.parametrize(
    ("step", "rule"),
    [
        pytest.param("check", nth("GET", 1, "Archive"), id="existence-check-fails"),
        pytest.param("write", nth("PUT", 1), id="copy-fails"),
        pytest.param("verify", nth("GET", 2, "Archive"), id="verify-fails"),
        pytest.param("delete", nth("DELETE", 1), id="delete-fails"),
    ],
)
async def test_a_move_without_move_support_never_loses_the_note(
    emulator_factory: EmulatorFactory, vault: Path, step: str, rule: Rule
) -> None:
    emulator = emulator_factory(plugin_version="3.6.2", http_port=0)
    source = "Inbox/Quick capture.md"
    original = (vault / source).read_text(encoding="utf-8")

    async with dropping_client(emulator, rule) as client:
        error = error_text(
            await client.call_tool(
                "move_vault_file", {"source": source, "destination": "Archive/Quick capture.md"}
            )
        )

    assert "not reachable" in error
    assert (vault / source).read_text(encoding="utf-8") == original, step
