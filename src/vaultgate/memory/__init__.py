"""The agent memory store: sessions, observations and prompts in one SQLite file with FTS5.

The only package that speaks SQL. ``MemoryStore`` is the synchronous store; ``MemoryGateway``
runs it in worker threads for the async tools; ``render`` turns its values into the text the
model reads (detail levels, navigation hints, token budgets).
"""

from vaultgate.memory.gateway import MemoryGateway
from vaultgate.memory.models import SearchOptions
from vaultgate.memory.store import MemoryStore

__all__ = ["MemoryGateway", "MemoryStore", "SearchOptions"]
