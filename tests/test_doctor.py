"""`vaultgate doctor` against the emulator: each failure names its likely fix."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultgate.config import Settings
from vaultgate.doctor import Check, render, run_checks
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.emulator.tls import make_self_signed_certificate

pytestmark = pytest.mark.anyio


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[RunningEmulator]:
    (tmp_path / "note.md").write_text("# Note\n", encoding="utf-8")
    with start_emulator(tmp_path, plugin_version="4.1.7") as running:
        yield running


def port_of(url: str | None) -> str:
    assert url is not None
    return url.rsplit(":", 1)[1]


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_healthy_setup_passes_every_check(emulator: RunningEmulator) -> None:
    env = {"OBSIDIAN_API_KEY": emulator.api_key, "OBSIDIAN_PORT": port_of(emulator.https_url)}

    checks = by_name(await run_checks(Settings.from_env(env)))

    assert all(check.ok for check in checks.values()), render(list(checks.values()))
    assert "4.1.7" in checks["plugin"].detail
    assert "pinned" in checks["TLS"].detail
    assert "dataview_search" in checks["not in this version"].detail


async def test_a_wrong_key_fails_with_where_to_copy_it(emulator: RunningEmulator) -> None:
    env = {"OBSIDIAN_API_KEY": "wrong", "OBSIDIAN_PORT": port_of(emulator.https_url)}

    check = by_name(await run_checks(Settings.from_env(env)))["API key"]

    assert not check.ok
    assert "Settings → Local REST API" in check.fix
    assert "wrong" not in render([check])


async def test_a_missing_key_fails() -> None:
    check = by_name(await run_checks(Settings.from_env({"OBSIDIAN_PORT": str(free_port())})))[
        "API key"
    ]

    assert not check.ok
    assert "OBSIDIAN_API_KEY" in check.fix


async def test_nothing_listening_says_open_obsidian() -> None:
    env = {"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": str(free_port())}

    check = by_name(await run_checks(Settings.from_env(env)))["reachable"]

    assert not check.ok
    assert "Open Obsidian" in check.fix


async def test_another_certificate_fails_tls_and_says_where_to_get_the_right_one(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    other = tmp_path / "other.crt"
    other.write_text(make_self_signed_certificate()[0], encoding="utf-8")
    env = {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": port_of(emulator.https_url),
        "OBSIDIAN_CERT": str(other),
    }

    check = by_name(await run_checks(Settings.from_env(env)))["reachable"]

    assert not check.ok
    assert "TLS" in check.detail
    assert "obsidian-local-rest-api.crt" in check.fix


async def test_turning_verification_off_is_reported(emulator: RunningEmulator) -> None:
    env = {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": port_of(emulator.https_url),
        "OBSIDIAN_VERIFY_SSL": "false",
    }

    checks = by_name(await run_checks(Settings.from_env(env)))

    assert "verification OFF" in checks["TLS"].detail
    assert checks["API key"].ok


def test_the_command_exits_non_zero_on_failure_and_zero_when_healthy(
    emulator: RunningEmulator,
) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OBSIDIAN_")}

    def doctor(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "vaultgate", "doctor"],
            env={**base, **env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    healthy = doctor(
        {"OBSIDIAN_API_KEY": emulator.api_key, "OBSIDIAN_PORT": port_of(emulator.https_url)}
    )
    broken = doctor({"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": str(free_port())})

    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert broken.returncode == 1
    assert "FAIL" in broken.stdout
    assert emulator.api_key not in healthy.stdout + healthy.stderr
