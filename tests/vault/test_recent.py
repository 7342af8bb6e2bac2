"""Notes changed lately, from one JsonLogic search over stat.mtime, on every plugin version."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest
from tests.vault.test_links import linked

from vaultgate.vault.recent import Changed, cutoff, recent_changes, since_query
from vaultgate.vault.search import VaultSearcher

VERSIONS = ["3.6.2", "4.0.2", "4.1.7", "5.1.0"]
NOW = datetime.datetime(2026, 11, 24, 12, 30, 45, tzinfo=datetime.UTC)
DAY = 86_400
# path: days before NOW it was last modified
AGES = {
    "Today 🚀.md": 0.1,
    "Daily/2026-11-23.md": 1.0,
    "Projects/C# & .NET.md": 2.5,
    "Projects/100% done.md": 6.9,
    "Archive/old 日本.md": 8.0,
    "Archive/older.md": 400.0,
    "Private/fresh.md": 0.2,
    ".obsidian/fresh.md": 0.0,
    "fresh.png": 0.0,
}


@pytest.fixture
def aged_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    for path, days in AGES.items():
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"# {path}\n", encoding="utf-8")
        moment = NOW.timestamp() - days * DAY
        os.utime(file, (moment, moment))
    return vault


def test_the_cutoff_is_days_before_now_rounded_down_to_the_minute() -> None:
    assert cutoff(NOW, 7) == int(
        datetime.datetime(2026, 11, 17, 12, 30, tzinfo=datetime.UTC).timestamp() * 1000
    )


def test_a_change_shows_its_mtime_in_utc() -> None:
    changed = Changed(
        "a.md",
        int(datetime.datetime(2026, 11, 24, 9, 5, 7, tzinfo=datetime.UTC).timestamp() * 1000),
    )

    assert changed.render() == {"filename": "a.md", "mtime": "2026-11-24T09:05:07Z"}


def test_the_query_returns_the_mtime_of_a_recent_note_and_false_otherwise() -> None:
    from vaultgate.engine import jsonlogic

    query = since_query(1_000)

    assert jsonlogic.apply(query, {"stat": {"mtime": 1_500}}) == 1_500
    assert jsonlogic.apply(query, {"stat": {"mtime": 1_000}}) == 1_000
    assert jsonlogic.apply(query, {"stat": {"mtime": 999}}) is False


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_recent_notes_come_newest_first_on_every_version(
    aged_vault: Path, version: str
) -> None:
    async with linked(aged_vault, version, deny=("Private",)) as vault:
        searcher = VaultSearcher(vault.client)
        week = (await recent_changes(searcher, 7, now=NOW)).value
        two_days = (await recent_changes(searcher, 2, now=NOW)).value
        projects = (await recent_changes(searcher, 30, "Projects", now=NOW)).value
        year = (await recent_changes(searcher, 3650, now=NOW)).value

    assert [c.filename for c in week] == [
        "Today 🚀.md",
        "Daily/2026-11-23.md",
        "Projects/C# & .NET.md",
        "Projects/100% done.md",
    ]
    assert week[0].render()["mtime"] == "2026-11-24T10:06:45Z"
    assert [c.filename for c in two_days] == ["Today 🚀.md", "Daily/2026-11-23.md"]
    assert [c.filename for c in projects] == ["Projects/C# & .NET.md", "Projects/100% done.md"]
    assert [c.filename for c in year][-2:] == ["Archive/old 日本.md", "Archive/older.md"]
    assert len(year) == 6  # no denied, hidden or non-note file


@pytest.mark.anyio
async def test_later_pages_asked_within_a_minute_come_from_their_first_pages_search(
    aged_vault: Path,
) -> None:
    async with linked(aged_vault, "5.1.0") as vault:
        searcher = VaultSearcher(vault.client)
        first = await recent_changes(searcher, 7, now=NOW)
        again = await recent_changes(
            searcher, 7, now=NOW + datetime.timedelta(seconds=10), offset=2
        )
        later = await recent_changes(searcher, 7, now=NOW + datetime.timedelta(minutes=1), offset=2)
        asked_again = await recent_changes(searcher, 7, now=NOW + datetime.timedelta(seconds=10))

    assert first.value == again.value == later.value == asked_again.value
    assert again.notice is None  # taken a moment ago
    # the first page's, the next minute's and a first page's again, and the guard's one
    # search for protection tags (kept 30 s)
    assert [r for r in vault.requests if r.startswith("POST")] == ["POST /search/"] * 4
