"""`vaultgate emulate` as a user runs it: a process that says where it listens and its key."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
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
