"""Dataview DQL in POST /search/: a TABLE subset on 3.x, refused from 4.0."""

from __future__ import annotations

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio

DQL = {"Content-Type": "application/vnd.olrapi.dataview.dql+txt"}


async def dql(api: Api, query: str, version: str = "3.6.2") -> list[dict[str, object]]:
    async with api(version) as http:
        response = await http.post("/search/", content=query.encode(), headers=DQL)
    assert response.status_code == 200, response.text
    result: list[dict[str, object]] = response.json()
    return result


async def test_table_from_a_folder_with_columns_and_aliases(api: Api) -> None:
    rows = await dql(api, 'TABLE status, priority AS "Prio" FROM "Projects" SORT priority DESC')
    assert rows == [
        {"filename": "Projects/plan.md", "result": {"status": "active", "Prio": 42}},
        {"filename": "Projects/Archive/old.md", "result": {"status": "done", "Prio": 3}},
    ]


async def test_from_a_tag_includes_its_subtags(api: Api) -> None:
    rows = await dql(api, "TABLE file.name FROM #project")
    assert sorted(row["filename"] for row in rows) == [
        "Projects/Archive/old.md",
        "Projects/plan.md",
        "Welcome.md",
    ]


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        pytest.param('status = "done"', ["Projects/Archive/old.md"], id="equals"),
        pytest.param("priority > 10", ["Projects/plan.md"], id="greater"),
        pytest.param('contains(tags, "journal/daily")', ["Daily/2024-01-01.md"], id="contains"),
        pytest.param(
            'contains(file.tags, "#work") or status = "done"',
            ["Projects/Archive/old.md", "Projects/plan.md"],
            id="or-and-file-tags",
        ),
        pytest.param('!(status = "active") and priority', ["Projects/Archive/old.md"], id="not"),
    ],
)
async def test_where_filters_rows(api: Api, where: str, expected: list[str]) -> None:
    rows = await dql(api, f"TABLE status WHERE {where}")
    assert sorted(str(row["filename"]) for row in rows) == expected


async def test_limit(api: Api) -> None:
    rows = await dql(api, 'TABLE file.path FROM "Notes" SORT file.name ASC LIMIT 2')
    assert [row["result"] for row in rows] == [
        {"file.path": "Notes/50% & more #1.md"},
        {"file.path": "Notes/café ☕.md"},
    ]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("LIST FROM #project", "Only TABLE dataview queries are supported.", id="list"),
        pytest.param("TABLE WITHOUT ID status", "TABLE WITHOUT ID queries are", id="without-id"),
        pytest.param('TABLE status FROM "x" WHERE (', "Dataview", id="syntax"),
    ],
)
async def test_unsupported_queries_are_40070(api: Api, query: str, message: str) -> None:
    async with api("3.6.2") as http:
        response = await http.post("/search/", content=query.encode(), headers=DQL)
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40070
    assert message in response.json()["message"]


async def test_dql_is_gone_from_4_0(api: Api) -> None:
    async with api("5.1.0") as http:
        response = await http.post("/search/", content=b"TABLE status", headers=DQL)
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40012
