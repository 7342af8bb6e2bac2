"""Reading several notes in one call, within one shared character budget.

Each note gets a fair share of the budget (``paging.fair_shares``): a short note takes only
what it needs and leaves the rest to the longer ones, so a budget is never spent on one long
note while the others are cut to nothing. Each note is a window as a single read gives it,
with the same metadata when cut, so the model continues one note with a single read from
``nextIndex``. A note that cannot be read (missing, a folder, refused by the policy, a bad
path) is an entry with its error; the others are read all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultgate.backend import Backend
from vaultgate.errors import AccessDenied, InvalidArgument, NotFound
from vaultgate.paging import CONTENT_WINDOW, fair_shares, window_text
from vaultgate.paths import validate_vault_path
from vaultgate.vault.concurrent import map_bounded

MAX_NOTES = 20
DEFAULT_BUDGET = CONTENT_WINDOW  # several notes share one note's content window

# What one note's failure may be without failing the call; anything else (Obsidian down,
# the key rejected) would fail every note alike and fails the call.
_NOTE_ERRORS = (InvalidArgument, AccessDenied, NotFound)


@dataclass(frozen=True, slots=True)
class ManyNotes:
    entries: list[dict[str, Any]]  # {filename, content[, window metadata]} or {filename, error}

    @property
    def cut(self) -> bool:
        return any(entry.get("hasMore") for entry in self.entries)


async def read_many(client: Backend, paths: Sequence[str], budget: int) -> ManyNotes:
    """Read ``paths`` (duplicates once, in the order given), sharing ``budget`` characters."""
    if not paths:
        raise InvalidArgument("filenames is empty. Pass 1 to 20 vault paths of notes.")
    unique = list(dict.fromkeys(paths))
    if len(unique) > MAX_NOTES:
        raise InvalidArgument(
            f"filenames names {len(unique)} notes; at most {MAX_NOTES} are read in one call. "
            "Split them over several calls."
        )

    async def read(path: str) -> str | Exception:
        try:
            validate_vault_path(path)
            return (await client.read_note(path)).content
        except _NOTE_ERRORS as exc:
            return exc

    texts = await map_bounded(unique, read)
    readable = [text for text in texts if isinstance(text, str)]
    shares = iter(fair_shares([len(text) for text in readable], budget))
    entries: list[dict[str, Any]] = []
    for path, text in zip(unique, texts, strict=True):
        if not isinstance(text, str):
            entries.append({"filename": path, "error": str(text)})
            continue
        share = next(shares)
        if not text:
            entries.append({"filename": path, "content": ""})
            continue
        window = window_text(text, start_index=0, max_length=max(share, 1))
        entry: dict[str, Any] = {"filename": path, "content": window.text}
        if window.truncated:
            entry.update(window.metadata())
        entries.append(entry)
    return ManyNotes(entries)
