"""The MCP Tools companion plugin's /search/smart (fake semantic search) and its body quirk."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio

TEXT = {"Content-Type": "text/markdown"}


async def smart(api: Api, body: dict[str, Any]) -> list[dict[str, Any]]:
    async with api(extensions=True) as http:
        response = await http.post("/search/smart", content=json.dumps(body), headers=TEXT)
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


async def test_results_are_blocks_scored_by_word_overlap_best_first(api: Api) -> None:
    results = await smart(api, {"query": "ship the alpha"})
    assert results[0] == {
        "path": "Projects/plan.md",
        "text": "## Goals\n\nShip the alpha. ^goal1",
        "score": results[0]["score"],
        "breadcrumbs": "Projects > plan > Plan > Goals",
    }
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)


async def test_folder_filters_and_limit(api: Api) -> None:
    only = await smart(api, {"query": "plan", "filter": {"folders": ["Notes/"]}})
    excluded = await smart(api, {"query": "plan", "filter": {"excludeFolders": ["Projects"]}})
    limited = await smart(api, {"query": "plan", "filter": {"limit": 1}})
    assert {r["path"] for r in only} == {"Notes/café ☕.md"}
    assert all(not r["path"].startswith("Projects") for r in excluded)
    assert len(limited) == 1


async def test_a_json_content_type_fails_validation_as_in_the_real_plugin(api: Api) -> None:
    async with api(extensions=True) as http:
        response = await http.post("/search/smart", json={"query": "plan"})
    assert response.status_code == 400
    assert response.json()["error"] == "Invalid request body"
    assert "summary" in response.json()


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("not json", id="not-json"),
        pytest.param(json.dumps({"query": ""}), id="empty-query"),
        pytest.param(json.dumps({"query": "x", "filter": {"limit": 0}}), id="bad-limit"),
    ],
)
async def test_invalid_bodies_are_400(api: Api, body: str) -> None:
    async with api(extensions=True) as http:
        response = await http.post("/search/smart", content=body, headers=TEXT)
    assert response.status_code == 400
    assert response.json()["error"] == "Invalid request body"


async def test_smart_search_needs_the_key(api: Api) -> None:
    async with api(auth=False, extensions=True) as http:
        response = await http.post("/search/smart", content='{"query": "x"}', headers=TEXT)
    assert response.status_code == 401
