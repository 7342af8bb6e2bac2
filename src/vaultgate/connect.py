"""The backend the settings ask for: the plugin, the vault folder, or both (``auto``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from vaultgate.backend import Backend
from vaultgate.config import Settings
from vaultgate.folder.head_start import HeadStart
from vaultgate.locations import served_links
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client


@asynccontextmanager
async def open_backend(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    head_start: HeadStart | None = None,
) -> AsyncIterator[Backend]:
    """``obsidian``: the plugin; ``folder``: the folder alone; ``auto``: both (routed).

    The folder's file list is read here, in a worker thread (or taken from ``head_start``,
    the command line's child process), and what keeps it current (the vault index and its
    watcher) runs until the context ends; the plugin is never asked at start (its first
    request connects).
    """
    choice = settings.vault.backend
    folder = settings.vault.served_folder
    if folder is None:
        if head_start is not None:
            head_start.close()
        http = await build_http_client(settings.obsidian, transport=transport)
        client = ObsidianClient(settings.obsidian, http)
        try:
            yield client
        finally:
            await client.aclose()
        return
    from vaultgate.folder.backend import FolderBackend  # the engine, only when it serves

    links = served_links(settings.vault.follow_links)
    served = FolderBackend(
        folder, head_start=head_start, links=links
    )  # reads nothing yet: running() does
    async with served.running():
        if choice == "folder":
            yield served
            return
        from vaultgate.folder.routed import RoutedBackend

        http = await build_http_client(settings.obsidian, transport=transport)
        routed = RoutedBackend(served, ObsidianClient(settings.obsidian, http))
        try:
            yield routed
        finally:
            await routed.aclose()
