"""The extension's settings as Claude Desktop hands them to the server.

Claude Desktop turns manifest.json and what the user typed into a command and an environment
with the official @anthropic-ai/mcpb library (``getMcpConfigForManifest``): a setting the user
leaves untouched takes the manifest's default, and one without a default stays the literal
``${user_config.NAME}``. Every way of leaving each setting blank (untouched, or emptied) or
filling it in is expanded by that library here, and each result must start a server that
answers ``initialize`` and ``tools/list``, reading each blank setting as unset.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from vaultgate import __version__
from vaultgate.config import Secret, Settings
from vaultgate.demo import fixture_vault
from vaultgate.server import build_server

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
EXPAND = Path(__file__).with_name("expand_manifest.mjs")
KEY = "e" * 64
UNTOUCHED, EMPTIED, FILLED = "untouched", "emptied", "filled"
STATES = (UNTOUCHED, EMPTIED, FILLED)
START_BOUND = 60.0  # per server start; far above what one takes, so never flaky

pytestmark = [pytest.mark.packaging, pytest.mark.anyio]

Combination = tuple[tuple[str, str], ...]  # (setting, state) for every user_config setting


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("extension") / "vault"
    shutil.copytree(fixture_vault(), copy)
    return copy


def filled_values(vault: Path) -> dict[str, Any]:
    """What a user types into each setting (the port as the number Claude Desktop keeps)."""
    return {
        "api_key": KEY,
        "host": "localhost",
        "port": 27125,
        "vault": str(vault),
        "tools": "full",
    }


@pytest.fixture(scope="module")
def expanded(mcpb_prefix: Path, vault: Path) -> dict[Combination, dict[str, Any]]:
    """Every combination of untouched, emptied and filled settings, expanded by mcpb: one
    Node process for all of them."""
    filled = filled_values(vault)
    combinations: list[Combination] = [
        tuple(zip(filled, states, strict=True))
        for states in itertools.product(STATES, repeat=len(filled))
    ]
    user_configs = [
        {name: filled[name] if state == FILLED else "" for name, state in c if state != UNTOUCHED}
        for c in combinations
    ]
    node = shutil.which("node")
    assert node is not None  # mcpb_prefix skips without Node.js
    done = subprocess.run(
        [node, str(EXPAND), str(mcpb_prefix), str(ROOT / "manifest.json"), str(ROOT)],
        input=json.dumps(user_configs),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    configs = json.loads(done.stdout)
    assert len(configs) == len(combinations)
    return dict(zip(combinations, configs, strict=True))


@pytest.fixture
def user_data_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default memory database's folder, for this process and the servers it starts."""
    data = tmp_path / "user-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    return data


def test_the_test_fills_in_every_setting_the_manifest_has(vault: Path) -> None:
    assert set(filled_values(vault)) == set(MANIFEST["user_config"])


def test_every_blank_setting_reads_as_unset_and_every_filled_one_as_typed(
    expanded: dict[Combination, dict[str, Any]], vault: Path, user_data_in_tmp: Path
) -> None:
    wrong = []
    for combination, config in expanded.items():
        assert config is not None, f"mcpb made no configuration for {combination}"
        env: dict[str, str] = config["env"]
        settings = Settings.from_env(env)
        filled = {name for name, state in combination if state == FILLED}
        seen = {
            "api_key": settings.obsidian.api_key,
            "host": settings.obsidian.host,
            "port": settings.obsidian.port,
            "vault": (settings.vault.folder, settings.vault.backend),
            "tools": settings.tools,
        }
        meant = {
            "api_key": Secret(KEY) if "api_key" in filled else None,
            "host": "localhost" if "host" in filled else "127.0.0.1",
            "port": 27125 if "port" in filled else 27124,
            "vault": (vault.resolve(), "auto") if "vault" in filled else (None, "obsidian"),
            "tools": "full" if "tools" in filled else "compact",
        }
        left_over = [name for name, value in env.items() if "${" in value]
        if seen != meant or settings.notices or left_over:
            wrong.append(f"{dict(combination)}: {env} read as {seen}, {settings.notices}")
    assert not wrong, f"{len(wrong)} of {len(expanded)} combinations:\n" + "\n".join(wrong[:5])


async def test_every_combination_starts_a_server_that_answers(
    expanded: dict[Combination, dict[str, Any]], user_data_in_tmp: Path
) -> None:
    """In-process, once for each distinct Settings: build_server reads nothing but them, so
    the 243 combinations need as many starts as they make distinct settings (32)."""
    distinct = {
        replace(Settings.from_env(config["env"]), notices=()) for config in expanded.values()
    }
    assert len(distinct) == 2 ** len(MANIFEST["user_config"])
    for settings in distinct:
        with anyio.fail_after(START_BOUND):
            async with Client(build_server(settings)) as client:
                server_info = client.server_info
                tools = (await client.list_tools()).tools
        assert server_info is not None
        assert server_info.name == "vaultgate"
        assert tools, settings


@pytest.mark.parametrize(
    "filled",
    [
        pytest.param((), id="nothing-filled"),
        pytest.param(("api_key",), id="only-the-key"),
        pytest.param(("vault",), id="only-the-vault"),
        pytest.param(tuple(MANIFEST["user_config"]), id="everything"),
    ],
)
async def test_the_command_claude_desktop_runs_starts_and_answers(
    expanded: dict[Combination, dict[str, Any]],
    filled: tuple[str, ...],
    tmp_path: Path,
    user_data_in_tmp: Path,
) -> None:
    """The expanded command and environment through vaultgate's real command line (``python -m
    vaultgate`` for ``uv run … vaultgate``: uv only supplies the interpreter)."""
    combination = tuple(
        (name, FILLED if name in filled else UNTOUCHED) for name in MANIFEST["user_config"]
    )
    config = expanded[combination]
    args: list[str] = config["args"]
    assert config["command"] == "uv"
    assert args[: args.index("vaultgate")] == ["run", "--directory", str(ROOT)]
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultgate", *args[args.index("vaultgate") + 1 :]],
        env={**config["env"], **_test_process_env()},
    )
    with (tmp_path / "stderr.txt").open("w+", encoding="utf-8") as errlog:
        with anyio.fail_after(START_BOUND):
            async with Client(stdio_client(server, errlog=errlog)) as client:
                server_info = client.server_info
                tools = (await client.list_tools()).tools
        errlog.seek(0)
        stderr = errlog.read()

    assert server_info is not None
    assert server_info.name == "vaultgate"
    assert tools
    # one line saying what the server uses, and no notice (those start "vaultgate: ")
    assert not [line for line in stderr.splitlines() if line.startswith("vaultgate: ")], stderr
    assert f"vaultgate {__version__}: " in stderr, stderr


def _test_process_env() -> Mapping[str, str]:
    """What the started server needs from this test process: this source tree on the path, and
    the user cache and data folders in the test's tmp_path (never the developer's own)."""
    names = ("PYTHONPATH", "XDG_CACHE_HOME", "XDG_DATA_HOME")
    return {name: os.environ[name] for name in names if name in os.environ}
