"""Server info: which backend serves the vault, plugin and Obsidian versions, whether the key
works, what this version can do."""

from __future__ import annotations

from typing import Any

from vaultgate import __version__
from vaultgate.backend import ServerStatus
from vaultgate.errors import VaultgateError
from vaultgate.obsidian.features import FEATURES, FeatureSet, Version
from vaultgate.paging import compact_json
from vaultgate.tools.base import (
    READ_ONLY,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    json_blocks,
    model_facing_errors,
    titled,
)


@model_facing_errors
async def get_server_info(ctx: ToolContext) -> Blocks:
    """Which backend serves the vault (Obsidian's Local REST API, the vault folder, or both),
    the plugin and Obsidian versions, whether the key is accepted, and which features
    (Dataview search, tags, MOVE, periodic notes, ...) are there."""
    client = app_state(ctx).client
    report = client.report()
    info: dict[str, Any] = {"vaultgate": __version__, "backend": report.kind}
    if report.discovery is not None:  # the folder found behind the plugin, or why none
        info["vaultFolderFound"] = report.discovery
    if report.kind == "obsidian":
        info |= _plugin(await client.refresh_status())
    else:
        info["vaultFolder"] = report.vault_folder
        info["obsidianOnly"] = list(report.obsidian_only)
        if report.kind == "auto":
            try:
                info["obsidian"] = _plugin(await client.plugin_status())
            except VaultgateError as exc:
                info["obsidian"] = {"answering": False, "why": str(exc)}
        folder = await client.refresh_status()
        info["semantics"] = f"Local REST API {folder.plugin_version}, served from the folder"
        info["features"] = _features(folder.plugin_version)
    return json_blocks(compact_json(info))


def _plugin(status: ServerStatus) -> dict[str, Any]:
    return {
        "obsidian": status.obsidian_version,
        "plugin": str(status.plugin_version),
        "authenticated": status.authenticated,
        "extensions": status.extensions,
        "features": _features(status.plugin_version),
    }


def _features(version: Version) -> dict[str, Any]:
    features = FeatureSet(version)
    return {
        feature.name: {"available": features.has(feature.name), "needs": feature.requirement()}
        for feature in FEATURES
    }


TOOLS: list[ToolSpec] = [
    (get_server_info, titled(READ_ONLY, "Obsidian connection and plugin version"))
]
