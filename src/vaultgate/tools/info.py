"""Server info: plugin and Obsidian versions, whether the key works, what this version can do."""

from __future__ import annotations

from vaultgate import __version__
from vaultgate.obsidian.features import FEATURES, FeatureSet
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
    """Which Obsidian and Local REST API versions answer, whether the key is accepted, and
    which features (Dataview search, tags, MOVE, periodic notes, ...) that version has."""
    status = await app_state(ctx).client.refresh_status()
    features = FeatureSet(status.plugin_version)
    return json_blocks(
        compact_json(
            {
                "vaultgate": __version__,
                "obsidian": status.obsidian_version,
                "plugin": str(status.plugin_version),
                "authenticated": status.authenticated,
                "extensions": status.extensions,
                "features": {
                    feature.name: {
                        "available": features.has(feature.name),
                        "needs": feature.requirement(),
                    }
                    for feature in FEATURES
                },
            }
        )
    )


TOOLS: list[ToolSpec] = [
    (get_server_info, titled(READ_ONLY, "Obsidian connection and plugin version"))
]
