"""Targeted reads: /vault/<note>/heading/..., /block/<id>, /frontmatter/<key> (3.6.0+)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from tests.engine.test_targets import NESTED  # the same note, read through HTTP

from vaultgate import markdown

from .conftest import Api

pytestmark = pytest.mark.anyio


@pytest.fixture
def nested(vault: Path) -> str:
    (vault / "nested.md").write_text(NESTED, encoding="utf-8")
    return "nested.md"


async def test_a_heading_section_includes_its_subsections_with_relative_levels_on_5x(
    api: Api, nested: str
) -> None:
    async with api() as http:
        response = await http.get(f"/vault/{nested}/heading/Top/Child")
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.text == "\nChild text.\n\n# Grandchild\n\nDeep text.\n\n"


async def test_4x_returns_the_section_as_written(api: Api, nested: str) -> None:
    async with api("4.1.7") as http:
        response = await http.get(f"/vault/{nested}/heading/Top/Child")
    assert response.text == "\nChild text.\n\n### Grandchild\n\nDeep text.\n\n"


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        pytest.param("marker", "Child", id="marker"),
        pytest.param(
            "markerAndContent",
            "# Child\n\nChild text.\n\n## Grandchild\n\nDeep text.\n\n",
            id="marker-and-content",
        ),
    ],
)
async def test_target_scope_picks_what_a_5x_heading_read_returns(
    api: Api, nested: str, scope: str, expected: str
) -> None:
    async with api() as http:
        response = await http.get(
            f"/vault/{nested}/heading/Top/Child", headers={"Target-Scope": scope}
        )
    assert response.text == expected


async def test_an_unreadable_target_scope_is_refused(api: Api, nested: str) -> None:
    async with api() as http:
        response = await http.get(
            f"/vault/{nested}/heading/Top", headers={"Target-Scope": "parent"}
        )
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40059


async def test_an_encoded_slash_in_a_heading_segment_is_part_of_the_heading(
    api: Api, nested: str
) -> None:
    async with api() as http:
        response = await http.get(f"/vault/{nested}/heading/Top/TODO%2FDONE")
    assert response.text == "\nSlash heading.\n\n"


async def test_a_repeated_sibling_heading_is_addressed_with_the_marker(
    api: Api, nested: str
) -> None:
    second = quote(f"Log{markdown.DUPLICATE_MARKER}")
    async with api() as http:
        first = await http.get(f"/vault/{nested}/heading/Top/Log")
        later = await http.get(f"/vault/{nested}/heading/Top/{second}")
    assert first.text == "\nMonday.\n\n"
    assert later.text == "\nTuesday.\n"


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("/vault/nested.md/heading/Child", id="leaf-name-is-not-a-path"),
        pytest.param("/vault/nested.md/heading/Top/Nope", id="missing-heading"),
        pytest.param("/vault/nested.md/block/nope", id="missing-block"),
        pytest.param("/vault/Projects/plan.md/frontmatter/nope", id="missing-key"),
        pytest.param("/vault/missing.md/heading/Top", id="missing-note"),
    ],
)
async def test_missing_targets_are_404(api: Api, nested: str, url: str) -> None:
    async with api() as http:
        response = await http.get(url)
    assert response.status_code == 404
    assert response.json()["errorCode"] == 40400


async def test_a_block_read_leaves_the_marker_out(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md/block/goal1")
    assert response.text == "Ship the alpha."


async def test_a_frontmatter_read_is_the_json_value(api: Api) -> None:
    async with api() as http:
        tags = await http.get("/vault/Projects/plan.md/frontmatter/tags")
        priority = await http.get("/vault/Projects/plan.md/frontmatter/priority")
    assert tags.headers["content-type"] == "application/json; charset=utf-8"
    assert tags.json() == ["project", "work/tasks"]
    assert priority.json() == 42


async def test_an_unknown_target_type_after_a_note_is_refused(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md/paragraph/1")
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40054


async def test_targeted_reads_do_not_exist_before_3_6_0(api: Api) -> None:
    async with api("3.5.0") as http:
        response = await http.get("/vault/Projects/plan.md/heading/Plan")
    assert response.status_code == 404


async def test_note_json_wins_over_a_url_target(api: Api) -> None:
    async with api() as http:
        response = await http.get(
            "/vault/Projects/plan.md/heading/Plan",
            headers={"Accept": "application/vnd.olrapi.note+json"},
        )
    assert response.json()["path"] == "Projects/plan.md"


# --- deprecated header targeting ------------------------------------------------------------


async def test_header_targeting_works_on_4x(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.get(
            "/vault/Projects/plan.md",
            headers={"Target-Type": "heading", "Target": quote("Plan::Goals")},
        )
    assert response.text.startswith("\nShip the alpha. ^goal1\n")


async def test_header_targeting_on_5x_needs_markdown_patch_version_1(api: Api) -> None:
    headers = {"Target-Type": "frontmatter", "Target": "status"}
    async with api() as http:
        refused = await http.get("/vault/Projects/plan.md", headers=headers)
        allowed = await http.get(
            "/vault/Projects/plan.md", headers={**headers, "Markdown-Patch-Version": "1"}
        )
    assert refused.status_code == 400
    assert refused.json()["errorCode"] == 40083
    assert allowed.json() == "active"
    assert allowed.headers["deprecation"] == 'true; sunset-version="6.0"'


async def test_a_url_target_and_header_target_together_conflict(api: Api) -> None:
    async with api() as http:
        response = await http.get(
            "/vault/Projects/plan.md/heading/Plan",
            headers={"Target-Type": "heading", "Target": "Plan"},
        )
    assert response.status_code == 422
    assert response.json()["errorCode"] == 42200


async def test_the_1x_engine_reads_the_last_of_identical_paths(api: Api, vault: Path) -> None:
    (vault / "log.md").write_text("# Log\n\nMonday.\n\n# Log\n\nTuesday.\n", encoding="utf-8")
    async with api("4.1.7") as http:
        response = await http.get("/vault/log.md/heading/Log")
    assert response.text == "\nTuesday.\n"
