"""SIGKILL in the middle of writes through the folder backend: no note is ever half written,
and the next start serves (and searches) exactly what is on disk."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from vaultgate.demo import fixture_vault

BIG = "Inbox/Big 🚀 note #1.md"


class _Server:
    """`vaultgate serve --vault` as a subprocess, spoken to in JSON-RPC lines."""

    def __init__(self, vault: Path, cache: Path) -> None:
        clean = {
            k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))
        }
        env = clean | {
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_TOOLS": "full",
            "VAULTGATE_MEMORY_DB": ":memory:",
            "XDG_CACHE_HOME": str(cache),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vaultgate", "serve", "--vault", str(vault)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "crash-test", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def call_later(self, name: str, arguments: dict[str, Any]) -> None:
        """Send a tool call without waiting for its answer."""
        self._id += 1
        params = {"name": name, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": self._id, "method": "tools/call", "params": params})

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._id += 1
        self.send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            assert line, f"the server exited ({self.process.poll()})"
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == self._id:
                return answer

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        assert not result.get("isError"), result
        return "".join(block["text"] for block in result["content"] if block["type"] == "text")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close_pipes()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                with suppress(BrokenPipeError):  # unsent bytes to a killed process
                    pipe.close()


def _text(marker: str) -> str:
    line = f"{marker} 日本語 line with 🚀 and CRLF\r\n"
    return line * (3_000_000 // len(line.encode("utf-8")))


def _tree(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in sorted(vault.rglob("*"))
        if p.is_file() and not p.name.endswith(".tmp")
    }


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
def test_sigkill_mid_write_leaves_whole_notes_and_the_next_start_agrees(
    tmp_path: Path, delay: float
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    cache = tmp_path / "cache"
    first, second = _text("alphaword"), _text("betaword")

    server = _Server(vault, cache)
    server.call("create_vault_file", {"filename": BIG, "content": first})
    before = _tree(vault)
    for n in range(6):
        content = second if n % 2 == 0 else first
        server.call_later(
            "create_vault_file", {"filename": BIG, "content": content, "overwrite": True}
        )
        server.call_later(
            "append_to_vault_file", {"filename": "Inbox/Quick capture.md", "content": f"- {n}\n"}
        )
    time.sleep(delay)
    server.kill()

    after = _tree(vault)
    assert after[BIG].decode("utf-8") in (first, second)  # old or new, never half
    appended = after["Inbox/Quick capture.md"].decode("utf-8")
    original = before["Inbox/Quick capture.md"].decode("utf-8")
    assert appended.startswith(original)
    added = [line for line in appended[len(original) :].splitlines() if line]
    assert all(line in {f"- {n}" for n in range(6)} for line in added), added
    untouched = {path for path in before if path not in (BIG, "Inbox/Quick capture.md")}
    assert {path: after[path] for path in untouched} == {path: before[path] for path in untouched}

    restarted = _Server(vault, cache)
    try:
        word = "alphaword" if after[BIG].decode("utf-8") == first else "betaword"
        other = "betaword" if word == "alphaword" else "alphaword"
        deadline = time.monotonic() + 60
        while True:  # the index catches up with the folder in the background at start
            found = json.loads(restarted.call("search_vault_simple", {"query": word, "limit": 5}))
            if [hit["filename"] for hit in found["results"]] == [
                BIG
            ] or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert [hit["filename"] for hit in found["results"]] == [BIG]
        missing = json.loads(restarted.call("search_vault_simple", {"query": other}))
        assert missing["results"] == []
        listed = json.loads(
            restarted.call("list_vault_files", {"recursive": True, "limit": 500, "layout": "flat"})
        )
        assert sorted(listed["files"]) == sorted(
            path for path in after if not any(part.startswith(".") for part in path.split("/"))
        )
    finally:
        restarted.close()
