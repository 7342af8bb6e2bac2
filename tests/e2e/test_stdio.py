"""The real thing: `vaultgate serve` as a subprocess over stdio, through the SDK's Client,
against the emulator over verified HTTPS on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import TextContent

from vaultgate.demo import fixture_vault, server_parameters
from vaultgate.emulator.runner import start_emulator

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def run_vaultgate(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))}
    return subprocess.run(
        [sys.executable, "-m", "vaultgate", *args],
        env={**clean, **env},
        stdin=subprocess.DEVNULL,  # `serve` reads MCP from stdin: nothing there, it ends
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_the_server_over_stdio_lists_reads_and_searches(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    with start_emulator(vault) as emulator:
        async with Client(server_parameters(emulator)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            listing = await client.call_tool("vault", {"operation": "list", "directory": "Daily"})
            note = await client.call_tool(
                "vault",
                {"operation": "read", "filename": "Daily/2026-11-21.md", "maxLength": 100},
            )
            search = await client.call_tool("vault", {"operation": "search", "query": "meeting"})

    assert {"discover", "vault", "active_file", "fetch", "memory"} == names
    assert not listing.is_error
    assert not note.is_error
    assert not search.is_error
    first = listing.content[0]
    assert isinstance(first, TextContent)
    assert len(json.loads(first.text)["files"]) == 5
    window = note.content[1]
    assert isinstance(window, TextContent)
    assert json.loads(window.text)["endIndex"] == 100


def test_serve_without_a_key_starts_and_ends_with_its_input() -> None:
    """No key is no reason to stop: the memory and SDD tools work without Obsidian, and the
    vault tools say what is missing (test_startup.py calls them). With nothing on stdin the
    server ends cleanly, as it does when the client goes away."""
    result = run_vaultgate("serve", env={"VAULTGATE_MEMORY_DB": ":memory:"})

    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "OBSIDIAN_API_KEY is not set" not in result.stderr  # what stopped it before
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": "http"}, "OBSIDIAN_PORT", id="port"
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PROTOCOL": "ftp"},
            "OBSIDIAN_PROTOCOL",
            id="protocol",
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_TIMEOUT": "-1"}, "OBSIDIAN_TIMEOUT", id="timeout"
        ),
        pytest.param({"OBSIDIAN_API_KEY": "clé-1234567890"}, "OBSIDIAN_API_KEY", id="key-accent"),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_CERT": "{not_a_certificate}"},
            "OBSIDIAN_CERT",
            id="cert-not-pem",
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_CERT": "{binary}"},
            "OBSIDIAN_CERT",
            id="cert-binary",
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_HOST": "127.0.0.1:27124"},
            "OBSIDIAN_HOST",
            id="host-with-port",
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": "{not_a_certificate}/memory.db"},
            "VAULTGATE_MEMORY_DB",
            id="memory-db-under-a-file",
        ),
        pytest.param(
            {"OBSIDIAN_API_KEY": "k", "VAULTGATE_HTTP_TOKEN": "é" * 20},
            "VAULTGATE_HTTP_TOKEN",
            id="token-accent",
        ),
        pytest.param(
            {"VAULTGATE_VAULT": "{missing}"}, "VAULTGATE_VAULT", id="vault-folder-missing"
        ),
        pytest.param(
            {"VAULTGATE_VAULT": "{not_a_certificate}"}, "VAULTGATE_VAULT", id="vault-is-a-file"
        ),
        pytest.param(
            {"VAULTGATE_VAULT": "{under_a_file}"}, "VAULTGATE_VAULT", id="vault-under-a-file"
        ),
        pytest.param({"VAULTGATE_BACKEND": "folder"}, "VAULTGATE_VAULT", id="folder-no-vault"),
        pytest.param({"VAULTGATE_BACKEND": "files"}, "VAULTGATE_BACKEND", id="backend-unknown"),
    ],
)
@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_a_bad_setting_stops_the_server_with_one_line(
    env: dict[str, str], expected: str, command: str, tmp_path: Path
) -> None:
    not_a_certificate = tmp_path / "plugin.crt"
    not_a_certificate.write_text("not a certificate\n", encoding="utf-8")
    binary = tmp_path / "binary.crt"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    places = {
        "not_a_certificate": str(not_a_certificate),
        "binary": str(binary),
        "missing": str(tmp_path / "no such vault"),
        "under_a_file": str(not_a_certificate / "inner"),
    }
    env = {name: value.format(**places) for name, value in env.items()}

    result = run_vaultgate(command, env=env)

    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert expected in lines[0]
    assert "Traceback" not in result.stderr


def test_the_demo_runs_to_the_end() -> None:
    result = run_vaultgate("demo", env={})

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Demo complete." in result.stdout


def test_the_folder_demo_works_with_obsidian_closed_and_leaves_the_vault_alone(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))

    result = run_vaultgate("demo", "--vault", str(vault), env={})

    assert result.returncode == 0, result.stdout + result.stderr
    for step in ("List every file", "Search for 'meeting'", "Patch it", "Move it"):
        assert f"▶ {step}" in result.stdout
    assert "needs Obsidian running with the Local REST API plugin" in result.stdout
    assert "Demo complete." in result.stdout
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before
