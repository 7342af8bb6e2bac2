"""The ``found`` row: the vault folder behind the plugin, as the server would find it.

Without VAULTGATE_VAULT, the server looks for the folder in Obsidian's vault list and verifies
it against the plugin (``vaultgate.discovery``); this row does the same once and says which
folder, how it was verified, or why none would be used (a warning: the plugin serves all then).
"""

from __future__ import annotations

import os

from vaultgate.config import Settings
from vaultgate.discovery.finder import DISABLE_HINT, find_vault_folder, not_looked_for
from vaultgate.doctor.report import Check, warn
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client

_FIX = (
    "Open the vault in Obsidian on this machine, or set VAULTGATE_VAULT to its folder; "
    "VAULTGATE_OBSIDIAN_CONFIG names Obsidian's obsidian.json when it is elsewhere."
)


async def found_check(settings: Settings) -> Check:
    why_not = not_looked_for(settings)
    if why_not is not None:
        return Check("found", True, f"no vault folder looked for: {why_not}")
    client = ObsidianClient(settings.obsidian, await build_http_client(settings.obsidian))
    try:
        found = await find_vault_folder(settings, client, os.environ)
    finally:
        await client.aclose()
    if found.folder is None:
        return warn("found", f"the plugin will answer every call: {found.why}", _FIX)
    return Check(
        "found", True, f"{found.folder} served from the folder: {found.why} ({DISABLE_HINT})"
    )
