"""What the server's lifespan owns and hands to every tool call."""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate.config import Settings
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.vault.bulk_delete import BulkDeleter
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.search import VaultSearcher


@dataclass(frozen=True, slots=True)
class AppState:
    settings: Settings
    client: ObsidianClient
    lister: VaultLister
    searcher: VaultSearcher
    bulk: BulkDeleter

    @classmethod
    def create(cls, settings: Settings, client: ObsidianClient) -> AppState:
        lister = VaultLister(client)
        return cls(
            settings=settings,
            client=client,
            lister=lister,
            searcher=VaultSearcher(client),
            bulk=BulkDeleter(client, lister),
        )

    def vault_changed(self) -> None:
        """After a write through vaultgate, cached listings and search results are stale."""
        self.lister.invalidate()
        self.searcher.invalidate()
