"""The background task that finds the vault folder behind the plugin and serves from it.

It never holds up the server: until a folder is verified, the plugin answers every call. It
reads Obsidian's vault list, verifies each candidate against the plugin, and serves exactly
one match as ``VAULTGATE_VAULT`` with ``auto`` would (the folder's index built and watched in
the background, ``FolderBackend.running``). It then checks every ``recheck_seconds`` that the
plugin still serves that folder, and at once when a change about to go through the plugin
found a note that differs between the two, or met a 401 (``RoutedBackend``'s ``on_doubt``);
when two checks in a row say not (the user opened another vault in Obsidian), the plugin
answers alone again and the search starts over. A 401 is one such "not": the plugin answers
with another key, so it serves another vault (or its key was changed).

Each reason for serving no folder is logged once, as one notice line on stderr.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from vaultgate.backend import Backend
from vaultgate.config import Settings
from vaultgate.discovery.switching import SwitchingBackend
from vaultgate.discovery.vault_list import read_vault_list
from vaultgate.discovery.verify import Verdict, verify_folder
from vaultgate.locations import served_links
from vaultgate.logs import NOTICES
from vaultgate.obsidian.client import ObsidianClient

if TYPE_CHECKING:  # the engine is imported only once a folder is found
    from vaultgate.folder.backend import FolderBackend
    from vaultgate.folder.routed import RoutedBackend

notices = logging.getLogger(NOTICES)

DISABLE_HINT = "VAULTGATE_BACKEND=obsidian turns this off"


@dataclass(frozen=True, slots=True)
class DiscoveryTiming:
    """How often the plugin is asked again: tests shorten both."""

    recheck_seconds: float = 10.0  # while a found folder is served: is it still the plugin's?
    retry_seconds: float = 60.0  # while none is: is one now (Obsidian opened, a vault switched)?


@dataclass(frozen=True, slots=True)
class Found:
    """The outcome of one search: the folder to serve, or None; ``why`` in words."""

    folder: Path | None
    why: str


def not_looked_for(settings: Settings) -> str | None:
    """Why no folder is looked for with ``settings``; None when one is."""
    if settings.vault.folder is not None:
        return "VAULTGATE_VAULT names the vault folder"
    if not settings.vault.discover:
        return "VAULTGATE_BACKEND=obsidian asks the plugin for everything"
    if not settings.obsidian.is_loopback:
        return (
            f"OBSIDIAN_HOST {settings.obsidian.host} is not this machine, so its vault folder is "
            "not here to read"
        )
    return None


async def find_vault_folder(
    settings: Settings, plugin: ObsidianClient, env: Mapping[str, str]
) -> Found:
    """The one candidate of Obsidian's vault list the plugin serves, or why there is none."""
    listed = await anyio.to_thread.run_sync(read_vault_list, settings.vault.obsidian_config, env)
    if listed.problem is not None or not listed.candidates:
        why = listed.problem or f"{listed.source} names no vault folder that exists"
        return Found(None, why)
    verdicts: list[Verdict] = []
    for candidate in listed.candidates:
        verdict = await verify_folder(candidate.folder, plugin)
        if verdict.refused:
            return Found(None, verdict.how)
        if not verdict.answered:
            return Found(None, f"Obsidian's plugin did not answer: {verdict.how}")
        verdicts.append(verdict)
    matches = [verdict for verdict in verdicts if verdict.matches]
    if len(matches) > 1:
        folders = ", ".join(str(verdict.folder) for verdict in matches)
        return Found(None, f"several vaults of {listed.source} match the plugin's: {folders}")
    if not matches:
        return Found(
            None,
            f"none of the {len(verdicts)} vaults in {listed.source} is the one the plugin "
            f"serves ({verdicts[0].folder}: {verdicts[0].how})",
        )
    return Found(matches[0].folder, f"found in {listed.source}; {matches[0].how}")


