"""get_server_info says which backend answers what."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import TextContent

from vaultgate.config import Settings
from vaultgate.emulator.runner import start_emulator
from vaultgate.server import build_server

FIXTURE_VAULT = Path(__file__).resolve().parents[2] / "fixtures" / "vault"


async def _info(env: dict[str, str]) -> dict[str, object]:
    settings = Settings.from_env(
        env | {"VAULTGATE_TOOLS": "full", "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("get_server_info", {})
    assert not result.is_error
    block = result.content[0]
    assert isinstance(block, TextContent)
    value = json.loads(block.text)
    assert isinstance(value, dict)
    return value


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE_VAULT, tmp_path / "vault"))


@pytest.mark.anyio
async def test_the_folder_backend_names_its_folder_and_what_needs_obsidian(vault: Path) -> None:
    info = await _info({"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": "folder"})
    assert info["backend"] == "folder"
    assert info["vaultFolder"] == str(vault.resolve())
    assert "the note open in Obsidian" in info["obsidianOnly"]  # type: ignore[operator]
    assert "obsidian" not in info
    features = info["features"]
    assert isinstance(features, dict)
    assert features["move"]["available"] is True


@pytest.mark.anyio
async def test_auto_reports_the_plugin_when_it_answers_and_why_not_when_closed(
    vault: Path,
) -> None:
    closed = await _info(
        {"VAULTGATE_VAULT": str(vault), "OBSIDIAN_API_KEY": "k" * 32, "OBSIDIAN_PORT": "9"}
    )
    assert closed["backend"] == "auto"
    assert closed["obsidian"]["answering"] is False  # type: ignore[index]
    with start_emulator(vault, plugin_version="4.1.7") as emulator:
        assert emulator.https_url is not None
        running = await _info(
            {
                "VAULTGATE_VAULT": str(vault),
                "OBSIDIAN_API_KEY": emulator.api_key,
                "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
                "OBSIDIAN_CERT": str(emulator.certificate_path),
            }
        )
    assert running["obsidian"]["plugin"] == "4.1.7"  # type: ignore[index]
    assert running["semantics"] == "Local REST API 5.1.1, served from the folder"


@pytest.mark.anyio
async def test_without_a_vault_folder_the_plugin_answers_everything(vault: Path) -> None:
    with start_emulator(vault) as emulator:
        assert emulator.https_url is not None
        info = await _info(
            {
                "OBSIDIAN_API_KEY": emulator.api_key,
                "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
                "OBSIDIAN_CERT": str(emulator.certificate_path),
            }
        )
    assert info["backend"] == "obsidian"
    assert info["plugin"] == "5.1.0"
    assert "vaultFolder" not in info
