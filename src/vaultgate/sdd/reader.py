"""Reading the SDD folder through the guarded Obsidian client: the inventory, then artifacts.

The inventory comes from the lister's recursive walk (cached briefly, dropped after any write
through vaultgate), so repeated calls cost one walk. Artifacts are read concurrently, a few at a
time; the first failure stops the remaining reads, so an Obsidian that stopped answering costs
one timeout, not one per file.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultgate.backend import Backend
from vaultgate.errors import (
    APIKeyMissing,
    AuthenticationFailed,
    NotFound,
    ObsidianError,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
)
from vaultgate.paths import normalize_directory
from vaultgate.sdd.layout import STAGES, ChangeLayout, Inventory, Stage, parse_inventory
from vaultgate.sdd.models import Artifact, Change
from vaultgate.vault.concurrent import map_bounded
from vaultgate.vault.listing import VaultLister

# The failures that mean "the vault cannot be reached at all": the SDD tools then answer with
# their memory part and say why the vault part is missing, instead of failing as a whole.
VAULT_DOWN: tuple[type[ObsidianError], ...] = (
    ObsidianUnreachable,
    ObsidianTimeout,
    ObsidianTLSError,
    AuthenticationFailed,
)


class SddVault:
    """The SDD folder of one vault, as the guarded client lets this server see it."""

    def __init__(self, client: Backend, lister: VaultLister, folder: str) -> None:
        self._client = client
        self._lister = lister
        self.folder = normalize_directory(folder)

    async def inventory(self) -> Inventory:
        """Every project and change below the folder; ``exists=False`` when there is none."""
        folder = self.folder
        try:
            paths = await self._lister.list_recursive(folder)
        except NotFound:
            # the setting in another letter case or Unicode form than the vault's folder
            spelled = await self._lister.find_folder(folder) if folder else None
            if spelled is None or spelled == folder:
                return Inventory(folder=folder, exists=False)
            folder = spelled
            paths = await self._lister.list_recursive(folder)
        return parse_inventory(folder, paths)

    async def load(
        self, layouts: Sequence[ChangeLayout], stages: Sequence[Stage] = STAGES
    ) -> list[Change]:
        """The changes with the text of their ``stages`` that exist, in the order given."""
        wanted = [
            (layout, stage) for layout in layouts for stage in stages if stage in layout.stages
        ]
        texts = await self._read_all([layout.stages[stage] for layout, stage in wanted])
        return [
            Change(
                layout=layout,
                artifacts=tuple(
                    Artifact(stage=stage, path=path, content=texts[path])
                    for stage in stages
                    if (path := layout.stages.get(stage)) is not None and path in texts
                ),
            )
            for layout in layouts
        ]

    async def _read_all(self, paths: Sequence[str]) -> dict[str, str]:
        async def read(path: str) -> str | None:
            try:
                return (await self._client.read_note(path)).content
            except NotFound:
                return None  # deleted since the (cached) listing: reported as a missing stage

        texts = await map_bounded(paths, read)
        return {path: text for path, text in zip(paths, texts, strict=True) if text is not None}


def unavailable_reason(error: ObsidianError) -> str:
    """Why the vault part is missing, in one line without a trailing full stop."""
    match error:
        case ObsidianUnreachable():
            return f"Obsidian is not reachable at {error.url}"
        case ObsidianTimeout():
            return f"Obsidian at {error.url} did not answer within {error.seconds:g} s"
        case ObsidianTLSError():
            return f"the TLS connection to {error.url} failed ({error.detail})"
        case APIKeyMissing():
            return "OBSIDIAN_API_KEY is not set (Obsidian → Settings → Local REST API shows it)"
        case AuthenticationFailed():
            return "Obsidian rejected the API key (OBSIDIAN_API_KEY)"
        case _:
            return str(error).split(". ", 1)[0].rstrip(".")
