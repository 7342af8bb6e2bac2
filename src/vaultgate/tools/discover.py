"""`discover`: the paged catalogue of what this server offers, and what the plugin supports.

It lists only the operations and tools the running profile offers (a tool the model cannot
call would answer "Unknown tool"); asked about one it does not offer but reaches another way
(``get_vault_file`` on the compact profile), it explains that one (``vault.read``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from vaultgate.errors import InvalidArgument, VaultgateError
from vaultgate.obsidian.features import FEATURES, FeatureSet
from vaultgate.paging import compact_json, page_within_budget
from vaultgate.tools.base import (
    Blocks,
    ToolContext,
    ToolFunction,
    app_state,
    items_budget,
    json_blocks,
    model_facing_errors,
    text,
)
from vaultgate.tools.catalogue import Entry, Rename, listed_entries
from vaultgate.tools.equivalents import meant_tool


def make_discover(catalogue: list[Entry]) -> ToolFunction:
    """The discover tool over this server's catalogue (which depends on its tool profile)."""
    by_name = {entry.name: entry for entry in catalogue}
    listed = listed_entries(catalogue)
    categories = sorted({entry.category for entry in listed})
    in_profile = _renamer(catalogue)

    @model_facing_errors
    async def discover(
        ctx: ToolContext,
        category: Annotated[str | None, Field(description="e.g. 'memory'.")] = None,
        operation: Annotated[
            str | None, Field(description="e.g. 'vault.read': explained in full.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> Blocks:
        """Start here: every operation with its parameters, and the plugin's features."""
        read_only = app_state(ctx).settings.safety.read_only
        if operation is not None:
            asked = operation.strip()
            entry = _offered(by_name, asked)
            renamed = _renamed(asked) if entry is None else None
            if renamed is not None:
                entry = _offered(by_name, renamed)
            if entry is None and read_only:
                _refuse_a_write(by_name, renamed or asked)
            if entry is None:
                examples = ", ".join(repr(entry.name) for entry in listed[:2])
                raise InvalidArgument(
                    f"This server offers no operation or tool {operation!r}. Call discover() "
                    f"for the list; names look like {examples}."
                )
            description = entry.describe(rename=in_profile)
            if renamed is not None:
                description = f"{asked} is now {entry.name}.\n\n{description}"
            return [text(description)]
        if category is not None and category not in categories:
            raise InvalidArgument(
                f"No category {category!r}; the categories are: {', '.join(categories)}."
            )
        chosen = [e for e in listed if category is None or e.category == category]
        lines = [e.line(in_profile) for e in chosen]
        page = page_within_budget(
            lines, limit=limit, offset=offset, budget=items_budget(), render=compact_json
        )
        return json_blocks(
            page.envelope("operations", plugin=await _plugin_support(ctx), categories=categories)
        )

    return discover


def _offered(by_name: dict[str, Entry], name: str) -> Entry | None:
    """The entry for ``name`` as this server offers it: itself, or the operation that
    reaches it here; None when nothing here reaches it."""
    entry = by_name.get(name)
    if entry is not None and not entry.offered:
        entry = by_name.get(entry.callable_as)
    return entry if entry is not None and entry.offered else None


def _refuse_a_write(by_name: dict[str, Entry], name: str) -> None:
    """Say so when ``name`` writes to the vault, which this read-only server does not offer."""
    entry = by_name.get(name)
    if entry is not None and entry.writes:
        raise InvalidArgument(
            f"{name} writes to the vault, and this server is read-only "
            "(VAULTGATE_READ_ONLY=true): it offers no writing operation. Call discover() for "
            "what it offers."
        )


def _renamed(name: str) -> str | None:
    """The single tool an operation of another profile or an earlier release means
    (``vault_edit.create`` → ``create_vault_file``, which the catalogue then names as this
    profile reaches it), if ``name`` is one."""
    dispatcher, _, operation = name.partition(".")
    meant = meant_tool(dispatcher, operation) if operation else None
    return meant[0] if meant is not None else None


def _renamer(catalogue: list[Entry]) -> Rename:
    """Text with each single tool this profile reaches only through a dispatcher named as
    that operation (``mem_timeline`` → ``memory.timeline``), so descriptions, written once
    for every profile, name what the model can call."""
    renamed = {e.name: e.callable_as for e in catalogue if e.callable_as != e.name}
    if not renamed:
        return lambda text: text
    names = re.compile(
        r"(?<![\w.])("
        + "|".join(sorted(map(re.escape, renamed), key=len, reverse=True))
        + r")(?!\w)"
    )
    return lambda text: names.sub(lambda found: renamed[found.group(1)], text)


async def _plugin_support(ctx: ToolContext) -> dict[str, Any]:
    try:
        status = await app_state(ctx).client.status()
    except VaultgateError as exc:
        return {"reachable": False, "why": str(exc)}
    features = FeatureSet(status.plugin_version)
    return {
        "version": str(status.plugin_version),
        "missing": [
            f"{f.name} (needs {f.requirement()})" for f in FEATURES if not features.has(f.name)
        ],
    }
