"""The embedder, loaded once for the tests that need the semantic extra (skipped without it)."""

from __future__ import annotations

import pytest

from vaultgate.semantic.embedder import Embedder, load_embedder, why_unavailable


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    loaded = load_embedder()
    if loaded is None:
        pytest.skip(f"semantic search unavailable: {why_unavailable()}")
    return loaded
