"""POST /search/ with JsonLogic and its content types, and GET /tags/."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Api, MakeApp, build_vault, client

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("version", "headers", "code"),
    [
        pytest.param("5.1.0", {}, 40011, id="5x-missing"),
        pytest.param("5.1.0", {"Content-Type": "text/plain"}, 40012, id="5x-unknown"),
        pytest.param(
            "5.1.0",
            {"Content-Type": "application/vnd.olrapi.jsonlogic+json; charset=utf-8"},
            40012,
            id="5x-parameters-are-not-ignored",
        ),
        pytest.param("3.6.2", {}, 40011, id="3.6.2-missing"),
        pytest.param("3.6.2", {"Content-Type": "text/plain"}, 40012, id="3.6.2-unknown"),
        pytest.param("3.6.2", {"Content-Type": "application/json"}, 40012, id="3.6.2-json"),
        pytest.param("3.3.0", {"Content-Type": "text/plain"}, 40012, id="3.3.0-unknown"),
        # 40012 came in 3.3.0: before, every content type it did not know was 40011
        pytest.param("3.2.0", {"Content-Type": "text/plain"}, 40011, id="3.2.0-unknown"),
    ],
)
async def test_search_content_type_errors(
    api: Api, version: str, headers: dict[str, str], code: int
) -> None:
    async with api(version) as http:
        response = await http.post("/search/", content=b"{}", headers=headers)
    assert response.status_code == 400
    assert response.json()["errorCode"] == code


async def test_tags_count_notes_and_every_parent_of_a_nested_tag(api: Api) -> None:
    async with api() as http:
        response = await http.get("/tags/")
    counts = {tag["name"]: tag["count"] for tag in response.json()["tags"]}
    assert counts == {
        "project": 3,  # plan and Welcome, plus old.md's project/archived
        "project/archived": 1,
        "work": 1,
        "work/tasks": 1,
        "inline": 1,
        "journal": 2,  # from journal/daily and from #journal itself
        "journal/daily": 1,
    }


async def test_tags_before_3_5_do_not_exist(api: Api) -> None:
    async with api("3.4.0") as http:
        response = await http.get("/tags/")
    assert response.status_code == 404


async def test_integer_like_tags_come_first_as_in_a_javascript_object(
    make_app: MakeApp, tmp_path: Path
) -> None:
    vault = build_vault(tmp_path / "years", {"a.md": "#zeta #2024/jan #alpha"})
    async with client(make_app(vault=vault)) as http:
        tags = (await http.get("/tags/")).json()["tags"]
    assert [tag["name"] for tag in tags] == ["2024", "zeta", "2024/jan", "alpha"]


async def test_a_tag_is_listed_before_its_parents_as_the_plugin_counts_them(
    make_app: MakeApp, tmp_path: Path
) -> None:
    vault = build_vault(
        tmp_path / "nested", {"a.md": "#beta/gamma/δ 🚀 and #alpha", "b.md": "#beta"}
    )
    async with client(make_app(vault=vault)) as http:
        tags = (await http.get("/tags/")).json()["tags"]
    assert [(tag["name"], tag["count"]) for tag in tags] == [
        ("beta/gamma/δ", 1),
        ("beta", 2),
        ("beta/gamma", 1),
        ("alpha", 1),
    ]


# --- JsonLogic ------------------------------------------------------------------------------

JSONLOGIC = {"Content-Type": "application/vnd.olrapi.jsonlogic+json"}


async def test_search_returns_notes_with_truthy_results(api: Api) -> None:
    async with api() as http:
        response = await http.post(
            "/search/", json={"in": ["project", {"var": "tags"}]}, headers=JSONLOGIC
        )
    assert response.status_code == 200
    assert response.json() == [
        {"filename": "Projects/plan.md", "result": True},
        {"filename": "Welcome.md", "result": True},
    ]


async def test_search_result_values_are_returned_as_computed(api: Api) -> None:
    query = {"if": [{"glob": ["Projects/**", {"var": "path"}]}, {"var": "frontmatter"}, {}]}
    async with api() as http:
        results = (await http.post("/search/", json=query, headers=JSONLOGIC)).json()
    assert results == [
        {"filename": "Projects/Archive/old.md", "result": {"status": "done", "priority": 3}},
        {
            "filename": "Projects/plan.md",
            "result": {"tags": ["project", "work/tasks"], "status": "active", "priority": 42},
        },
    ]


async def test_search_sees_links_and_backlinks_from_4_0(api: Api) -> None:
    query = {"in": ["Welcome.md", {"var": "backlinks"}]}
    async with api("3.6.2") as http:
        old = (await http.post("/search/", json=query, headers=JSONLOGIC)).json()
    async with api("4.0.0") as http:
        new = (await http.post("/search/", json=query, headers=JSONLOGIC)).json()
    assert old == []
    assert new == [{"filename": "Projects/plan.md", "result": True}]


@pytest.mark.parametrize(
    ("version", "found"),
    [pytest.param("4.0.2", 7, id="4.0.2"), pytest.param("4.0.3", 0, id="4.0.3")],
)
async def test_content_is_only_loaded_when_the_query_names_it_from_4_0_3(
    api: Api, version: str, found: int
) -> None:
    spelled = {"var": "content"}
    assembled = {"var": {"cat": ["con", "tent"]}}  # reads content without naming it
    async with api(version) as http:
        named = (await http.post("/search/", json=spelled, headers=JSONLOGIC)).json()
        hidden = (await http.post("/search/", json=assembled, headers=JSONLOGIC)).json()
    assert len(named) == 7
    assert len(hidden) == found


async def test_an_evaluation_error_is_40070_naming_the_file(api: Api) -> None:
    async with api() as http:
        response = await http.post("/search/", json={"nope": [1]}, headers=JSONLOGIC)
    assert response.status_code == 400
    body = response.json()
    assert body["errorCode"] == 40070
    assert body["message"].startswith("The query you provided could not be processed.\n")
    assert "Unrecognized operation nope (while processing " in body["message"]


async def test_a_body_that_is_not_json_is_40015(api: Api) -> None:
    async with api() as http:
        response = await http.post("/search/", content=b"{nope", headers=JSONLOGIC)
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40015


@pytest.mark.parametrize("version", ["3.5.0", "3.6.2", "4.1.7", "5.1.0"])
async def test_tags_count_every_occurrence_at_every_version(
    api: Api, vault: Path, version: str
) -> None:
    (vault / "Dup 🎉 #1.md").write_text("---\ntags: [dup]\n---\n#dup #dup\n", encoding="utf-8")
    (vault / "Cafe\u0301.md").write_text("---\nTAG: dup, dup/子\n---\n`#dup`\n", encoding="utf-8")
    async with api(version) as http:
        response = await http.get("/tags/")
    counts = {tag["name"]: tag["count"] for tag in response.json()["tags"]}
    # getAllTags: 3 from the first note; from the second 'dup' and, as its parent, 'dup/子'
    # (the code span holds no tag)
    assert counts["dup"] == 5
    assert counts["dup/子"] == 1


# issue 36, difference 5: Obsidian's getAllTags drops a frontmatter list item with a space
@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_a_frontmatter_tag_with_a_space_is_no_tag(
    api: Api, vault: Path, version: str
) -> None:
    (vault / "Spaced.md").write_text(
        "---\ntags: ['#hashy', plain, 'two words', ' padded ']\n---\nText.\n", encoding="utf-8"
    )
    async with api(version) as http:
        response = await http.get("/tags/")
    names = {tag["name"] for tag in response.json()["tags"]}
    assert {"hashy", "plain", "padded"} <= names
    assert not any(" " in name for name in names)
