"""`vaultgate emulate` as a user runs it: a process that says where it listens and its key."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from vaultgate.demo import fixture_vault

pytestmark = pytest.mark.e2e


def test_emulate_prints_its_urls_and_key_and_serves_the_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vaultgate",
            "emulate",
            "--vault",
            str(vault),
            "--port",
            "0",
            "--http-port",
            "0",
            "--plugin-version",
            "4.1.7",
            "--api-key",
            "k" * 64,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("OBSIDIAN_")},
    )
    try:
        assert process.stderr is not None
        announced = ""
        while "k" * 64 not in announced:
            line = process.stderr.readline()
            assert line, f"emulate exited early: {announced}"
            announced += line
        http_url = re.search(r"http://127\.0\.0\.1:\d+", announced)
        assert http_url is not None, announced
        assert re.search(r"https://127\.0\.0\.1:\d+", announced), announced

        root = httpx.get(http_url.group(0) + "/", timeout=10).json()
        listing = httpx.get(
            http_url.group(0) + "/vault/Daily/",
            headers={"Authorization": f"Bearer {'k' * 64}"},
            timeout=10,
        ).json()
    finally:
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=30)

    assert root["versions"]["self"] == "4.1.7"
    assert len(listing["files"]) == 5
    assert stdout == ""
    assert process.returncode == 0


# A hang guard, not a measurement: the emulator used to wait 30 s (asyncio's TLS shutdown
# timeout) for an idle keep-alive client to answer TLS's close.
STOP_BOUND = 10.0


@pytest.mark.parametrize("extra", [[], ["--http-port", "0"]], ids=["https", "https-and-http"])
def test_ctrl_c_stops_it_while_a_client_holds_a_connection_open(
    tmp_path: Path, extra: list[str]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "note.md").write_text("a note\n", encoding="utf-8")
    command = [sys.executable, "-m", "vaultgate", "emulate", "--vault", str(vault), "--port", "0"]
    process = subprocess.Popen(
        [*command, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("OBSIDIAN_")},
    )
    clients: list[httpx.Client] = []
    try:
        assert process.stderr is not None
        announced = ""
        while "Ctrl-C" not in announced:
            line = process.stderr.readline()
            assert line, f"emulate exited early: {announced}"
            announced += line
        for url in re.findall(r"https?://127\.0\.0\.1:\d+", announced):
            client = httpx.Client(base_url=url, verify=False, timeout=10)  # its own certificate
            clients.append(client)
            assert client.get("/").status_code == 200  # the connection stays open, idle

        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        try:
            process.wait(timeout=STOP_BOUND)
        except subprocess.TimeoutExpired:
            pytest.fail(f"emulate still ran {time.monotonic() - started:.0f} s after Ctrl-C")
    finally:
        for client in clients:
            client.close()
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)

    assert len(clients) == 1 + len(extra) // 2
    assert process.returncode == 0