def routed_over(
    folder: FolderBackend, plugin: ObsidianClient, doubts: Doubts | None = None
) -> RoutedBackend:
    """The routed backend for a found folder. Found rather than configured, its notes' changes
    go through Obsidian while it answers (``writes_via_plugin``: the editor, link updates and
    trash settings as the user set them), and to the folder when it does not; each only once
    the plugin agrees with the folder on the notes it touches (``doubts`` hears when not)."""
    from vaultgate.folder.routed import RoutedBackend

    on_doubt = doubts.raise_doubt if doubts is not None else None
    return RoutedBackend(folder, plugin, writes_via_plugin=True, on_doubt=on_doubt)


class Doubts:
    """Why the found folder should be verified now rather than at the next recheck."""

    def __init__(self) -> None:
        self._event = anyio.Event()
        self.why: str | None = None

    def raise_doubt(self, why: str) -> None:
        self.why = why
        self._event.set()

    async def wait(self, seconds: float) -> str | None:
        """The doubt raised within ``seconds`` (then cleared), or None."""
        with anyio.move_on_after(seconds):
            await self._event.wait()
        why, self.why = self.why, None
        if self._event.is_set():
            self._event = anyio.Event()
        return why


async def serve_found_folder(
    settings: Settings,
    switch: SwitchingBackend,
    plugin: ObsidianClient,
    *,
    env: Mapping[str, str] | None = None,
    timing: DiscoveryTiming | None = None,
) -> None:
    """Run for the server's life (see the module's docstring); returns at once when no
    folder is to be looked for."""
    timing = timing or DiscoveryTiming()
    environment = os.environ if env is None else env
    said: str | None = None
    while True:
        found = await _search_once(settings, plugin, environment)
        if found.folder is None:
            why = f"vault folder not used, the plugin answers every call: {found.why}"
            switch.explain(why)
            if why != said:
                notices.info("%s (looking again every %g s)", why, timing.retry_seconds)
                said = why
            await anyio.sleep(timing.retry_seconds)
            continue
        said = None
        lost = await _serve(settings, switch, plugin, found, timing)
        notices.info("%s", lost)


async def _search_once(settings: Settings, plugin: ObsidianClient, env: Mapping[str, str]) -> Found:
    """One search; whatever goes wrong in it is a reason like any other, never the end of
    the server (this task runs in the lifespan's task group: an exception would end it)."""
    try:
        return await find_vault_folder(settings, plugin, env)
    except Exception as exc:  # the search is an optimisation: never fatal
        return Found(None, f"the search for it failed ({type(exc).__name__})")


async def _serve(
    settings: Settings,
    switch: SwitchingBackend,
    plugin: ObsidianClient,
    found: Found,
    timing: DiscoveryTiming,
) -> str:
    """Serve ``found.folder`` until the plugin no longer serves it; what happened, in words."""
    assert found.folder is not None
    folder = found.folder
    from vaultgate.folder.backend import FolderBackend

    served = FolderBackend(folder, links=served_links(settings.vault.follow_links))
    doubts = Doubts()
    async with served.running():
        routed: Backend = routed_over(served, plugin, doubts)
        used = f"vault folder {folder} served, {found.why} ({DISABLE_HINT})"
        switch.use(routed, used, folder=folder)
        notices.info("%s", used)
        while True:
            doubt = await doubts.wait(timing.recheck_seconds)
            if doubt is not None:
                notices.info("checking %s again at once: %s", folder, doubt)
            # the periodic recheck is the cheap one; a doubt compares the recent notes too
            whole = doubt is not None
            verdict = await verify_folder(folder, plugin, whole_tree=whole)
            if verdict.matches or not verdict.answered:
                continue  # Obsidian closed: the folder serves on, as auto does
            # a note saved between the two reads: ask once more before letting go
            verdict = await verify_folder(folder, plugin, whole_tree=whole)
            if not verdict.matches and verdict.answered:
                break
        why = f"the plugin no longer serves {folder} ({verdict.how}); it answers every call again"
        switch.use(switch.plugin, why)
        await switch.drained(routed)
    return why
