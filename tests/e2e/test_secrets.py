"""The API key and the HTTP token never reach a log line or an answer, even with -v (debug
logging of the SDK, httpx and httpcore) and even when the key was pasted with a stray tab."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from vaultgate.demo import fixture_vault
from vaultgate.emulator.runner import RunningEmulator, start_emulator

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

KEY = "9f2c" * 16  # the plugin's keys are 64 hex digits
TOKEN = "tok-" + "7a1b" * 8


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[RunningEmulator]:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    with start_emulator(vault, api_key=KEY) as running:
        yield running


def server_env(emulator: RunningEmulator, key: str) -> dict[str, str]:
    assert emulator.https_url is not None
    env = {
        "OBSIDIAN_API_KEY": key,
        "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
        "OBSIDIAN_CERT": str(emulator.certificate_path),
        "VAULTGATE_MEMORY_DB": ":memory:",
    }
    # The stdio client passes on only a few variables; the server must run this test's code.
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))}
    return {**kept, **extra}


@pytest.mark.parametrize(
    "pasted", [pytest.param(KEY, id="clean"), pytest.param(f"{KEY}\t\n", id="trailing-tab")]
)
async def test_serve_verbose_over_stdio_never_logs_the_key(
    emulator: RunningEmulator, tmp_path: Path, pasted: str
) -> None:
    errors = tmp_path / "stderr.txt"
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultgate", "serve", "-v"],
        env=server_env(emulator, pasted),
    )
    with errors.open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(parameters, errlog=errlog)) as client:
            listing = await client.call_tool("vault", {"operation": "list"})
            note = await client.call_tool(
                "vault", {"operation": "read", "filename": "Daily/2026-11-21.md"}
            )
            missing = await client.call_tool(
                "vault", {"operation": "read", "filename": "no/such/note.md"}
            )
    logged = errors.read_text(encoding="utf-8")

    answers = str([listing.content, note.content, missing.content])
    assert KEY not in logged
    assert KEY not in answers
    assert "DEBUG" in logged  # -v really logged at debug level
    assert not listing.is_error
    assert not note.is_error
    assert missing.is_error


@pytest.mark.parametrize(
    "pasted", [pytest.param(KEY, id="clean"), pytest.param(f"'{KEY}'\t", id="quoted-tab")]
)
def test_doctor_verbose_never_shows_the_key(emulator: RunningEmulator, pasted: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vaultgate", "doctor", "-v"],
        env=clean_env(server_env(emulator, pasted)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert KEY not in result.stderr
    assert KEY not in result.stdout
    assert "DEBUG" in result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    if pasted != KEY:
        notes = [line for line in result.stderr.splitlines() if "were removed" in line]
        assert len(notes) == 1


def test_serve_http_verbose_never_logs_the_token_or_the_key(emulator: RunningEmulator) -> None:
    env = clean_env({**server_env(emulator, KEY), "VAULTGATE_HTTP_TOKEN": f" {TOKEN} "})
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultgate", "serve", "--http", "--port", "0", "-v"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen: list[str] = []
    try:
        url = _wait_for_url(process, seen)
        headers = {"Accept": "application/json, text/event-stream"}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
        good = httpx.post(
            url, json=initialize, headers={**headers, "Authorization": f"Bearer {TOKEN}"}
        )
        bad = httpx.post(
            url, json=initialize, headers={**headers, "Authorization": f"Bearer {TOKEN}x"}
        )
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    logged = "".join(seen) + err  # every stderr line: the reader thread appends to seen

    assert good.status_code == 200
    assert bad.status_code == 401
    # the start summary comes first, once listening (never the key: see below)
    assert any(line.startswith("vaultgate 0") and "Obsidian at" in line for line in seen)
    assert TOKEN not in logged
    assert TOKEN not in out
    assert KEY not in logged
    assert KEY not in out


def _wait_for_url(process: subprocess.Popen[str], seen: list[str]) -> str:
    """Collect stderr into ``seen`` (a thread reads it to the end: select() cannot see lines
    Python has already buffered) and return the announced URL, waiting at most 60 s."""
    assert process.stderr is not None
    stderr = process.stderr
    arrived = threading.Event()

    def read() -> None:
        for line in stderr:
            seen.append(line)
            arrived.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in list(seen):
            if found := re.search(r"at (http://\S+/mcp)", line):
                return found.group(1)
        arrived.wait(1.0)
        arrived.clear()
    raise AssertionError("serve --http did not announce its URL: " + "".join(seen))
