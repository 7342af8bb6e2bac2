"""Periodic notes (daily, weekly, ...), where the plugin still serves them (before 5.0.2)."""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import Field

from vaultgate.errors import InvalidArgument
from vaultgate.paging import window_text
from vaultgate.tools.base import (
    READ_ONLY,
    WRITE,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
    window_blocks,
)
from vaultgate.tools.read import Format, MaxLength, StartIndex
from vaultgate.vault.documents import read_document

PeriodName = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]
Period = Annotated[
    PeriodName,
    Field(description="daily, weekly, monthly, quarterly or yearly."),
]
DateText = Annotated[
    str | None, Field(description="The day, YYYY-MM-DD (plugin 3.1+); default: today.")
]


def parse_date(value: str | None) -> datetime.date | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value.strip())
    except ValueError:
        raise InvalidArgument(
            f"date must look like 2026-11-21 (YYYY-MM-DD), not {value!r}."
        ) from None


@model_facing_errors
async def get_periodic_note(
    ctx: ToolContext,
    period: Period,
    date: DateText = None,
    format: Format = "markdown",
    maxLength: MaxLength = 10_000,
    startIndex: StartIndex = 0,
) -> Blocks:
    """Read the current (or a dated) daily/weekly/... note, windowed like get_vault_file.
    Needs Local REST API < 5.0.2, which removed /periodic/; on newer versions read the note by
    its path instead."""
    client = app_state(ctx).client
    note = await client.read_periodic(period, parse_date(date))
    if format == "markdown":
        return window_blocks(
            window_text(note.content, start_index=startIndex, max_length=maxLength)
        )
    window = await read_document(
        client, note.path, note_format=format, max_length=maxLength, start_index=startIndex
    )
    return window_blocks(window)


@model_facing_errors
async def append_to_periodic_note(
    ctx: ToolContext,
    period: Period,
    content: Annotated[str, Field(description="Markdown text to append.")],
    date: DateText = None,
) -> Blocks:
    """Append to the current (or a dated) periodic note, creating it from the user's periodic
    notes settings if needed. Needs Local REST API < 5.0.2."""
    state = app_state(ctx)
    await state.client.append_periodic(period, content, parse_date(date))
    state.vault_changed()
    when = f" for {date}" if date else ""
    return [text(f"Appended {len(content):,} chars to the {period} note{when}.")]


TOOLS: list[ToolSpec] = [
    (get_periodic_note, titled(READ_ONLY, "Read a periodic note")),
    (append_to_periodic_note, titled(WRITE, "Append to a periodic note")),
]
