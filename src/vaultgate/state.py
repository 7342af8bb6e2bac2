"""What the server's lifespan owns and hands to every tool call."""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate.backend import Backend
from vaultgate.config import Settings
from vaultgate.memory.gateway import MemoryGateway
from vaultgate.vault.bulk_delete import BulkDeleter
from vaultgate.vault.links import LinkReader
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.prompts import PromptLibrary
from vaultgate.vault.replace import Replacer
from vaultgate.vault.resource_changes import ResourceWatch
from vaultgate.vault.search import VaultSearcher
from vaultgate.web.pages import PageFetcher


@dataclass(frozen=True, slots=True)
class AppState:
    settings: Settings
    client: Backend
    lister: VaultLister
    searcher: VaultSearcher
    bulk: BulkDeleter
    replacer: Replacer  # search-and-replace: what each dry run showed
    web: PageFetcher  # fetch's own client: never the Obsidian one, never its key
    memory: MemoryGateway  # opens VAULTGATE_MEMORY_DB on the first mem_* call
    prompts: PromptLibrary  # MCP prompts from the notes of VAULTGATE_PROMPTS_FOLDER
    links: LinkReader  # every note's links, for broken_links, orphans and backlinks
    resources: ResourceWatch  # the files MCP clients subscribed to, and the notes they listed

    @classmethod
    def create(cls, settings: Settings, client: Backend) -> AppState:
        lister = VaultLister(client)
        return cls(
            settings=settings,
            client=client,
            lister=lister,
            searcher=VaultSearcher(client),
            bulk=BulkDeleter(client, lister),
            replacer=Replacer(client, lister),
            web=PageFetcher(settings.fetch),
            memory=MemoryGateway(settings.memory.db),
            prompts=PromptLibrary(client, lister, settings.prompts.folder),
            links=LinkReader(client, lister),
            resources=ResourceWatch(client),
        )

    def vault_changed(self) -> None:
        """After a write through vaultgate, cached listings and search results are stale."""
        self.lister.invalidate()
        self.searcher.invalidate()
        self.prompts.invalidate()
        self.links.invalidate()
        self.resources.invalidate()
