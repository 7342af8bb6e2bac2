"""SDD tools: spec-driven-development context from the vault, with related memory.

Thin adapters over vaultgate.sdd.context. Both are read-only: they read artifact notes through
the guarded client and search the memory store, and write nothing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.memory.render import DetailLevel
from vaultgate.sdd.context import ContextRequest, context_check, get_context
from vaultgate.sdd.layout import Stage
from vaultgate.sdd.reader import SddVault
from vaultgate.state import AppState
from vaultgate.tools.base import (
    READ_ONLY,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
)

Project = Annotated[
    str | None, Field(description="Project folder under the SDD folder; omit for every project.")
]
Detail = Annotated[
    DetailLevel,
    Field(
        description=(
            "summary: names and sizes; standard: 500-character excerpts; full: whole texts, "
            "windowed."
        )
    ),
]
CheckDetail = Annotated[
    DetailLevel,
    Field(
        description=(
            "summary: names and sizes; standard: 500-character excerpts; full: whole texts, "
            "never cut."
        )
    ),
]


def _vault(state: AppState) -> SddVault:
    return SddVault(state.client, state.lister, state.settings.sdd.folder)


@model_facing_errors
async def sdd_get_context(
    ctx: ToolContext,
    project: Project = None,
    change: Annotated[
        str | None, Field(description="A change's slug (its folder name), e.g. 'add-dispatchers'.")
    ] = None,
    stage: Annotated[
        Stage | None, Field(description="One artifact of the change (needs change).")
    ] = None,
    detail_level: Detail = "summary",
) -> Blocks:
    """Spec-driven-development changes kept in the vault: the stages each change has
    (proposal, spec, design, tasks, verify) with sizes, plus related memory.

    Narrow with project= and change=; detail_level='standard' adds excerpts; stage= with
    detail_level='full' reads one artifact. Cut text names the get_vault_file call that reads on.
    """
    state = app_state(ctx)
    request = ContextRequest(project=project, change=change, stage=stage, detail_level=detail_level)
    blocks = await get_context(_vault(state), state.memory, request)
    return [text(block) for block in blocks]


@model_facing_errors
async def sdd_context_check(
    ctx: ToolContext,
    change_description: Annotated[
        str,
        Field(
            min_length=1,
            max_length=10_000,
            description="What you are about to change, in a few words.",
        ),
    ],
    project: Project = None,
    detail_level: CheckDetail = "standard",
) -> Blocks:
    """Call before starting a change: the SDD changes whose slugs or artifact titles share
    words with the description, their artifacts, and related memory observations.

    Then sdd_get_context(change=...) opens one change, mem_get_observation one observation.
    """
    state = app_state(ctx)
    answer = await context_check(
        _vault(state), state.memory, change_description, project, detail_level
    )
    return [text(answer)]


TOOLS: list[ToolSpec] = [
    (sdd_get_context, titled(READ_ONLY, "Spec-driven change context")),
    (sdd_context_check, titled(READ_ONLY, "Related specs for a change")),
]
