"""/periodic/ notes below 5.0.2: note paths, dates, creation on write, version gates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from vaultgate.emulator.periodic import js_date, note_path

from .conftest import Api

pytestmark = pytest.mark.anyio

TODAY = dt.date(2026, 8, 1)
MD = {"Content-Type": "text/markdown"}


def fixed_today() -> dt.date:
    return TODAY


@pytest.mark.parametrize(
    ("period", "day", "path"),
    [
        pytest.param("daily", TODAY, "Daily/2026-08-01.md", id="daily"),
        pytest.param("weekly", TODAY, "Weekly/2026-W31.md", id="weekly"),
        pytest.param("weekly", dt.date(2027, 1, 1), "Weekly/2026-W53.md", id="iso-week-year"),
        pytest.param("monthly", TODAY, "Monthly/2026-08.md", id="monthly"),
        pytest.param("quarterly", TODAY, "Quarterly/2026-Q3.md", id="quarterly"),
        pytest.param("quarterly", dt.date(2026, 1, 31), "Quarterly/2026-Q1.md", id="q1"),
        pytest.param("yearly", TODAY, "Yearly/2026.md", id="yearly"),
    ],
)
def test_note_paths(period: str, day: dt.date, path: str) -> None:
    assert note_path(period, day) == path


@pytest.mark.parametrize(
    ("parts", "day"),
    [
        pytest.param((2026, 8, 1), dt.date(2026, 8, 1), id="plain"),
        pytest.param((2026, 13, 1), dt.date(2027, 1, 1), id="month-overflow"),
        pytest.param((2026, 2, 30), dt.date(2026, 3, 2), id="day-overflow"),
        pytest.param((2026, 1, 0), dt.date(2025, 12, 31), id="day-zero"),
        pytest.param((2026, 0, 1), dt.date(2025, 12, 1), id="month-zero"),
    ],
)
def test_dates_roll_over_as_in_javascript(parts: tuple[int, int, int], day: dt.date) -> None:
    assert js_date(*parts) == day


async def test_a_missing_note_is_40461_until_written(api: Api, vault: Path) -> None:
    async with api("4.1.7", today=fixed_today) as http:
        missing = await http.get("/periodic/daily/")
        created = await http.post("/periodic/daily/", content="- standup", headers=MD)
        read = await http.get("/periodic/daily/")
    assert missing.status_code == 404
    assert missing.json()["errorCode"] == 40461
    assert created.status_code == 204
    assert created.headers["content-location"] == "Daily/2026-08-01.md"
    # the note is created empty first, and an append to a file without a final newline adds one
    assert read.text == "\n- standup"
    assert read.headers["content-location"] == "Daily/2026-08-01.md"
    assert (vault / "Daily" / "2026-08-01.md").read_text(encoding="utf-8") == "\n- standup"


async def test_dated_notes_from_3_1_0(api: Api) -> None:
    async with api("3.1.0") as http:
        dated = await http.get("/periodic/daily/2024/1/1/")
    async with api("3.0.4") as http:
        undated = await http.get("/periodic/daily/2024/1/1/")
    assert dated.status_code == 200
    assert dated.text.endswith("A day. #journal\n")
    assert dated.headers["content-location"] == "Daily/2024-01-01.md"
    assert undated.status_code == 404


@pytest.mark.parametrize("period", ["weekly", "monthly", "quarterly", "yearly"])
async def test_put_creates_every_period(api: Api, vault: Path, period: str) -> None:
    async with api("4.1.7", today=fixed_today) as http:
        response = await http.put(f"/periodic/{period}/", content=period, headers=MD)
    assert response.status_code == 204
    assert (vault / note_path(period, TODAY)).read_text(encoding="utf-8") == period


async def test_patch_and_delete_act_on_the_note(api: Api, vault: Path) -> None:
    headers = {**MD, "Operation": "append", "Target-Type": "heading", "Target": "Log"}
    async with api("4.1.7", today=fixed_today) as http:
        await http.put("/periodic/daily/", content="# Log\n", headers=MD)
        patched = await http.patch("/periodic/daily/", content="- 9:00\n", headers=headers)
        deleted = await http.delete("/periodic/daily/")
        gone = await http.delete("/periodic/daily/")
    assert patched.status_code == 200
    assert patched.text == "# Log\n- 9:00\n"
    assert deleted.status_code == 204
    assert not (vault / "Daily" / "2026-08-01.md").exists()
    assert gone.json()["errorCode"] == 40461


async def test_url_targets_after_the_periodic_note(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.post(
            "/periodic/daily/2024/1/1/frontmatter/tags",
            content='["journal/extra"]',
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 200
    assert "  - journal/extra\n" in response.text


async def test_an_unknown_period_is_40460(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.put("/periodic/hourly/", content="x", headers=MD)
    assert response.status_code == 404
    assert response.json()["errorCode"] == 40460


@pytest.mark.parametrize(
    ("version", "status"),
    [pytest.param("5.0.1", 200, id="5.0.1"), pytest.param("5.0.2", 404, id="5.0.2-removed")],
)
async def test_periodic_routes_are_gone_from_5_0_2(api: Api, version: str, status: int) -> None:
    async with api(version) as http:
        response = await http.get("/periodic/daily/2024/1/1/")
    assert response.status_code == status
    if status == 404:
        assert response.json()["errorCode"] == 40400


async def test_the_period_needs_its_trailing_slash(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.get("/periodic/daily")
    assert response.json()["errorCode"] == 40400
