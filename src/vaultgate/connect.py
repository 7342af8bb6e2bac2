"""The backend the settings ask for: the plugin, the vault folder, or both (``auto``)."""

from __future__ import annotations

import anyio
import httpx

from vaultgate.backend import Backend
from vaultgate.config import Settings
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client


async def open_backend(
    settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
) -> Backend:
    """``obsidian``: the plugin; ``folder``: the folder alone; ``auto``: both (routed).

    The folder's file list is read here, in a worker thread; the plugin is never asked at
    start (its first request connects).
    """
    choice = settings.vault.backend
    folder = settings.vault.folder
    if choice == "obsidian" or folder is None:
        http = await build_http_client(settings.obsidian, transport=transport)
        return ObsidianClient(settings.obsidian, http)
    from vaultgate.folder.backend import FolderBackend  # the engine, only when it serves

    served = await anyio.to_thread.run_sync(FolderBackend, folder)
    if choice == "folder":
        return served
    from vaultgate.folder.routed import RoutedBackend

    http = await build_http_client(settings.obsidian, transport=transport)
    return RoutedBackend(served, ObsidianClient(settings.obsidian, http))
