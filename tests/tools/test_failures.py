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
    """Passes requests to the emulator, but drops the connection where ``rule`` says so:
    before sending (``after_sending=False``), or once the emulator has applied the request
    and before its answer arrives."""

    def __init__(self, rule: Rule, *, after_sending: bool = False) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._rule = rule
        self._after_sending = after_sending

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self._rule(request):
            return await self._inner.handle_async_request(request)
        if not self._after_sending:
            raise httpx.ConnectError("connection refused", request=request)
        response = await self._inner.handle_async_request(request)
        await response.aclose()
        raise httpx.ReadError("connection reset by peer", request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def dropping_client(
    emulator: RunningEmulator, rule: Rule, *, after_sending: bool = False
) -> AsyncIterator[Client]:
    assert emulator.http_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PROTOCOL": "http",
            "OBSIDIAN_PORT": emulator.http_url.rsplit(":", 1)[1],
            "VAULTGATE_TOOLS": "full",
        }
    )
    transport = DroppingTransport(rule, after_sending=after_sending)
    async with Client(build_server(settings, transport=transport)) as client:
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
    [failed] = report["failed"]
    assert failed["path"] == listed[2]
    assert failed["reason"].startswith("still there")
    assert report["notAttempted"] == listed[3:]
    assert "Stopped at" in report["stopped"]
    assert "not reachable" in report["stopped"]
    for path in report["deleted"]:
        assert not (vault / path).exists()
    for path in [failed["path"], *report["notAttempted"]]:
        assert (vault / path).exists()


async def test_a_file_deleted_before_the_connection_dropped_is_reported_deleted(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    emulator = emulator_factory(http_port=0)
    arguments = {"pattern": "Daily/*.md", "limit": 5}

    async with dropping_client(emulator, nth("DELETE", 2), after_sending=True) as client:
        listed = payload(await client.call_tool("bulk_delete_files", arguments))["files"]
        report = payload(
            await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False})
        )

    assert report["deleted"] == listed[:2]  # the second was applied, its answer lost
    assert report["notAttempted"] == listed[2:]
    assert "failed" not in report or report["failed"] == []
    for path in report["deleted"]:
        assert not (vault / path).exists()
    for path in report["notAttempted"]:
        assert (vault / path).exists()


async def test_a_file_whose_fate_cannot_be_checked_is_reported_unknown(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    emulator = emulator_factory(http_port=0)
    arguments = {"pattern": "Daily/*.md", "limit": 5}
    deletes = nth("DELETE", 1)
    lookups = nth("GET", 1, "/vault/Daily/2026")  # the look-up after the drop, and any later

    def rule(request: httpx.Request) -> bool:
        return deletes(request) or lookups(request)

    async with dropping_client(emulator, rule, after_sending=True) as client:
        listed = payload(await client.call_tool("bulk_delete_files", arguments))["files"]
        report = payload(
            await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False})
        )

    assert report["deleted"] == []
    assert report["unknown"]["paths"] == listed[:1]
    assert report["notAttempted"] == listed[1:]


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
