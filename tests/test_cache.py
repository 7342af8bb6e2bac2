"""Snapshots: a first page reuses a kept answer only while the vault's generation stands; a
later page takes its first page's snapshot and says so when the vault moved on."""

from __future__ import annotations

import pytest

from vaultgate.cache import SNAPSHOT_AGE_SHOWN, Snapshots

pytestmark = pytest.mark.anyio


class Vault:
    """What the snapshots are asked of: the generation now, a clock, and an answer that
    counts how often it was computed."""

    def __init__(self, generation: int | None) -> None:
        self.generation: int | None = generation
        self.now = 100.0
        self.computed = 0

    async def answer(self) -> str:
        self.computed += 1
        return f"answer {self.computed} 日本 🚀"

    def snapshots(self, ttl: float = 60.0) -> Snapshots[str, str]:
        return Snapshots(lambda: self.generation, ttl, clock=lambda: self.now)


async def test_a_first_page_reuses_an_answer_while_the_generation_stands() -> None:
    vault = Vault(generation=7)
    kept = vault.snapshots()

    first = await kept.get("q #1", vault.answer)
    again = await kept.get("q #1", vault.answer)
    vault.generation = 8  # a change on disk, seen by the watcher
    moved = await kept.get("q #1", vault.answer)

    assert first.value == again.value == "answer 1 日本 🚀"
    assert moved.value == "answer 2 日本 🚀"
    assert vault.computed == 2


async def test_without_a_generation_every_first_page_computes_again() -> None:
    vault = Vault(generation=None)  # the plugin: nothing cheap says the vault changed
    kept = vault.snapshots()

    await kept.get("q", vault.answer)
    await kept.get("q", vault.answer)

    assert vault.computed == 2


async def test_a_later_page_takes_the_snapshot_and_says_when_the_vault_moved_on() -> None:
    vault = Vault(generation=3)
    kept = vault.snapshots()
    await kept.get("q", vault.answer)

    same = await kept.get("q", vault.answer, first_page=False)
    vault.generation, vault.now = 4, vault.now + 12
    moved = await kept.get("q", vault.answer, first_page=False)

    assert same.value == moved.value == "answer 1 日本 🚀"
    assert same.notice is None
    assert moved.notice is not None
    assert "changed after the first page" in moved.notice
    assert "12 s ago" in moved.notice
    assert "offset 0" in moved.notice
    assert vault.computed == 1


async def test_through_the_plugin_a_later_page_says_its_snapshots_age_once_old() -> None:
    vault = Vault(generation=None)
    kept = vault.snapshots()
    await kept.get("q", vault.answer)

    vault.now += SNAPSHOT_AGE_SHOWN / 2
    young = await kept.get("q", vault.answer, first_page=False)
    vault.now += SNAPSHOT_AGE_SHOWN
    old = await kept.get("q", vault.answer, first_page=False)

    assert young.notice is None
    assert old.notice is not None
    assert f"{round(SNAPSHOT_AGE_SHOWN * 1.5)} s ago" in old.notice
    assert "may have changed" in old.notice
    assert vault.computed == 1


async def test_a_later_page_past_the_snapshots_life_computes_again() -> None:
    vault = Vault(generation=1)
    kept = vault.snapshots(ttl=30.0)
    await kept.get("q", vault.answer)

    vault.now += 31
    later = await kept.get("q", vault.answer, first_page=False)

    assert later.value == "answer 2 日本 🚀"
    assert later.notice is None


async def test_a_change_while_computing_leaves_the_answer_stale() -> None:
    vault = Vault(generation=1)
    kept = vault.snapshots()

    async def changed_meanwhile() -> str:
        vault.generation = 2  # committed while the answer was computed
        return await vault.answer()

    await kept.get("q", changed_meanwhile)
    await kept.get("q", vault.answer)

    assert vault.computed == 2  # kept under the generation read before computing


async def test_without_a_generation_a_first_page_may_take_an_answer_within_its_bound() -> None:
    vault = Vault(generation=None)
    kept = vault.snapshots()
    await kept.get("q", vault.answer, unknown_max_age=2.0)

    vault.now += 1.5
    within = await kept.get("q", vault.answer, unknown_max_age=2.0)
    vault.now += 1.0
    past = await kept.get("q", vault.answer, unknown_max_age=2.0)

    assert within.value == "answer 1 日本 🚀"
    assert past.value == "answer 2 日本 🚀"


async def test_a_bound_for_an_unknown_generation_never_outlives_a_known_change() -> None:
    vault = Vault(generation=5)
    kept = vault.snapshots()
    await kept.get("q", vault.answer, unknown_max_age=2.0)

    vault.generation = 6
    moved = await kept.get("q", vault.answer, unknown_max_age=2.0)

    assert moved.value == "answer 2 日本 🚀"
