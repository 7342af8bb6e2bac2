"""The agent memory store: sessions, observations and prompts in one SQLite file with FTS5.

The only package that speaks SQL. ``MemoryStore`` is the synchronous store; ``MemoryGateway``
runs it in worker threads for the async tools; ``render`` turns its values into the text the
model reads (detail levels, navigation hints, token budgets).

The names below are imported on first use, so that importing a module of this package (the
server imports ``gateway`` and ``models``) does not load the store and sqlite3 with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultgate.memory.gateway import MemoryGateway
    from vaultgate.memory.models import SearchOptions
    from vaultgate.memory.store import MemoryStore

__all__ = ["MemoryGateway", "MemoryStore", "SearchOptions"]
_HOMES = {"MemoryGateway": "gateway", "MemoryStore": "store", "SearchOptions": "models"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"vaultgate.memory.{_HOMES[name]}"), name)
