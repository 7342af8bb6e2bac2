"""The vault's generation: a number that moves on every change the index has committed.

An answer computed from the vault is current while the generation it was computed at is the
generation now (``vaultgate.cache.Snapshots``). Read the generation *before* computing: a change
committed meanwhile then moves it past the answer's, and the next question computes again.

Every generation of the process comes from one counter, so two indexes (a vault switched to
another and back) never hand out the same number for different states.
"""

from __future__ import annotations

import itertools

_NUMBERS = itertools.count(1)  # next() is atomic under the GIL: safe from any thread


class Generation:
    """The current generation of one vault; ``bump`` after each committed change."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = next(_NUMBERS)

    def bump(self) -> None:
        self.value = next(_NUMBERS)
