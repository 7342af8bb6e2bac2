"""The backend the settings ask for: the plugin, the vault folder, or both (``auto``)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx

from vaultgate.backend import Backend
from vaultgate.config import Settings
from vaultgate.discovery.finder import DiscoveryTiming, not_looked_for, serve_found_folder
from vaultgate.discovery.switching import SwitchingBackend
from vaultgate.folder.head_start import HeadStart
from vaultgate.locations import served_links
from vaultgate.logs import NOTICES
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client


@asynccontextmanager
async def open_backend(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    head_start: HeadStart | None = None,
    discovery: DiscoveryTiming | None = None,
    on_folder: Callable[[Path | None], None] | None = None,
) -> AsyncIterator[Backend]:
    """``obsidian``: the plugin; ``folder``: the folder alone; ``auto``: both (routed);
    ``auto`` without a folder: the plugin until the folder behind it is found in Obsidian's
    vault list and verified (``vaultgate.discovery``, in the background), then both.

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
            async with _discovering(settings, client, discovery, on_folder) as switching:
                yield switching
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


notices = logging.getLogger(NOTICES)


@asynccontextmanager
async def _discovering(
    settings: Settings,
    plugin: ObsidianClient,
    timing: DiscoveryTiming | None,
    on_folder: Callable[[Path | None], None] | None,
) -> AsyncIterator[SwitchingBackend]:
    """The plugin, switched to the folder behind it once that is found; the search runs in
    the background, so nothing waits for it. When no folder is to be looked for, the plugin
    alone, and one notice line saying why."""
    why_not = not_looked_for(settings)
    key = settings.obsidian.api_key
    secret = key.reveal() if key is not None else None
    if why_not is not None:
        why_not = f"vault folder not looked for, the plugin answers every call: {why_not}"
        notices.info("%s", why_not)
        # never switches: says why in get_server_info
        yield SwitchingBackend(plugin, why_not, secret=secret, settled=True)
        return
    switching = SwitchingBackend(
        plugin,
        "looking for the vault folder in Obsidian's vault list",
        on_folder=on_folder,
        secret=secret,
    )
    async with anyio.create_task_group() as background:
        background.start_soon(_find, settings, switching, plugin, timing)
        try:
            yield switching
        finally:
            background.cancel_scope.cancel()


async def _find(
    settings: Settings,
    switching: SwitchingBackend,
    plugin: ObsidianClient,
    timing: DiscoveryTiming | None,
) -> None:
    await serve_found_folder(settings, switching, plugin, timing=timing)
