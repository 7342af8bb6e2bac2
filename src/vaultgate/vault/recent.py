"""Notes changed lately, newest first, on every plugin version.

One JsonLogic search over ``stat.mtime`` (in the note JSON of every plugin version; the
Dataview query peers build broke on 4.0, which removed DQL). Its result for a note is the
note's mtime, so the search answers which notes and when in one request. The cut-off is
rounded down to the minute, so the later pages asked within a minute come from their first
page's search (``VaultSearcher``) and agree on its total; a first page searches again.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from vaultgate.cache import Served
from vaultgate.paths import normalize_directory
from vaultgate.vault.search import VaultSearcher

DAY_MS = 86_400_000
MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class Changed:
    filename: str
    mtime: int  # epoch milliseconds, as the plugin reports it

    def render(self) -> dict[str, Any]:
        when = datetime.datetime.fromtimestamp(self.mtime / 1000, datetime.UTC)
        return {"filename": self.filename, "mtime": when.strftime("%Y-%m-%dT%H:%M:%SZ")}


def since_query(cutoff_ms: int) -> dict[str, Any]:
    """True-ish (the mtime) for a note modified at or after ``cutoff_ms``."""
    mtime = {"var": "stat.mtime"}
    return {"if": [{">=": [mtime, cutoff_ms]}, mtime, False]}


def cutoff(now: datetime.datetime, days: int) -> int:
    """``days`` before ``now`` in epoch milliseconds, rounded down to the minute."""
    ms = int(now.timestamp() * 1000) - days * DAY_MS
    return ms - ms % MINUTE_MS


async def recent_changes(
    searcher: VaultSearcher,
    days: int,
    folder: str | None = None,
    now: datetime.datetime | None = None,
    *,
    offset: int = 0,
) -> Served[list[Changed]]:
    """Notes (below ``folder``) modified in the last ``days`` days, newest first: searched
    now for a first page, from its snapshot for a later one (``offset``)."""
    prefix = normalize_directory(folder) if folder else ""
    moment = now if now is not None else datetime.datetime.now(datetime.UTC)
    served = await searcher.structured(
        since_query(cutoff(moment, days)), "jsonlogic", offset=offset
    )
    rows = served.value
    changed = [
        Changed(path, int(mtime))
        for row in rows
        if isinstance(path := row.get("filename"), str)
        and path.startswith(prefix)
        and isinstance(mtime := row.get("result"), int | float)
        and not isinstance(mtime, bool)
    ]
    return Served(sorted(changed, key=lambda note: (-note.mtime, note.filename)), served.notice)
