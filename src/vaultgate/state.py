"""What the server's lifespan owns and hands to every tool call."""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate.config import Settings
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.search import VaultSearcher


@dataclass(frozen=True, slots=True)
class AppState:
    settings: Settings
    client: ObsidianClient
    lister: VaultLister
    searcher: VaultSearcher

    @classmethod
    def create(cls, settings: Settings, client: ObsidianClient) -> AppState:
        return cls(
            settings=settings,
            client=client,
            lister=VaultLister(client),
            searcher=VaultSearcher(client),
        )
