"""The embedder the memory store searches by meaning with, loaded on first need.

The ``semantic`` extra is optional: without it ``embedder()`` is None and the store searches
by words alone. Loading reads the model's files from the installed package (about a third of
a second), so it happens at the first save or fallback search that wants it, never at start,
and once per process: a missing extra is not looked for again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultgate.semantic.embedder import Embedder

Loader = Callable[[], "Embedder | None"]


def _load_installed() -> Embedder | None:
    from vaultgate.semantic.embedder import load_embedder

    return load_embedder()


class Meaning:
    def __init__(self, loader: Loader = _load_installed) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._loaded = False
        self._embedder: Embedder | None = None

    def embedder(self) -> Embedder | None:
        with self._lock:
            if not self._loaded:
                self._embedder = self._loader()
                self._loaded = True
            return self._embedder
