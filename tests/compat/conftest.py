"""The compatibility suite (tests/compat/): each module skips unless its framework is
installed; scripts/compat makes the venvs that have them."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
