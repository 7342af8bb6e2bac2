"""An emulator serving a copy of the sample vault over plain HTTP, and a client for it.

The emulator indexes the vault when it starts, so a test that adds notes writes them first and
then asks for ``emulator`` (or ``start``s one itself).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.vault.listing import VaultLister

FIXTURE_VAULT = Path(__file__).resolve().parents[2] / "fixtures" / "vault"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, copy)
    return copy


@pytest.fixture
def start(vault: Path) -> Iterator[Callable[[], RunningEmulator]]:
    started: list[RunningEmulator] = []

    def run() -> RunningEmulator:
        started.append(start_emulator(vault, https_port=None, http_port=0))
        return started[-1]

    yield run
    for emulator in started:
        emulator.stop()


@pytest.fixture
def emulator(start: Callable[[], RunningEmulator]) -> RunningEmulator:
    return start()


def http_settings(emulator: RunningEmulator) -> Settings:
    assert emulator.http_url is not None
    return Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PROTOCOL": "http",
            "OBSIDIAN_PORT": emulator.http_url.rsplit(":", 1)[1],
        }
    )


@pytest.fixture
async def client(emulator: RunningEmulator) -> AsyncIterator[ObsidianClient]:
    settings = http_settings(emulator).obsidian
    obsidian = ObsidianClient(settings, await build_http_client(settings))
    yield obsidian
    await obsidian.aclose()


@pytest.fixture
def lister(client: ObsidianClient) -> VaultLister:
    return VaultLister(client)


def write(vault: Path, path: str, text: str) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
